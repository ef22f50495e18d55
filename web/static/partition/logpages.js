// logpages.js: loading the entries of the rows on screen, a page
// (cache.js's PAGE offsets) at a time, at most MAX_INFLIGHT requests at
// once; a page whose request failed waits RETRY_MS before it is asked
// again. During a replay a page only fills what the recording lacks.
// The view (logview.js) owns one PageLoader and hands it only what it
// reads: the cache, the partition's start, the view's generation, whether
// it replays, and where to send a page, an error and a redraw.

import { api } from '../common/api.js';
import { PAGE } from './cache.js';

const MAX_INFLIGHT = 3;
const RETRY_MS = 2000;

/**
 * readWindow reads [from, from+limit) of a partition in as many …/log
 * answers as the server's byte budget takes: an answer that stopped early
 * says truncated, and next is where to read on.
 * @param {string} url the partition's …/log address
 * @param {number} from
 * @param {number} limit
 * @param {AbortSignal} signal
 * @returns {Promise<import('../types/wire.js').Log>}
 */
export async function readWindow(url, from, limit, signal) {
  /** @type {import('../types/wire.js').Log} */
  const log = await api('GET', `${url}?from=${from}&limit=${limit}`, undefined, signal);
  const end = from + limit;
  for (let last = log, at = from; last.truncated && last.next > at && last.next < end;) {
    at = last.next;
    last = await api('GET', `${url}?from=${at}&limit=${end - at}`, undefined, signal);
    log.entries.push(...last.entries);
  }
  return log;
}

/**
 * @typedef {object} PageDeps what a PageLoader reads of the view and tells it
 * @property {() => import('./cache.js').EntryCache} cache the cache pages fill (a replay swaps it)
 * @property {() => number} start the partition's log start offset
 * @property {() => number} gen the view's generation: an answer for an older one is dropped
 * @property {() => boolean} replaying whether a recording is on show (a page then only fills gaps)
 * @property {(from: number, limit: number, signal: AbortSignal) => Promise<import('../types/wire.js').Log>} read reads a window of the partition on show
 * @property {(log: import('../types/wire.js').Log) => void} onPage told of a live page once its entries are in the cache
 * @property {(err: Error) => void} onError told of a page that could not be read
 * @property {() => void} schedule asks the view for a redraw
 * @property {{ now: () => number, setTimeout: (f: () => void, ms: number) => any, clearTimeout: (id: any) => void }} [clock] the timers (the global ones unless a test gives its own)
 */

/** PageLoader asks for the pages the visible rows need and puts what comes back in the cache. */
export class PageLoader {
  /** @param {PageDeps} deps */
  constructor(deps) {
    this.deps = deps;
    this.clock = deps.clock || { now: () => Date.now(), setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (id) => clearTimeout(id) };
    /** @type {Map<number, AbortController>} the pages being read */
    this.inflight = new Map();
    /** @type {Map<number, number>} when each page's last read failed */
    this.failed = new Map();
    /** @type {any} the pending load */
    this.loadTimer = 0;
  }

  /** abort drops every page being read. */
  abort() {
    for (const c of this.inflight.values()) c.abort();
    this.inflight.clear();
  }

  /** forgetFailures lets a page that failed be asked again at once. */
  forgetFailures() {
    this.failed.clear();
  }

  /**
   * want keeps the pages the visible rows cover in the cache (evicting the
   * others) and loads those not complete or stale.
   * @param {{page: number, from: number, to: number}[]} pages loggeometry.js's pageRange
   */
  want(pages) {
    if (!pages.length) return;
    const cache = this.deps.cache();
    const keep = new Set();
    const need = [];
    for (const { page: p, from, to } of pages) {
      keep.add(p);
      cache.touch(p);
      if (!cache.complete(from, to) || cache.isStale(p)) need.push(p);
    }
    cache.evict(keep);
    this.clock.clearTimeout(this.loadTimer);
    if (need.length) this.loadTimer = this.clock.setTimeout(() => this.load(need), this.inflight.size ? 60 : 0);
  }

  /** @param {number[]} pages */
  load(pages) {
    const now = this.clock.now();
    for (const p of pages) {
      if (this.inflight.has(p) || this.inflight.size >= MAX_INFLIGHT) continue;
      const failedAt = this.failed.get(p);
      if (failedAt && now - failedAt < RETRY_MS) {
        this.clock.setTimeout(() => this.deps.schedule(), RETRY_MS);
        continue;
      }
      this.fetchPage(p);
    }
  }

  /** @param {number} p */
  async fetchPage(p) {
    const d = this.deps;
    const gen = d.gen();
    const ctrl = new AbortController();
    this.inflight.set(p, ctrl);
    const from = Math.max(p * PAGE, d.start());
    const limit = (p + 1) * PAGE - from;
    try {
      const log = await d.read(from, limit, ctrl.signal);
      if (gen !== d.gen()) return;
      this.failed.delete(p);
      const cache = d.cache();
      if (d.replaying()) {
        // The recording holds the recent tail; older offsets come from the
        // log as it is now, never over what the recording says.
        for (const e of log.entries) if (!cache.get(e.offset)) cache.put(e);
        return;
      }
      cache.fresh(p);
      for (const e of log.entries) cache.put(e);
      d.onPage(log);
    } catch (err) {
      if (err.name === 'AbortError' || gen !== d.gen()) return;
      this.failed.set(p, this.clock.now());
      d.onError(err);
    } finally {
      if (this.inflight.get(p) === ctrl) this.inflight.delete(p);
      if (gen === d.gen()) d.schedule();
    }
  }
}
