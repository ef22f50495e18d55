// @ts-check
// logpages.test.js: the log view's page loader alone — which pages it
// asks for, how a failed page waits before it is asked again, how a
// replay's recording is never overwritten, and how an answer for an older
// view is dropped — with a fake reader and fake timers, no DOM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EntryCache, PAGE } from '../partition/cache.js';
import { PageLoader } from '../partition/logpages.js';

/** @type {(offset: number, txn?: string) => any} a partial entry: only what the cache reads */
const data = (offset, txn = 'none') => ({ offset, kind: 'data', txn, readCommitted: true, readUncommitted: true });

/** fakeClock runs timers only when told: run() fires those due by then. */
function fakeClock() {
  let now = 1000;
  /** @type {{at: number, f: () => void, id: number}[]} */
  let timers = [];
  let next = 1;
  return {
    now: () => now,
    setTimeout: (/** @type {() => void} */ f, /** @type {number} */ ms) => {
      const id = next++;
      timers.push({ at: now + ms, f, id });
      return id;
    },
    clearTimeout: (/** @type {any} */ id) => { timers = timers.filter((t) => t.id !== id); },
    pending: () => timers.length,
    /** @param {number} ms */
    advance(ms) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.f();
    },
  };
}

/** settle lets the loader's awaited reads finish. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * harness is a PageLoader over a fake partition [start, hw) whose reads
 * answer from `answer` (or throw what it returns).
 * @param {{start?: number, hw?: number, replaying?: boolean, fail?: (from: number) => Error|null}} [o]
 */
function harness(o = {}) {
  const state = { cache: new EntryCache(60), gen: 0, replaying: !!o.replaying, start: o.start ?? 0 };
  const hw = o.hw ?? 3 * PAGE;
  const clock = fakeClock();
  /** @type {{from: number, limit: number}[]} */
  const reads = [];
  /** @type {any[]} */
  const pages = [];
  /** @type {Error[]} */
  const errors = [];
  let schedules = 0;
  const loader = new PageLoader({
    cache: () => state.cache,
    start: () => state.start,
    gen: () => state.gen,
    replaying: () => state.replaying,
    read: async (from, limit, signal) => {
      reads.push({ from, limit });
      await Promise.resolve();
      if (signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      const err = o.fail ? o.fail(from) : null;
      if (err) throw err;
      const entries = [];
      for (let off = from; off < Math.min(from + limit, hw); off++) entries.push(data(off, 'committed'));
      return { topic: 't', partition: 0, entries, logStartOffset: state.start, lastStableOffset: hw, highWatermark: hw, truncated: false, next: 0 };
    },
    onPage: (log) => pages.push(log),
    onError: (err) => errors.push(err),
    schedule: () => { schedules++; },
    clock,
  });
  return { loader, state, clock, reads, pages, errors, schedules: () => schedules };
}

/** @param {number[]} ps */
const want = (ps) => ps.map((page) => ({ page, from: page * PAGE, to: (page + 1) * PAGE }));

test('want reads only the pages the cache lacks, from the log start', async () => {
  const tests = [
    { name: 'nothing cached: every page', start: 0, known: [], pages: [0, 1], wantReads: [{ from: 0, limit: PAGE }, { from: PAGE, limit: PAGE }] },
    { name: 'a complete page is not read again', start: 0, known: [0], pages: [0, 1], wantReads: [{ from: PAGE, limit: PAGE }] },
    { name: 'a page cut by the log start is read from it', start: 10, known: [], pages: [0], wantReads: [{ from: 10, limit: PAGE - 10 }] },
  ];
  for (const tt of tests) {
    const h = harness({ start: tt.start });
    for (const p of tt.known) {
      for (let off = p * PAGE; off < (p + 1) * PAGE; off++) h.state.cache.put(data(off));
      h.state.cache.fresh(p);
    }
    h.loader.want(want(tt.pages).map((w) => ({ ...w, from: Math.max(w.from, tt.start) })));
    h.clock.advance(0);
    await settle();
    assert.deepEqual(h.reads, tt.wantReads, tt.name);
  }
});

test('a live page fills the cache, then tells the view', async () => {
  const h = harness();
  h.loader.want(want([1]));
  h.clock.advance(0);
  await settle();
  assert.equal(h.pages.length, 1);
  assert.ok(h.state.cache.complete(PAGE, 2 * PAGE), 'the page is in the cache');
  assert.equal(h.loader.inflight.size, 0, 'nothing left in flight');
  assert.ok(h.schedules() > 0, 'the view is asked to redraw');
});

test('at most three pages are read at once', async () => {
  const h = harness({ hw: 10 * PAGE });
  h.loader.want(want([0, 1, 2, 3, 4]));
  h.clock.advance(0);
  assert.equal(h.loader.inflight.size, 3);
  await settle();
  assert.equal(h.reads.length, 3);
});

test('a failed page waits before it is asked again', async () => {
  let failing = true;
  const h = harness({ fail: () => (failing ? new Error('down') : null) });
  h.loader.want(want([0]));
  h.clock.advance(0);
  await settle();
  assert.equal(h.errors.length, 1, 'the failure is told');
  assert.equal(h.reads.length, 1);

  failing = false;
  h.loader.load([0]); // asked again at once: it waits
  await settle();
  assert.equal(h.reads.length, 1, 'not read again before the wait');
  const before = h.schedules();
  h.clock.advance(2000);
  assert.equal(h.schedules(), before + 1, 'the view redraws when the wait is over');
  h.loader.load([0]);
  await settle();
  assert.equal(h.reads.length, 2, 'read again after the wait');
  assert.equal(h.pages.length, 1);

  h.loader.forgetFailures();
  assert.equal(h.loader.failed.size, 0);
});

test('during a replay a page fills only what the recording lacks', async () => {
  const h = harness({ replaying: true });
  h.state.cache.put(data(3, 'open')); // the recording says offset 3 was open
  h.loader.want(want([0]));
  h.clock.advance(0);
  await settle();
  assert.equal(h.state.cache.get(3)?.txn, 'open', 'the recording wins');
  assert.equal(h.state.cache.get(4)?.txn, 'committed', 'a gap is filled from the log');
  assert.equal(h.pages.length, 0, 'the live view is not told');
});

test('an answer for an older view, or an aborted read, is dropped', async () => {
  const tests = [
    { name: 'the view moved on', act: (/** @type {ReturnType<typeof harness>} */ h) => { h.state.gen++; } },
    { name: 'the reads were aborted', act: (/** @type {ReturnType<typeof harness>} */ h) => h.loader.abort() },
  ];
  for (const tt of tests) {
    const h = harness({ fail: () => new Error('late') });
    h.loader.want(want([0]));
    h.clock.advance(0);
    tt.act(h);
    await settle();
    assert.equal(h.errors.length, 0, tt.name + ': no error told');
    assert.equal(h.pages.length, 0, tt.name + ': no page told');
    assert.equal(h.loader.inflight.size, 0, tt.name + ': nothing in flight');
  }
});
