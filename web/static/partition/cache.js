// cache.js: the offsets the page knows, in pages of PAGE offsets, bounded
// by a least-recently-used page limit so that memory follows the window
// on screen, not the size of the partition.

export const PAGE = 200;

/**
 * merge decides which of two descriptions of one offset to keep. Entries
 * arrive from two sources (page fetches and the live stream) in any order;
 * an offset's state only moves forward (open -> committed/aborted, not yet
 * visible -> visible to read_committed), so a stale answer never undoes a
 * newer one.
 * @param {import('../types/wire.js').Entry|undefined} old
 * @param {import('../types/wire.js').Entry} next
 * @returns {import('../types/wire.js').Entry}
 */
export function merge(old, next) {
  if (!old || old.kind !== next.kind) return next;
  if (old.kind === 'data' && old.txn !== 'open' && next.txn === 'open') return old;
  if (old.readCommitted && !next.readCommitted && old.txn === next.txn) return { ...next, readCommitted: true };
  return next;
}

function same(a, b) {
  return a.kind === b.kind && a.txn === b.txn && a.marker === b.marker &&
    a.readCommitted === b.readCommitted && a.readUncommitted === b.readUncommitted;
}

export class EntryCache {
  /**
   * @param {number} [maxPages] how many pages of entries it keeps
   */
  constructor(maxPages = 60) {
    this.maxPages = maxPages;
    /** @type {Map<number, Map<number, import('../types/wire.js').Entry>>} page index -> offset -> entry, oldest use first */
    this.pages = new Map();
    /** @type {Set<number>} pages whose entries may be out of date and are refetched when on screen */
    this.stale = new Set();
  }

  clear() {
    this.pages.clear();
    this.stale.clear();
  }

  /**
   * markStale flags the known pages overlapping [from, to) for refetching:
   * the live stream only carries the log's tail, so when the LSO or the log
   * start moves, cells further back may have changed (open -> committed,
   * record -> gap). Their entries stay shown until the new answer arrives.
   */
  markStale(from, to) {
    for (let i = Math.floor(from / PAGE); i * PAGE < to; i++) {
      if (this.pages.has(i)) this.stale.add(i);
    }
  }

  isStale(index) {
    return this.stale.has(index);
  }

  fresh(index) {
    this.stale.delete(index);
  }

  get(offset) {
    const page = this.pages.get(Math.floor(offset / PAGE));
    return page ? page.get(offset) : undefined;
  }

  /** touch marks a page as recently used. */
  touch(index) {
    const page = this.pages.get(index);
    if (page) {
      this.pages.delete(index);
      this.pages.set(index, page);
    }
  }

  /** put stores an entry and reports whether what it shows changed. */
  put(entry) {
    const index = Math.floor(entry.offset / PAGE);
    let page = this.pages.get(index);
    if (!page) {
      page = new Map();
      this.pages.set(index, page);
    }
    const old = page.get(entry.offset);
    const kept = merge(old, entry);
    page.set(entry.offset, kept);
    return !old || !same(old, kept);
  }

  /** complete reports whether every offset of [from, to) is known. */
  complete(from, to) {
    for (let o = from; o < to; o++) {
      if (this.get(o) === undefined) return false;
    }
    return true;
  }

  /** evict drops the least recently used pages beyond the limit, never those in keep. */
  evict(keep) {
    if (this.pages.size <= this.maxPages) return;
    for (const index of this.pages.keys()) {
      if (this.pages.size <= this.maxPages) break;
      if (!keep.has(index)) this.pages.delete(index);
    }
  }
}
