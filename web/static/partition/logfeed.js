// logfeed.js: what the log view is told. The live stream's snapshot,
// entries, pointers and groups; a clean-up that needs the known offsets
// again; the offsets an action wrote (shown once they arrive, with the
// copies they repeat); our producer's retries; the story's marks; and a
// replay, during which the live state waits in a stash while the view
// shows the recorded past. Mixed into LogView (logview.js): `this` is
// the view.

import { EntryCache } from './cache.js';
import { copyOf } from './cells.js';

/** maxEpochLookBack bounds how far back epochRise looks for a marker's records. */
const maxEpochLookBack = 1000;

/** logFeed takes in the live stream, the actions' offsets and the replay. */
/** @satisfies {ThisType<import('./logview.js').LogView>} */
export const logFeed = {
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
    this.pages.forgetFailures();
    if (msg.pointers) this.pointers = { ...msg.pointers };
    this.groups = msg.groups || [];
    for (const e of msg.entries || []) this.cache.put(e);
    this.afterGrowth();
  },

  applyEntries(entries) {
    if (this.replaying) {
      for (const e of entries) this.stash.cache.put(e);
      return;
    }
    const changed = [];
    for (const e of entries) if (this.cache.put(e)) changed.push(e.offset);
    this.afterGrowth();
    this.render();
    this.flash(changed);
  },

  applyPointers(p) {
    const live = this.replaying ? this.stash : this;
    const old = live.pointers;
    live.pointers = { ...p };
    if (old) {
      if (p.lastStableOffset > old.lastStableOffset) live.cache.markStale(old.lastStableOffset, p.lastStableOffset);
      if (p.logStartOffset > old.logStartOffset) live.cache.markStale(old.logStartOffset, p.logStartOffset);
    }
    if (!this.replaying) this.afterGrowth();
  },

  /**
   * cleaned refetches every known offset: the log cleaner removed records
   * below the LSO, which the live stream (the log's tail) never carries.
   */
  cleaned() {
    const live = this.replaying ? this.stash : this;
    if (!live.pointers) return;
    live.cache.markStale(live.pointers.logStartOffset, live.pointers.highWatermark);
    if (!this.replaying) this.schedule();
  },

  applyGroups(groups) {
    if (this.replaying) {
      this.stash.groups = groups || [];
      return;
    }
    this.groups = groups || [];
    this.schedule();
  },

  /**
   * expect shows the offsets an action just wrote once they arrive (with
   * the earlier copies they repeat); meanwhile, and without offsets, the
   * view follows the end of the log.
   */
  expect(offsets) {
    const list = (offsets || []).filter(Number.isFinite);
    this.wanted = list.length ? list : null;
    if (this.replaying) return;
    this.setFollow(true);
    this.tryReveal();
  },

  tryReveal() {
    if (!this.wanted || !this.pointers || this.replaying) return;
    const hi = Math.max(...this.wanted);
    if (this.hw <= hi || !this.cache.get(hi)) return;
    const copies = this.wanted.map((o) => this.copyOf(o)?.of).filter(Number.isFinite);
    const list = [...this.wanted, ...copies];
    this.wanted = null;
    this.reveal(list);
  },

  /** noteRetry marks offset as our producer's retry of the send stored at of. */
  noteRetry(offset, of) {
    if (!Number.isFinite(offset) || !Number.isFinite(of)) return;
    this.retryOf.set(offset, of);
    this.schedule();
  },

  /** copyOf is what offset repeats, if anything: {kind: 'retry'|'same', of}. */
  copyOf(offset) {
    return copyOf(this.cache.get(offset), this.retryOf);
  },

  /**
   * epochRise says, for a marker, the epoch of its producer's last record
   * before it and the marker's own when the marker's is higher ({from,
   * to}), else null: with transaction version 2 every COMMIT and ABORT
   * carries a raised epoch, and so does a fence's ABORT. Only the cells the
   * page holds are looked at.
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
  },

  /** mark outlines the cells of offsets (the story's chosen entry); none clears it. */
  mark(offsets) {
    this.marked = new Set(offsets || []);
    this.schedule();
  },

  /** showPast shows a recorded state: entries, pointers and groups as they were. */
  showPast(past) {
    if (!this.replaying) {
      this.stash = { cache: this.cache, pointers: this.pointers, groups: this.groups };
      this.replaying = true;
      this.cache = new EntryCache(60);
      this.pages.abort();
    }
    this.cache.clear();
    for (const e of past.entries) this.cache.put(e);
    this.pointers = past.pointers ? { ...past.pointers } : null;
    this.groups = past.groups || [];
    this.pointerSummary.redo();
    this.follow = true;
    this.updateFollow();
    this.layoutIfNeeded();
    this.scrollY = this.followY();
    if (past.changed && past.changed.length) {
      this.render();
      this.reveal(past.changed);
    }
    if (this.selected !== null) this.opts.onDetails(this.selected, this.cache.get(this.selected));
    this.schedule();
  },

  /** showLive leaves the replay: the live state comes back. */
  showLive() {
    if (!this.replaying) return;
    const s = this.stash;
    this.cache = s.cache;
    this.pointers = s.pointers;
    this.groups = s.groups;
    this.stash = null;
    this.replaying = false;
    this.pointerSummary.redo();
    this.gen++;
    this.setFollow(true);
    if (this.selected !== null) this.opts.onDetails(this.selected, this.cache.get(this.selected));
    this.schedule();
  },
};
