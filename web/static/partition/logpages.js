// logpages.js: loading the entries of the rows on screen, a page
// (cache.js's PAGE offsets) at a time, at most MAX_INFLIGHT requests at
// once; a page whose request failed waits RETRY_MS before it is asked
// again. During a replay a page only fills what the recording lacks.
// Mixed into LogView (logview.js): `this` is the view.

import { api, apiPartition } from '../common/api.js';
import { PAGE } from './cache.js';
import * as geometry from './loggeometry.js';

const MAX_INFLIGHT = 3;
const RETRY_MS = 2000;

// readWindow reads [from, from+limit) of a partition in as many …/log
// answers as the server's byte budget takes: an answer that stopped early
// says truncated, and next is where to read on.
async function readWindow(url, from, limit, signal) {
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

/** logPages asks for the pages the visible rows need and puts what comes back in the cache. */
/** @satisfies {ThisType<import('./logview.js').LogView>} */
export const logPages = {
  requestPages(r0, r1) {
    const pages = geometry.pageRange(this, r0, r1, PAGE);
    if (!pages.length) return;
    const keep = new Set();
    const need = [];
    for (const { page: p, from, to } of pages) {
      keep.add(p);
      this.cache.touch(p);
      if (!this.cache.complete(from, to) || this.cache.isStale(p)) need.push(p);
    }
    this.cache.evict(keep);
    clearTimeout(this.loadTimer);
    if (need.length) this.loadTimer = setTimeout(() => this.load(need), this.inflight.size ? 60 : 0);
  },

  load(pages) {
    const now = Date.now();
    for (const p of pages) {
      if (this.inflight.has(p) || this.inflight.size >= MAX_INFLIGHT) continue;
      const failedAt = this.failed.get(p);
      if (failedAt && now - failedAt < RETRY_MS) {
        setTimeout(() => this.schedule(), RETRY_MS);
        continue;
      }
      this.fetchPage(p);
    }
  },

  async fetchPage(p) {
    const gen = this.gen;
    const ctrl = new AbortController();
    this.inflight.set(p, ctrl);
    const from = Math.max(p * PAGE, this.start);
    const limit = (p + 1) * PAGE - from;
    try {
      const log = await readWindow(`${apiPartition(this.topic, this.partition)}/log`, from, limit, ctrl.signal);
      if (gen !== this.gen) return;
      this.failed.delete(p);
      if (this.replaying) {
        // The recording holds the recent tail; older offsets come from the
        // log as it is now, never over what the recording says.
        for (const e of log.entries) if (!this.cache.get(e.offset)) this.cache.put(e);
        return;
      }
      this.cache.fresh(p);
      if (this.pointers) {
        this.pointers = {
          logStartOffset: Math.max(this.pointers.logStartOffset, log.logStartOffset),
          lastStableOffset: Math.max(this.pointers.lastStableOffset, log.lastStableOffset),
          highWatermark: Math.max(this.pointers.highWatermark, log.highWatermark),
        };
      }
      for (const e of log.entries) this.cache.put(e);
      if (this.selected !== null) this.opts.onDetails(this.selected, this.cache.get(this.selected));
    } catch (err) {
      if (err.name === 'AbortError' || gen !== this.gen) return;
      this.failed.set(p, Date.now());
      this.opts.onError(err);
    } finally {
      if (this.inflight.get(p) === ctrl) this.inflight.delete(p);
      if (gen === this.gen) this.schedule();
    }
  },
};
