// @ts-check
// logfeed.test.js: what the log view is told, alone — the live stream's
// snapshot, entries and pointers, the offsets an action waits for, the
// copies and raised epochs, and a replay that stashes the live state and
// gives it back — with hooks that record what the view was asked, no DOM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PAGE } from '../partition/cache.js';
import { LogFeed } from '../partition/logfeed.js';

/** @type {(offset: number, extra?: object) => any} a partial entry: only what the feed and the cache read */
const data = (offset, extra = {}) => ({ offset, kind: 'data', txn: 'none', readCommitted: true, readUncommitted: true, producerId: 7, producerEpoch: 0, ...extra });

/** @type {(lso: number, hw: number, start?: number) => import('../types/wire.js').Pointers} */
const pointers = (lso, hw, start = 0) => ({ logStartOffset: start, lastStableOffset: lso, highWatermark: hw });

/** feed is a LogFeed whose hooks write what they were asked into calls. */
function feed() {
  /** @type {string[]} */
  const calls = [];
  const f = new LogFeed({
    pages: { abort: () => calls.push('abort'), forgetFailures: () => calls.push('forgetFailures') },
    grown: () => calls.push('grown'),
    drawNow: (changed) => calls.push(`drawNow ${changed.join(',')}`),
    schedule: () => calls.push('schedule'),
    followEnd: () => calls.push('followEnd'),
    reveal: (offsets) => calls.push(`reveal ${offsets.join(',')}`),
  });
  return { f, calls };
}

test('a snapshot replaces what is shown and the view grows', () => {
  const { f, calls } = feed();
  f.applyEntries([data(0)]);
  calls.length = 0;
  f.applySnapshot({ pointers: pointers(2, 2), groups: [{ group: 'g', committed: 1 }], entries: [data(1)] });
  assert.deepEqual(calls, ['forgetFailures', 'grown']);
  assert.equal(f.cache.get(0), undefined, 'the snapshot clears the entries known');
  assert.equal(f.cache.get(1)?.offset, 1);
  assert.deepEqual(f.pointers, pointers(2, 2));
  assert.deepEqual(f.groups, [{ group: 'g', committed: 1 }]);
  assert.equal(f.hw, 2);
});

test('entries draw at once and flash only those that changed', () => {
  const { f, calls } = feed();
  f.applyEntries([data(0), data(1)]);
  f.applyEntries([data(1), data(2)]);
  assert.deepEqual(calls, ['grown', 'drawNow 0,1', 'grown', 'drawNow 2']);
});

test('a rising LSO has the known pages under it read again', () => {
  const { f } = feed();
  f.applyEntries([data(0), data(2 * PAGE)]);
  f.applyPointers(pointers(0, 5));
  f.applyPointers(pointers(PAGE + 1, PAGE + 2));
  assert.equal(f.cache.isStale(0), true, 'the first page, under the new LSO');
  assert.equal(f.cache.isStale(2), false, 'a page above it');
  assert.deepEqual(f.pointers, pointers(PAGE + 1, PAGE + 2));
});

test('a page moves the pointers on, never back', () => {
  const { f } = feed();
  /** @type {(lso: number, hw: number) => any} */
  const page = (lso, hw) => ({ logStartOffset: 0, lastStableOffset: lso, highWatermark: hw, entries: [] });
  f.takePage(page(9, 9));
  assert.equal(f.pointers, null, 'no pointers yet: a page does not make them');
  f.applyPointers(pointers(4, 6));
  f.takePage(page(3, 8));
  assert.deepEqual(f.pointers, pointers(4, 8));
});

test('the offsets an action wrote are revealed with the copies they repeat once they arrive', () => {
  const { f, calls } = feed();
  f.applyPointers(pointers(3, 3));
  calls.length = 0;
  f.expect([3, 4, NaN]);
  assert.deepEqual(calls, ['followEnd'], 'not there yet: the view follows the end');
  f.applyPointers(pointers(5, 5));
  f.applyEntries([data(3), data(4, { duplicateOf: 1 })]);
  f.tryReveal();
  assert.equal(calls.at(-1), 'reveal 3,4,1');
  assert.equal(f.wanted, null);
});

test('our producer\'s retry is a copy of the send whose ACK was lost', () => {
  const { f, calls } = feed();
  f.applyEntries([data(0), data(1)]);
  f.noteRetry(1, 0);
  f.noteRetry(NaN, 0);
  assert.equal(calls.at(-1), 'schedule');
  assert.deepEqual(f.copyOf(1), { kind: 'retry', of: 0 });
  assert.equal(f.copyOf(0), null);
});

test('epochRise', () => {
  const { f } = feed();
  f.applyEntries([
    data(0, { producerEpoch: 0 }),
    data(1, { producerId: 8, producerEpoch: 3 }),
    { offset: 2, kind: 'control', txn: 'committed', marker: 'COMMIT', producerId: 7, producerEpoch: 1 },
    { offset: 3, kind: 'control', txn: 'committed', marker: 'COMMIT', producerId: 8, producerEpoch: 3 },
  ]);
  assert.deepEqual(f.epochRise(2), { from: 0, to: 1 }, 'a marker with a raised epoch');
  assert.equal(f.epochRise(3), null, 'a marker in its producer\'s epoch');
  assert.equal(f.epochRise(0), null, 'a record is no marker');
});

test('a replay stashes the live state, which the stream keeps up to date, and gives it back', () => {
  const { f, calls } = feed();
  f.applySnapshot({ pointers: pointers(1, 1), groups: [], entries: [data(0)] });
  const live = f.cache;
  calls.length = 0;
  f.showPast({ entries: [data(5)], pointers: pointers(6, 6), groups: [{ group: 'old', committed: 5 }] });
  assert.deepEqual(calls, ['abort']);
  assert.equal(f.replaying, true);
  assert.notEqual(f.cache, live);
  assert.equal(f.cache.get(5)?.offset, 5);
  assert.deepEqual(f.pointers, pointers(6, 6));

  // The stream goes on into the stash; the past stays on show.
  f.applyEntries([data(1)]);
  f.applyPointers(pointers(2, 2));
  f.applyGroups([{ group: 'g', committed: 2 }]);
  f.expect([1]);
  f.tryReveal();
  assert.deepEqual(calls, ['abort'], 'nothing drawn or revealed while replaying');
  assert.deepEqual(f.pointers, pointers(6, 6));

  assert.equal(f.showLive(), true);
  assert.equal(f.showLive(), false, 'once back, nothing to give back');
  assert.equal(f.replaying, false);
  assert.equal(f.cache, live);
  assert.equal(f.cache.get(1)?.offset, 1);
  assert.deepEqual(f.pointers, pointers(2, 2));
  assert.deepEqual(f.groups, [{ group: 'g', committed: 2 }]);
});

test('reset forgets what was shown, waited for and marked', () => {
  const { f } = feed();
  f.applySnapshot({ pointers: pointers(1, 1), groups: [{ group: 'g', committed: 0 }], entries: [data(0)] });
  f.mark([0]);
  f.noteRetry(0, 0);
  f.expect([5]);
  f.showPast({ entries: [], pointers: null, groups: [] });
  f.reset();
  assert.equal(f.pointers, null);
  assert.deepEqual(f.groups, []);
  assert.equal(f.marked.size, 0);
  assert.equal(f.retryOf.size, 0);
  assert.equal(f.wanted, null);
  assert.equal(f.replaying, false);
  assert.equal(f.stash, null);
  assert.equal(f.start, 0);
  assert.equal(f.hw, 0);
});
