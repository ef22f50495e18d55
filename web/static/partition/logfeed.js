// logfeed.js: what the log view is told. The live stream's snapshot,
// entries, pointers and groups; a clean-up that needs the known offsets
// again; the offsets an action wrote (shown once they arrive, with the
// copies they repeat); our producer's retries; the story's marks; and a
// replay, during which the live state waits in a stash while the view
// shows the recorded past. A LogFeed holds what the view shows (the
// entries, pointers and groups, live or replayed) and is handed the page
// loader and what to call when the view must move or draw; it touches no
// DOM (node --test web/static/test/logfeed.test.js).

import { EntryCache } from './cache.js';
import { copyOf } from './cells.js';

/** maxEpochLookBack bounds how far back epochRise looks for a marker's records. */
const maxEpochLookBack = 1000;

/**
 * @typedef {{group: string, committed: number}} GroupOffset a group's committed offset
 */

/**
 * @typedef {object} Shown what the view shows: live, or waiting in the stash during a replay
 * @property {EntryCache} cache
 * @property {import('../types/wire.js').Pointers|null} pointers
 * @property {GroupOffset[]} groups
 */

/**
 * @typedef {object} FeedHooks what a LogFeed calls on the view and its page loader
 * @property {{abort: () => void, forgetFailures: () => void}} pages the page loader (logpages.js)
 * @property {() => void} grown the log or its pointers changed: the view goes back on its place and draws
 * @property {(changed: number[]) => void} drawNow entries arrived: the view draws now and flashes the changed offsets
 * @property {() => void} schedule the view draws at the next frame
 * @property {() => void} followEnd the view follows the end of the log
 * @property {(offsets: number[]) => void} reveal the view shows the offsets and flashes them
 */

