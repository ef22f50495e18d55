// @ts-check
// pastmap.test.js: the replay's heat strip shows the replayed moment — its
// range, its records as the recording says they were — not the partition
// as it is now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countKey, pastBuckets } from '../partition/pastmap.js';

/** @type {(...args: any[]) => any} a partial entry: only what the rule reads */
const data = (offset, txn) => ({ offset, kind: 'data', txn });
/** @type {(...args: any[]) => any} */
const marker = (offset, m) => ({ offset, kind: 'control', marker: m });
const sum = (buckets, k) => buckets.reduce((n, b) => n + b[k], 0);

test('an entry counts as the map counts it', () => {
  assert.equal(countKey(data(0, 'none')), 'plain');
  assert.equal(countKey(data(0, 'committed')), 'committed');
  assert.equal(countKey(data(0, 'open')), 'open');
  assert.equal(countKey(marker(0, 'ABORT')), 'abortMarkers');
  assert.equal(countKey(marker(0, 'COMMIT')), 'commitMarkers');
  assert.equal(countKey(/** @type {any} */ ({ offset: 0, kind: 'gap', reason: 'compacted' })), 'gaps');
});

test('lesson 2 at the crash: offsets 0…2, the transaction open, whatever the live map says now', () => {
  // Now: 0 committed, 1 COMMIT, 2 aborted, 3 ABORT, 4…7 — one bucket an offset.
  const live = [
    { from: 0, to: 1, committed: 1 }, { from: 1, to: 2, commitMarkers: 1 }, { from: 2, to: 3, aborted: 1 }, { from: 3, to: 4, abortMarkers: 1 },
    { from: 4, to: 5, committed: 1 }, { from: 5, to: 6, commitMarkers: 1 }, { from: 6, to: 7, committed: 1 }, { from: 7, to: 8, commitMarkers: 1 },
  ];
  const past = { pointers: { logStartOffset: 0, lastStableOffset: 2, highWatermark: 3 }, entries: [data(0, 'committed'), marker(1, 'COMMIT'), data(2, 'open')] };
  const b = pastBuckets(/** @type {any} */ (live), /** @type {any} */ (past), { base: 0, size: 1 });
  assert.deepEqual(b.map((x) => [x.from, x.to]), [[0, 1], [1, 2], [2, 3]], 'the moment ends at its high watermark');
  assert.equal(sum(b, 'open'), 1, 'offset 2 was open then');
  assert.equal(sum(b, 'aborted'), 0, 'its abort came later');
  assert.equal(sum(b, 'abortMarkers'), 0);
  assert.equal(sum(b, 'committed'), 1);
});

test('offsets older than the recording come from the live map, clipped to the moment', () => {
  // 1,000 plain offsets in buckets of 100; the recording begins at 950 with an open transaction.
  const live = Array.from({ length: 10 }, (_, i) => ({ from: i * 100, to: (i + 1) * 100, plain: 100 }));
  const entries = [];
  for (let o = 950; o < 960; o++) entries.push(data(o, o >= 955 ? 'open' : 'none'));
  const past = { pointers: { logStartOffset: 0, lastStableOffset: 955, highWatermark: 960 }, entries };
  const b = pastBuckets(/** @type {any} */ (live), /** @type {any} */ (past), { base: 0, size: 100 });
  assert.equal(b.length, 10);
  assert.equal(b[9].to, 960, 'the last bucket ends at the moment\'s high watermark');
  assert.equal(sum(b, 'plain'), 900 + 50 + 5, 'nine live buckets, half of the tenth, five recorded');
  assert.equal(sum(b, 'open'), 5);
});

test('no pointers, nothing written: no buckets', () => {
  assert.deepEqual(pastBuckets([], { pointers: null, entries: [] }, { base: 0, size: 0 }), []);
  assert.deepEqual(pastBuckets([], /** @type {any} */ ({ pointers: { logStartOffset: 5, highWatermark: 5 }, entries: [] }), { base: 0, size: 0 }), []);
});

test('without a live map yet, the recording alone, on a grid of its own', () => {
  const past = { pointers: { logStartOffset: 0, highWatermark: 2 }, entries: [data(0, 'open'), data(1, 'open')] };
  const b = pastBuckets([], /** @type {any} */ (past), { base: 0, size: 0 });
  assert.equal(sum(b, 'open'), 2);
});
