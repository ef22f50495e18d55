// @ts-check
// studentview.test.js: what the student's exercise page shows — which
// names may join, the checklist's rows and their evidence, the sentence
// above them — from the API's answers, with no page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STATES, checklistRows, checklistSummary, evidenceSentences, logPath, nameProblem, spans, textIn } from '../exercises/studentview.js';

test('nameProblem follows the class rule: a letter, then letters and digits, 2 to 16', () => {
  const tests = [
    { name: 'ann', want: null },
    { name: 'Bo2', want: null },
    { name: ' ann ', want: null },
    { name: 'a'.repeat(16), want: null },
    { name: '', want: 'student.join.empty' },
    { name: '   ', want: 'student.join.empty' },
    { name: 'a', want: 'error.studentName' },
    { name: 'a'.repeat(17), want: 'error.studentName' },
    { name: '2pac', want: 'error.studentName' },
    { name: 'ann-lee', want: 'error.studentName' },
    { name: 'ann lee', want: 'error.studentName' },
    { name: '지민', want: 'error.studentName' },
  ];
  for (const tt of tests) {
    const got = nameProblem(tt.name);
    assert.equal(got?.key ?? null, tt.want, JSON.stringify(tt.name));
  }
  assert.deepEqual(nameProblem('ann-lee').args, { name: 'ann-lee' });
});

test('spans writes offsets as runs and cuts long lists', () => {
  assert.equal(spans([0, 1, 2, 5]), '0–2, 5');
  assert.equal(spans([3]), '3');
  assert.equal(spans([]), '');
  assert.equal(spans([0, 2, 4, 6], 2), '0, 2, …');
});

test('textIn picks the language, else English', () => {
  assert.equal(textIn({ en: 'Commit', ko: '커밋' }, 'ko'), '커밋');
  assert.equal(textIn({ en: 'Commit' }, 'ko'), 'Commit');
  assert.equal(textIn(undefined, 'en'), '');
});

test('evidenceSentences names offsets, producer, marker and what read_committed receives', () => {
  const got = evidenceSentences({
    offsets: [0, 1, 2], producerId: 1000, producerEpoch: 0,
    marker: { offset: 3, type: 'COMMIT', producerId: 1000, producerEpoch: 0 }, received: [0, 1, 2],
  });
  assert.deepEqual(got, [
    { key: 'student.evidence.offsets', args: { offsets: '0–2' } },
    { key: 'student.evidence.producer', args: { producerId: '1000', epoch: '0' } },
    { key: 'student.evidence.marker', args: { type: 'COMMIT', offset: '3', producerId: '1000', epoch: '0' } },
    { key: 'student.evidence.received', args: { offsets: '0–2' } },
  ]);
  assert.deepEqual(evidenceSentences({ received: [], committedOffset: 4, logEnd: 4 }).map((s) => s.key),
    ['student.evidence.receivedNone', 'student.evidence.committedOffset', 'student.evidence.logEnd']);
  // A 19-digit producer id the page keeps as text stays exact.
  assert.equal(evidenceSentences({ producerId: '9007199254740993' })[0].args.producerId, '9007199254740993');
  assert.deepEqual(evidenceSentences(undefined), []);
});

test('evidenceSentences names the share exercise\'s jobs by state and the poison job\'s fate', () => {
  assert.deepEqual(evidenceSentences({
    offsets: [0, 1, 2, 3, 4, 5, 7, 8, 9], acknowledged: [0, 1, 2, 3, 4, 5], archived: [7], unfinished: [8, 9],
  }).map((s) => [s.key, s.args?.offsets]), [
    ['student.evidence.offsets', '0–5, 7–9'], ['student.evidence.acknowledged', '0–5'],
    ['student.evidence.archived', '7'], ['student.evidence.unfinished', '8–9'],
  ]);
  assert.deepEqual(evidenceSentences({ poison: { offset: 6, state: 'archived', deliveryCount: 5, why: 'deliveryLimit' } }),
    [{ key: 'student.evidence.poisonWhy', args: { offset: '6', count: '5', whyKey: 'lane.share.why.deliveryLimit' } }]);
  assert.deepEqual(evidenceSentences({ poison: { offset: 6, state: 'acknowledged', deliveryCount: 1 } }),
    [{ key: 'student.evidence.poison', args: { offset: '6', count: '1', state: 'acknowledged' } }]);
});

