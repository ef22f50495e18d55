// @ts-check
// cache.test.js: the log view's entry cache — an offset's state only moves
// forward whatever order the page fetches and the live stream arrive in,
// and memory follows the pages in use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EntryCache, PAGE, merge } from '../partition/cache.js';

/** @type {(...args: any[]) => any} a partial entry: only what the rule reads */
const data = (offset, txn, extra = {}) => ({ offset, kind: 'data', txn, readCommitted: txn !== 'open' && txn !== 'aborted', readUncommitted: true, ...extra });

test('merge keeps the newer state of an offset', () => {
  const tests = [
    { name: 'nothing known: the answer', old: undefined, next: data(1, 'open'), want: data(1, 'open') },
    { name: 'open then committed', old: data(1, 'open'), next: data(1, 'committed'), want: data(1, 'committed') },
    { name: 'a stale open never undoes a commit', old: data(1, 'committed'), next: data(1, 'open'), want: data(1, 'committed') },
    { name: 'a stale open never undoes an abort', old: data(1, 'aborted'), next: data(1, 'open'), want: data(1, 'aborted') },
    { name: 'another kind replaces (record became a gap)', old: data(1, 'none'), next: { offset: 1, kind: 'gap' }, want: { offset: 1, kind: 'gap' } },
    {
      name: 'visible to read_committed stays visible',
      old: data(1, 'committed', { readCommitted: true }),
      next: data(1, 'committed', { readCommitted: false }),
      want: data(1, 'committed', { readCommitted: true }),
    },
  ];
  for (const tt of tests) assert.deepEqual(merge(tt.old, tt.next), tt.want, tt.name);
});

test('put reports whether what an offset shows changed', () => {
  const c = new EntryCache();
  assert.equal(c.put(data(5, 'open')), true, 'a new offset');
  assert.equal(c.put(data(5, 'open')), false, 'the same again');
  assert.equal(c.put(data(5, 'committed')), true, 'resolved');
  assert.equal(c.put(data(5, 'open')), false, 'a stale answer');
  assert.equal(c.get(5).txn, 'committed');
  assert.equal(c.get(6), undefined);
});

test('complete knows whether every offset of a range is cached', () => {
  const c = new EntryCache();
  for (let o = 10; o < 20; o++) c.put(data(o, 'none'));
  assert.equal(c.complete(10, 20), true);
  assert.equal(c.complete(9, 20), false);
  assert.equal(c.complete(10, 21), false);
  assert.equal(c.complete(15, 15), true, 'an empty range');
});

test('evict drops the least recently used pages beyond the limit, never the kept ones', () => {
  const c = new EntryCache(3);
  for (let page = 0; page < 5; page++) c.put(data(page * PAGE, 'none'));
  c.touch(0); // page 0 used last: 1 and 2 are the oldest now
  c.evict(new Set([1]));
  assert.deepEqual([...c.pages.keys()].sort(), [0, 1, 4].sort((a, b) => a - b));
  assert.ok(c.get(PAGE), 'kept page 1 survives');
  assert.equal(c.get(2 * PAGE), undefined, 'page 2 evicted');
});

test('markStale flags only the known pages a range overlaps', () => {
  const c = new EntryCache();
  c.put(data(0, 'open'));
  c.put(data(2 * PAGE, 'open'));
  c.markStale(0, 3 * PAGE);
  assert.equal(c.isStale(0), true);
  assert.equal(c.isStale(1), false, 'page 1 was never fetched');
  assert.equal(c.isStale(2), true);
  c.fresh(2);
  assert.equal(c.isStale(2), false);
  c.markStale(PAGE, PAGE + 1);
  assert.equal(c.isStale(1), false);
});
