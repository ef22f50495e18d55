// @ts-check
// sharecell.test.js: what a share lane shows at each offset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shareCell, workerNames } from '../partition/sharecell.js';

const now = Date.parse('2026-12-07T05:00:00Z');
/** @type {import('../partition/sharecell.js').ShareLane} */
const lane = {
  group: 'workers', startOffset: 7, endOffset: 10, highWatermark: 11,
  records: [
    { offset: 7, state: 'available', deliveryCount: 1 },
    { offset: 8, state: 'acquired', deliveryCount: 2, member: 'm-b', lockExpiresAt: '2026-12-07T05:00:12.200Z' },
    { offset: 9, state: 'archived', deliveryCount: 5, why: 'deliveryLimit' },
    { offset: 10, state: 'available', deliveryCount: 0 },
  ],
};

test('each state has its label, sentence and pointers', () => {
  const workers = workerNames(lane);
  const tests = [
    { offset: 3, state: 'done', short: '', spso: false, speo: false },
    { offset: 7, state: 'available', short: '○ #1', spso: true, speo: false },
    { offset: 8, state: 'acquired', short: 'W1 #2 13s', spso: false, speo: false },
    { offset: 9, state: 'archived', short: '✗', spso: false, speo: false, why: 'deliveryLimit' },
    { offset: 10, state: 'available', short: '○', spso: false, speo: true },
    { offset: 11, state: 'none', short: '', spso: false, speo: false },
  ];
  for (const tt of tests) {
    const got = shareCell(lane, tt.offset, workers, now);
    assert.equal(got.state, tt.state, `offset ${tt.offset}`);
    assert.equal(got.short, tt.short, `offset ${tt.offset}`);
    assert.equal(got.spso, tt.spso, `offset ${tt.offset} SPSO`);
    assert.equal(got.speo, tt.speo, `offset ${tt.offset} SPEO`);
    if (tt.why) assert.equal(got.whyKey, tt.why);
  }
});

test('workers are numbered in the order they first hold a record, and keep their names', () => {
  const names = workerNames({ records: [{ member: 'x' }, { member: 'y' }, { member: 'x' }] });
  assert.deepEqual([...names.entries()], [['x', 'W1'], ['y', 'W2']]);
  workerNames({ records: [{ member: 'z' }, { member: 'y' }] }, names);
  assert.deepEqual([...names.values()], ['W1', 'W2', 'W3']);
});

test('a record one of the dashboard\'s workers holds is named after it', () => {
  const mine = { ...lane, records: [{ offset: 7, state: 'acquired', deliveryCount: 2, member: 'm', worker: 'w1', lockExpiresAt: '2026-12-07T05:00:03Z' }] };
  assert.equal(shareCell(mine, 7, workerNames(mine), now).short, 'w1 #2 3s');
});

test('a lock past its expiry shows 0 s, and a Kafka offset in flight its delivery count', () => {
  const expired = { ...lane, records: [{ offset: 7, state: 'acquired', deliveryCount: 1, member: 'm', lockExpiresAt: '2026-12-07T04:59:00Z' }] };
  assert.equal(shareCell(expired, 7, workerNames(expired), now).short, 'W1 #1 0s');
  const kafka = { ...lane, records: [{ offset: 7, state: 'inFlight', deliveryCount: 1 }] };
  assert.equal(shareCell(kafka, 7, new Map(), now).short, '… #1');
});

test('below the start offset, a settled offset shows how it ended; others are done', () => {
  const finished = { ...lane, startOffset: 12, endOffset: 12, highWatermark: 12, records: [],
    settled: [{ offset: 5, state: 'acknowledged', deliveryCount: 1 }, { offset: 6, state: 'archived', deliveryCount: 1, why: 'rejected' }] };
  assert.equal(shareCell(finished, 5, new Map(), now).state, 'acknowledged');
  const poison = shareCell(finished, 6, new Map(), now);
  assert.equal(poison.state, 'archived');
  assert.equal(poison.whyKey, 'rejected');
  assert.equal(shareCell(finished, 4, new Map(), now).state, 'done');
});
