// @ts-check
// story.test.js: where an event sits in a partition's story, and what an
// empty story says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compare, emptyStory, place } from '../partition/story.js';

let seq = 0;
const entry = (e, heardEnd, time) => ({ e, ...place(e, heardEnd), time, seq: seq++ });

test("a lesson's check told after its step's ABORT sits after it, whichever reached the page first", () => {
  // Lesson 6g: step 6 writes the ABORT at offset 3; step 7's check is
  // told with the log end then (at 4). The page heard the check before
  // the live feed's sentence about the marker.
  const check = entry({ key: 'narration.lesson', at: 4 }, 3, 1000);
  const abort = entry({ key: 'narration.abort.one', offset: 3 }, 3, 999);
  const step8 = entry({ key: 'narration.lesson', at: 4 }, 4, 1001);
  const record4 = entry({ key: 'narration.write.committed', offset: 4 }, 4, 1002);
  const got = [record4, check, step8, abort].sort(compare).map((it) => it.e.key + '@' + it.pos);
  assert.deepEqual(got, ['narration.abort.one@3', 'narration.lesson@4', 'narration.lesson@4', 'narration.write.committed@4']);
  assert.ok(compare(check, step8) < 0, 'told earlier, same place: told first');
});

test('an event with neither offset nor at sits at the log end the page heard of', () => {
  assert.deepEqual(place(/** @type {any} */ ({}), 7), { pos: 7, rank: 0 });
  assert.deepEqual(place(/** @type {any} */ ({}), undefined), { pos: -1, rank: 0 });
  assert.deepEqual(place(/** @type {any} */ ({ offset: 2, at: 9 }), 7), { pos: 2, rank: 1 });
});

const fmt = (n) => n.toLocaleString('en-US');
const when = (iso) => iso.slice(0, 19).replace('T', ' ');

test('an empty story says who waits for what, or sums up the offsets already there', () => {
  const empty = { logStartOffset: 0, highWatermark: 0 };
  const full = { logStartOffset: 0, highWatermark: 50250 };
  const totals = { plain: 50000, committed: 0, aborted: 0, open: 0, commitMarkers: 125, abortMarkers: 125, gaps: 0 };
  const done = { state: 'done', totals, from: 0, to: 50250, firstWrite: '2026-12-01T19:55:21Z', lastWrite: '2026-12-01T20:13:36Z' };
  const tests = [
    { name: 'the teacher, nothing written', s: { pointers: empty, audience: 'teacher' }, key: 'timeline.empty' },
    { name: 'a student, nothing written', s: { pointers: empty, audience: 'student' }, key: 'timeline.emptyStudent' },
    { name: 'a read-only server', s: { pointers: null, audience: 'readOnly' }, key: 'timeline.emptyReadOnly' },
    { name: 'written before: map still read', s: { pointers: full, audience: 'student', map: { ...done, state: 'mapping', to: 20000 } }, key: 'timeline.beforeCounting' },
    { name: 'written before: map stopped', s: { pointers: full, audience: 'teacher', map: { ...done, state: 'stopped', to: 20000 } }, key: 'timeline.beforeUncounted' },
    { name: 'written before: mapped', s: { pointers: full, audience: 'student', map: done }, key: 'timeline.beforeSummary' },
    { name: 'written before: mapped on past what was there', s: { pointers: full, audience: 'student', map: { ...done, to: 50252 } }, key: 'timeline.beforeUncounted' },
  ];
  for (const tt of tests) {
    const got = emptyStory(/** @type {any} */ ({ map: null, fmt, when, ...tt.s }));
    assert.equal(got.key, tt.key, tt.name);
  }
  const got = emptyStory({ pointers: full, map: done, audience: 'student', fmt, when });
  assert.deepEqual(got.args, { offsetsKey: 'timeline.before.offsets', count: '50,250', first: '2026-12-01 19:55:21', last: '2026-12-01 20:13:36' });
  assert.deepEqual(got.parts, [
    { key: 'timeline.before.records', args: { count: '50,000' } },
    { key: 'timeline.before.commits', args: { count: '125' } },
    { key: 'timeline.before.aborts', args: { count: '125' } },
  ]);
  const one = emptyStory({ pointers: { logStartOffset: 4, highWatermark: 5 }, map: { ...done, from: 4, to: 5, totals: { ...totals, plain: 1, commitMarkers: 0, abortMarkers: 0 } }, audience: 'teacher', fmt, when });
  assert.equal(one.args.offsetsKey, 'timeline.before.offset');
  assert.deepEqual(one.parts, [{ key: 'timeline.before.record', args: { count: '1' } }]);
});
