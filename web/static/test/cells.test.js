// @ts-check
// cells.test.js: which consumer lane receives an offset, and why not —
// the offset model the page teaches — and which records repeat others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyOf, laneReason } from '../partition/cells.js';

// A partition: log start 0, an open transaction holds the LSO at 5, HW 8.
const pointers = { logStartOffset: 0, lastStableOffset: 5, highWatermark: 8 };
/** @type {(...args: any[]) => any} a partial entry: only what the rule reads */
const data = (offset, txn, readCommitted, readUncommitted = true) => ({ offset, kind: 'data', txn, readCommitted, readUncommitted });

test('each lane receives what a consumer at its isolation level would, and says why not', () => {
  /** @type {any[]} */
  const tests = [
    { name: 'not loaded yet', e: undefined, rc: 'loading', ru: 'loading' },
    { name: 'a COMMIT marker: no consumer receives a marker', e: { offset: 2, kind: 'control', marker: 'COMMIT' }, rc: 'marker', ru: 'marker' },
    { name: 'a gap (compacted or aborted batch removed)', e: { offset: 3, kind: 'gap' }, rc: 'gap', ru: 'gap' },
    { name: 'a committed record: both receive it', e: data(1, 'committed', true), rc: '', ru: '' },
    { name: 'an aborted record: only read_uncommitted', e: data(4, 'aborted', false), rc: 'aborted', ru: '' },
    { name: 'an open record past the LSO: read_committed waits', e: data(6, 'open', false), rc: 'beyond LSO', ru: '' },
    { name: 'at the HW: nobody yet', e: data(8, 'none', false, false), rc: 'beyond LSO', ru: 'beyond HW' },
    { name: 'below the LSO yet not delivered', e: data(4, 'open', false, false), rc: 'not delivered', ru: 'not delivered' },
  ];
  for (const tt of tests) {
    assert.equal(laneReason(tt.e, 'rc', pointers), tt.rc, `${tt.name}: read_committed`);
    assert.equal(laneReason(tt.e, 'ru', pointers), tt.ru, `${tt.name}: read_uncommitted`);
  }
});

test('a record repeats our retry first, else an earlier record with its key and value', () => {
  const retries = new Map([[7, 3], [9, 9]]);
  assert.deepEqual(copyOf(/** @type {any} */ ({ offset: 7, kind: 'data', duplicateOf: 1 }), retries), { kind: 'retry', of: 3 });
  assert.deepEqual(copyOf(/** @type {any} */ ({ offset: 5, kind: 'data', duplicateOf: 1 }), retries), { kind: 'same', of: 1 });
  assert.equal(copyOf(/** @type {any} */ ({ offset: 9, kind: 'data' }), retries), null, 'the retry itself is no copy');
  assert.equal(copyOf(/** @type {any} */ ({ offset: 2, kind: 'control', duplicateOf: 1 }), retries), null, 'a marker repeats nothing');
  assert.equal(copyOf(undefined, retries), null);
});