test('evidenceSentences names a producer as the partition page does, its id shortened', () => {
  assert.deepEqual(evidenceSentences({
    producerId: '9007199254740993', producerAlias: 'P1', producerEpoch: 2,
    marker: { offset: 5, type: 'COMMIT', producerId: '9007199254740993', producerAlias: 'P1', producerEpoch: 2 },
  }), [
    { key: 'student.evidence.producerAlias', args: { alias: 'P1', producerId: '…0993', epoch: '2' } },
    { key: 'student.evidence.markerAlias', args: { type: 'COMMIT', offset: '5', alias: 'P1', epoch: '2' } },
  ]);
  assert.deepEqual(evidenceSentences({ producerId: 7, producerAlias: 'P3' }), [{ key: 'student.evidence.producerIdAlias', args: { alias: 'P3', producerId: '7' } }]);
});

const checks = [
  { key: 'committed', title: { en: 'Three records and their COMMIT marker' } },
  { key: 'readCommitted', title: { en: 'read_committed receives the three' } },
];

test('checklistRows: pending before grading, then ok or failing with the hint', () => {
  assert.deepEqual(checklistRows(checks, undefined).map((r) => r.state), ['pending', 'pending']);
  /** @type {any} */
  const result = {
    checkedAt: '2026-12-02T00:00:00Z', done: false,
    checks: [
      { key: 'readCommitted', ok: true, evidence: { received: [0, 1, 2] } },
      { key: 'committed', ok: false, evidence: { marker: { offset: 3, type: 'ABORT', producerId: 7, producerEpoch: 1 } }, hint: 'Offset 3 is an ABORT marker…', hintCode: 'exercise.hint.abortMarker', hintArgs: { offset: '3' } },
    ],
  };
  const rows = checklistRows(checks, result);
  assert.deepEqual(rows.map((r) => [r.key, r.state]), [['committed', 'fail'], ['readCommitted', 'ok']]);
  assert.deepEqual(rows[0].hint, { code: 'exercise.hint.abortMarker', args: { offset: '3' }, text: 'Offset 3 is an ABORT marker…' });
  assert.equal(rows[1].hint, null);
  assert.equal(rows[0].evidence[0].key, 'student.evidence.marker');
  assert.deepEqual(checklistSummary(rows, result), { key: 'student.checks.todo', args: { passed: '1', total: '2' } });
  assert.deepEqual(checklistSummary(rows, { ...result, done: true }), { key: 'student.checks.done' });
  assert.deepEqual(checklistSummary(checklistRows(checks, undefined), undefined), { key: 'student.checks.waiting' });
});

test('checklistRows: before any attempt a check waits, as on the teacher\'s board, with no hint', () => {
  const untouched = {
    name: 'ann', checkedAt: '2026-12-02T00:00:00Z', done: false,
    checks: [
      { key: 'committed', ok: false, evidence: { logEnd: 0 }, hintCode: 'exercise.hint.tooFew', hintArgs: { got: '0', want: '3' } },
      { key: 'readCommitted', ok: false, evidence: { logEnd: 0 }, hintCode: 'exercise.hint.receivesFew', hintArgs: { got: '0', want: '3' } },
    ],
  };
  const rows = checklistRows(checks, untouched);
  assert.deepEqual(rows.map((r) => r.state), ['pending', 'pending']);
  assert.deepEqual(rows.map((r) => r.hint), [null, null]);
  assert.deepEqual(rows.map((r) => STATES[r.state].key), ['check.state.pending', 'check.state.pending']);
});

test('logPath opens the student\'s own partition without following the teacher', () => {
  assert.equal(logPath('ann-commit'), '/topics/ann-commit/partitions/0?follow=off');
});