/** LogFeed takes in the live stream, the actions' offsets and the replay. */
export class LogFeed {
  /** @param {FeedHooks} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    this.cache = new EntryCache(60);
    /** @type {import('../types/wire.js').Pointers|null} */
    this.pointers = null;
    /** @type {GroupOffset[]} */
    this.groups = [];
    // marked are the offsets the story's chosen entry points at; retryOf
    // maps a retried send's offset to the one whose ACK was lost.
    /** @type {Set<number>} */
    this.marked = new Set();
    /** @type {Map<number, number>} */
    this.retryOf = new Map();
    // While replaying, the live state waits in stash and the view shows
    // the recorded past (replay.js).
    this.replaying = false;
    /** @type {Shown|null} */
    this.stash = null;
    /** @type {number[]|null} the offsets an action wrote, until they arrive */
    this.wanted = null;
  }

  /** start is the log start offset (0 without pointers). */
  get start() { return this.pointers ? this.pointers.logStartOffset : 0; }

  /** hw is the high watermark (0 without pointers). */
  get hw() { return this.pointers ? this.pointers.highWatermark : 0; }

  /** reset forgets everything shown, waited for and marked (a new partition). */
  reset() {
    this.cache.clear();
    this.marked.clear();
    this.retryOf.clear();
    this.wanted = null;
    this.replaying = false;
    this.stash = null;
    this.pointers = null;
    this.groups = [];
  }

  /** live is the live state: this feed, or the stash during a replay. */
  live() {
    return this.replaying ? this.stash : this;
  }

  /** applySnapshot takes the stream's whole state in: the entries, pointers and groups it carries replace those known. */
  applySnapshot(msg) {
    if (this.replaying) {
      const s = this.stash;
      s.cache.clear();
      if (msg.pointers) s.pointers = { ...msg.pointers };
      s.groups = msg.groups || [];
      for (const e of msg.entries || []) s.cache.put(e);
      return;
    }
    this.cache.clear();
    this.hooks.pages.forgetFailures();
    if (msg.pointers) this.pointers = { ...msg.pointers };
    this.groups = msg.groups || [];
    for (const e of msg.entries || []) this.cache.put(e);
    this.hooks.grown();
  }

  /** applyEntries takes new or changed entries in; the view draws at once and flashes those that changed. */
  applyEntries(entries) {
    if (this.replaying) {
      for (const e of entries) this.stash.cache.put(e);
      return;
    }
    const changed = [];
    for (const e of entries) if (this.cache.put(e)) changed.push(e.offset);
    this.hooks.grown();
    this.hooks.drawNow(changed);
  }

  /** applyPointers takes new pointers in; the offsets a rising LSO or log start passed are read again. */
  applyPointers(p) {
    const live = this.live();
    const old = live.pointers;
    live.pointers = { ...p };
    if (old) {
      if (p.lastStableOffset > old.lastStableOffset) live.cache.markStale(old.lastStableOffset, p.lastStableOffset);
      if (p.logStartOffset > old.logStartOffset) live.cache.markStale(old.logStartOffset, p.logStartOffset);
    }
    if (!this.replaying) this.hooks.grown();
  }

  /**
   * takePage moves the pointers on to what a page read from the log says
   * (never back).
   * @param {import('../types/wire.js').Log} log
   */
  takePage(log) {
    if (!this.pointers) return;
    this.pointers = {
      logStartOffset: Math.max(this.pointers.logStartOffset, log.logStartOffset),
      lastStableOffset: Math.max(this.pointers.lastStableOffset, log.lastStableOffset),
      highWatermark: Math.max(this.pointers.highWatermark, log.highWatermark),
    };
  }

  /**
   * cleaned refetches every known offset: the log cleaner removed records
   * below the LSO, which the live stream (the log's tail) never carries.
   */
  cleaned() {
    const live = this.live();
    if (!live.pointers) return;
    live.cache.markStale(live.pointers.logStartOffset, live.pointers.highWatermark);
    if (!this.replaying) this.hooks.schedule();
  }

  /** applyGroups takes the groups' committed offsets in. */
  applyGroups(groups) {
    if (this.replaying) {
      this.stash.groups = groups || [];
      return;
    }
    this.groups = groups || [];
    this.hooks.schedule();
  }

  /**
   * expect shows the offsets an action just wrote once they arrive (with
   * the earlier copies they repeat); meanwhile, and without offsets, the
   * view follows the end of the log.
   * @param {number[]|null|undefined} offsets
   */
  expect(offsets) {
    const list = (offsets || []).filter(Number.isFinite);
    this.wanted = list.length ? list : null;
    if (this.replaying) return;
    this.hooks.followEnd();
    this.tryReveal();
  }

  /** tryReveal reveals the offsets expected once the last of them arrived. */
  tryReveal() {
    if (!this.wanted || !this.pointers || this.replaying) return;
    const hi = Math.max(...this.wanted);
    if (this.hw <= hi || !this.cache.get(hi)) return;
    const copies = this.wanted.map((o) => this.copyOf(o)?.of).filter(Number.isFinite);
    const list = [...this.wanted, ...copies];
    this.wanted = null;
    this.hooks.reveal(list);
  }

  /** noteRetry marks offset as our producer's retry of the send stored at of. */
  noteRetry(offset, of) {
    if (!Number.isFinite(offset) || !Number.isFinite(of)) return;
    this.retryOf.set(offset, of);
    this.hooks.schedule();
  }

  /**
   * copyOf is what offset repeats, if anything: {kind: 'retry'|'same', of}.
   * @param {number} offset
   */
  copyOf(offset) {
    return copyOf(this.cache.get(offset), this.retryOf);
  }

  /**
   * epochRise says, for a marker, the epoch of its producer's last record
   * before it and the marker's own when the marker's is higher ({from,
   * to}), else null: with transaction version 2 every COMMIT and ABORT
   * carries a raised epoch, and so does a fence's ABORT. Only the cells the
   * page holds are looked at.
   * @param {number} offset
   */
  epochRise(offset) {
    const m = this.cache.get(offset);
    if (!m || m.kind !== 'control') return null;
    for (let o = offset - 1; o >= Math.max(0, offset - maxEpochLookBack); o--) {
      const e = this.cache.get(o);
      if (!e || e.kind !== 'data' || String(e.producerId) !== String(m.producerId)) continue;
      return e.producerEpoch < m.producerEpoch ? { from: e.producerEpoch, to: m.producerEpoch } : null;
    }
    return null;
  }

  /**
   * mark outlines the cells of offsets (the story's chosen entry); none clears it.
   * @param {number[]|null|undefined} offsets
   */
  mark(offsets) {
    this.marked = new Set(offsets || []);
    this.hooks.schedule();
  }

  /**
   * showPast takes a recorded state in: entries, pointers and groups as
   * they were. The first one puts the live state in the stash.
   */
  showPast(past) {
    if (!this.replaying) {
      this.stash = { cache: this.cache, pointers: this.pointers, groups: this.groups };
      this.replaying = true;
      this.cache = new EntryCache(60);
      this.hooks.pages.abort();
    }
    this.cache.clear();
    for (const e of past.entries) this.cache.put(e);
    this.pointers = past.pointers ? { ...past.pointers } : null;
    this.groups = past.groups || [];
  }

  /** showLive brings the live state back from the stash; false when not replaying. */
  showLive() {
    if (!this.replaying) return false;
    const s = this.stash;
    this.cache = s.cache;
    this.pointers = s.pointers;
    this.groups = s.groups;
    this.stash = null;
    this.replaying = false;
    return true;
  }
}
