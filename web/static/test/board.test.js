// @ts-check
// board.test.js: the teacher's scoreboard decides each cell from the
// results API alone — passed, failed, or nothing to judge yet — and
// writes a check's evidence as catalogue sentences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STATES, cellState, countDone, evidenceLines, listText, rowState, topicOf } from '../exercises/board-model.js';

const graded = { checkedAt: '2026-12-02T00:00:00Z' };

test('cellState: passed, failed, or waiting', () => {
  const nothing = { ok: false, evidence: {}, hintCode: 'exercise.hint.tooFew', hintArgs: { got: '0', want: '3' } };
  const noneReceived = { ok: false, evidence: { logEnd: 0 }, hintCode: 'exercise.hint.receivesFew', hintArgs: { got: '0', want: '3' } };
  const aborted = { ok: false, evidence: { offsets: [0, 1, 2], marker: { offset: 3, type: 'ABORT' } }, hintCode: 'exercise.hint.abortMarker' };
  const tests = [
    { name: 'passed', result: { ...graded, checks: [{ ok: true }] }, check: { ok: true }, want: 'ok' },
    { name: 'not graded yet', result: { checkedAt: null, checks: [{ ok: false }] }, check: { ok: false }, want: 'pending' },
    { name: 'nothing written yet', result: { ...graded, checks: [nothing, noneReceived] }, check: noneReceived, want: 'pending' },
    { name: 'an ABORT marker', result: { ...graded, checks: [aborted, noneReceived] }, check: aborted, want: 'fail' },
    { name: 'nothing received of an aborted attempt', result: { ...graded, checks: [aborted, noneReceived] }, check: noneReceived, want: 'fail' },
    { name: 'one check passed, another not', result: { ...graded, checks: [{ ok: true, evidence: {} }, nothing] }, check: nothing, want: 'fail' },
  ];
  for (const tt of tests) assert.equal(cellState(/** @type {any} */ (tt.result), /** @type {any} */ (tt.check)), tt.want, tt.name);
  // An exercise that does not run: every cell and row is not started.
  for (const tt of tests) assert.equal(cellState(/** @type {any} */ (tt.result), /** @type {any} */ (tt.check), false), 'none', tt.name + ', not running');
  assert.equal(rowState(/** @type {any} */ ({ ...graded, done: true, checks: [{ ok: true }] }), false), 'none');
});

test('STATES: one mark and one catalogue word per state', () => {
  assert.deepEqual(Object.keys(STATES), ['none', 'pending', 'fail', 'ok']);
  const marks = Object.values(STATES).map((s) => s.mark);
  assert.equal(new Set(marks).size, marks.length);
  for (const [state, s] of Object.entries(STATES)) assert.equal(s.key, 'check.state.' + state);
});

test('rowState and countDone', () => {
  /** @type {any} */
  const done = { ...graded, done: true, checks: [{ ok: true }] };
  /** @type {any} */
  const wrong = { ...graded, done: false, checks: [{ ok: true }, { ok: false, evidence: { marker: { offset: 3, type: 'ABORT' } } }] };
  /** @type {any} */
  const idle = { checkedAt: null, done: false, checks: [{ ok: false }] };
  assert.deepEqual([done, wrong, idle].map((r) => rowState(r)), ['ok', 'fail', 'pending']);
  assert.deepEqual(countDone([done, wrong, idle]), { done: 1, total: 3 });
  assert.deepEqual(countDone([]), { done: 0, total: 0 });
});

test('listText shortens runs of three or more', () => {
  assert.equal(listText([0, 1, 2]), '0–2');
  assert.equal(listText([0, 1, 3, 4, 5, 9]), '0, 1, 3–5, 9');
  assert.equal(listText([]), '');
  assert.equal(listText(['1234567890123456789']), '1234567890123456789');
});

test('evidenceLines names each fact the check read, in order', () => {
  const lines = evidenceLines({
    offsets: [0, 1, 2], producerId: '1234567890123456789', producerEpoch: 0,
    marker: { offset: 3, type: 'COMMIT', producerId: '1234567890123456789', producerEpoch: 0 }, received: [], logEnd: 4,
  });
  assert.deepEqual(lines.map((l) => l.key), ['board.ev.offsets', 'board.ev.producerId', 'board.ev.producerEpoch', 'board.ev.marker', 'board.ev.receivedNone', 'board.ev.logEnd']);
  assert.deepEqual(lines[0].args, { offsets: '0–2' });
  assert.deepEqual(lines[3].args, { type: 'COMMIT', offset: '3', producerId: '1234567890123456789', epoch: '0' });
  assert.deepEqual(evidenceLines({}), []);
  assert.deepEqual(evidenceLines({ committedOffset: 0 }), [{ key: 'board.ev.committedOffset', args: { offset: '0' } }]);
});

test('evidenceLines names a producer as the partition page does, its id shortened', () => {
  const lines = evidenceLines({
    producerId: '1234567890123456789', producerAlias: 'P2',
    marker: { offset: 3, type: 'ABORT', producerId: '1234567890123456789', producerAlias: 'P2', producerEpoch: 1 },
  });
  assert.deepEqual(lines, [
    { key: 'board.ev.producerAlias', args: { alias: 'P2', producerId: '…6789' } },
    { key: 'board.ev.markerAlias', args: { type: 'ABORT', offset: '3', alias: 'P2', epoch: '1' } },
  ]);
});

test('evidenceLines names the share exercise\'s jobs by state and the poison job\'s fate', () => {
  const lines = evidenceLines({ acknowledged: [0, 1, 2, 3, 4, 5, 7, 8, 9], poison: { offset: 6, state: 'archived', deliveryCount: 1, why: 'rejected' } });
  assert.deepEqual(lines, [
    { key: 'board.ev.acknowledged', args: { offsets: listText([0, 1, 2, 3, 4, 5, 7, 8, 9]) } },
    { key: 'board.ev.poisonWhy', args: { offset: '6', count: '1', whyKey: 'lane.share.why.rejected' } },
  ]);
  assert.deepEqual(evidenceLines({ archived: [3], unfinished: [8, 9], poison: { offset: 6, state: 'available', deliveryCount: 2 } }).map((l) => l.key),
    ['board.ev.archived', 'board.ev.unfinished', 'board.ev.poison']);
});

test('topicOf fills the exercise names in for a student', () => {
  assert.equal(topicOf({ topic: 'student-<name>-commit' }, 'ada'), 'student-ada-commit');
});
