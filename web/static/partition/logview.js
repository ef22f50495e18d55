// logview.js: the partition log, one cell per offset, as a virtualised grid.
//
// Offsets are laid out in rows of `cols` slots (cols follows the width).
// Only the rows inside the viewport exist in the DOM; the viewport does not
// scroll natively (a native scroll height cannot hold a million rows in
// every browser). Instead scrollY is a number kept here, moved by the
// wheel, touch, keys and the minimap, and each visible row is positioned
// with a transform. Row elements are reused while they stay visible and a
// slot is rewritten only when what it shows changed.
//
// Each slot stacks: pointer flags (log start, LSO, HW, groups' committed
// offsets) at the left edge of the offset they point at, the batch bracket,
// the cell, and the two consumer lanes (read_committed, read_uncommitted).
// The last slot is the next offset to be written (the high watermark), so
// that pointers equal to the HW have a place to point.
//
// Entries come from page fetches (GET .../log?from=&limit=) for the rows
// on screen, and from the live stream; both go through EntryCache, which
// keeps a bounded number of pages.

import { api, apiPartition, fmt } from '../common/api.js';
import { EntryCache, PAGE } from './cache.js';
import { copyOf, laneReason } from './cells.js';
import { onLanguage, t } from '../common/i18n.js';
import { alias, onProducers, producerLabel, resetProducers } from './producers.js';
import * as geometry from './loggeometry.js';
import { fillTableRow, makeTableHead, makeTableRow } from './tableview.js';
import { HeldBanner } from './lsohold.js';

const TABLE_KEY = 'offsetlab.logTable';

const MAX_INFLIGHT = 3;
const RETRY_MS = 2000;

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/** reasonText is a lane reason (an English code kept in data-reason) in the chosen language. */
function reasonText(reason) {
  return t('lane.reason.' + reason.replace(/ /g, '_'));
}

function valueText(e) {
  if (e.kind === 'control') return e.marker ? e.marker : t('cell.controlRecord');
  if (e.kind === 'gap') return t('cell.noRecord');
  if (e.value === null || e.value === undefined) return t('cell.nullValue');
  if (e.valueEncoding === 'base64') return t('cell.binary', { value: e.value });
  return e.value + (e.valueTruncated ? '…' : '');
}

/** maxEpochLookBack bounds how far back epochRise looks for a marker's records. */
const maxEpochLookBack = 1000;

/** copyText says in words what a copy repeats (the badge's tooltip and the cell's label). */
function copyText(copy) {
  return t(copy.kind === 'retry' ? 'cell.retryOfText' : 'cell.sameAsText', { offset: fmt(copy.of) });
}

/** gapKeys are the legend and screen-reader keys of a gap, by its reason (the log API's). */
const gapKeys = {
  compacted: ['legend.gapCompacted', 'cell.describeGapCompacted'],
  beforeLogStart: ['legend.gapDeleted', 'cell.describeGapDeleted'],
};
function gapKey(e, i) {
  return (gapKeys[e.reason] || ['legend.gap', 'cell.describeGap'])[i];
}

function tagText(e) {
  if (e.kind === 'control') return t('cell.marker');
  if (e.kind === 'gap') return t(gapKey(e, 0));
  switch (e.txn) {
    case 'committed': return t('legend.committed');
    case 'aborted': return t('legend.aborted');
    case 'open': return t('legend.open');
    default: return t('legend.data');
  }
}

/** describeKind says what a cell is without its value (the details print the value once, below). */
export function describeKind(e) {
  if (e.kind === 'control') return t('cell.describeMarker', { marker: e.marker || 'control', producer: producerLabel(e.producerId), epoch: e.producerEpoch });
  if (e.kind === 'gap') return t(gapKey(e, 1));
  return t({ committed: 'legend.committedSr', aborted: 'legend.abortedSr', open: 'cell.describeOpen' }[e.txn] || 'cell.describeNoTxn');
}

/** describe is a cell's sentence for screen readers. */
export function describe(e) {
  if (e.kind === 'control') return t('cell.describeMarker', { marker: e.marker || 'control', producer: producerLabel(e.producerId), epoch: e.producerEpoch });
  if (e.kind === 'gap') return t(gapKey(e, 1));
  const what = t({ committed: 'legend.committedSr', aborted: 'legend.abortedSr', open: 'cell.describeOpen' }[e.txn] || 'cell.describeNoTxn');
  return t('cell.describe', { what, value: valueText(e) });
}

// readWindow reads [from, from+limit) of a partition in as many …/log
// answers as the server's byte budget takes: an answer that stopped early
// says truncated, and next is where to read on.
async function readWindow(url, from, limit, signal) {
  const log = await api('GET', `${url}?from=${from}&limit=${limit}`, undefined, signal);
  const end = from + limit;
  for (let last = log, at = from; last.truncated && last.next > at && last.next < end;) {
    at = last.next;
    last = await api('GET', `${url}?from=${at}&limit=${end - at}`, undefined, signal);
    log.entries.push(...last.entries);
  }
  return log;
}

export class LogView {
  /**
   * @param {object} opts
   * @param {(offset: number|null, entry: object|undefined) => void} opts.onDetails
   * @param {(err: Error) => void} opts.onError
   * @param {() => void} opts.onView called when the scroll position or selection changes
   */
  constructor(opts) {
    this.opts = opts;
    this.viewport = document.getElementById('log-viewport');
    this.minimap = document.getElementById('minimap');
    this.thumb = document.getElementById('minimap-thumb');
    this.summary = document.getElementById('pointer-summary');
    this.why = document.getElementById('lso-why');
    this.held = new HeldBanner(this.why, { canWrite: document.getElementById('app')?.dataset.canWrite === 'true' });
    this.countRC = document.getElementById('lane-count-rc');
    this.countRU = document.getElementById('lane-count-ru');
    this.windowText = document.getElementById('window-text');
    this.followBtn = document.getElementById('follow-toggle');

    this.cache = new EntryCache(60);
    // marked are the offsets the story's chosen entry points at; retryOf
    // maps a retried send's offset to the one whose ACK was lost.
    this.marked = new Set();
    this.retryOf = new Map();
    // While replaying, the live state waits in stash and the view shows
    // the recorded past (replay.js).
    this.replaying = false;
    this.stash = null;
    this.wanted = null;
    this.rows = new Map();
    this.marks = [];
    this.gen = 0;
    this.cols = 0;
    this.rowH = 240;
    this.viewH = 0;
    this.scrollY = 0;
    this.follow = true;
    // at is the offset the view is anchored on while it does not follow
    // the end: the first one on show when a person scrolled there, or the
    // one the URL named. A resize, a zoom or the table toggle brings its
    // row back to the top (with the selected offset kept in view), and
    // the URL's at names it, so the view keeps its place.
    this.at = null;
    this.pointers = null;
    this.groups = [];
    this.active = null;
    this.selected = null;
    this.hovered = null;
    this.tabStop = null;
    this.inflight = new Map();
    this.failed = new Map();
    this.renderHooks = [];
    this.raf = 0;
    this.loadTimer = 0;
    this.summaryKey = '';
    this.reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
    // Table mode: one row per offset (tableview.js) under a header row.
    this.table = false;
    this.headH = 0;
    this.toldH = -1;
    this.head = makeTableHead();
    this.head.hidden = true;
    this.viewport.append(this.head);
    this.tableButton = document.getElementById('table-toggle');
    this.tableButton?.addEventListener('click', () => this.setTable(!this.table));
    let saved = null;
    try {
      saved = window.localStorage.getItem(TABLE_KEY);
    } catch {
      saved = null; // storage disabled: cells, as the page starts
    }
    if (saved === 'true') this.setTable(true);

    this.bind();
    new ResizeObserver(() => this.layout()).observe(this.viewport);
    this.watchPixelRatio();
    // A language switch redraws every row, label and sentence.
    onLanguage(() => {
      const focused = this.viewport.contains(document.activeElement);
      this.summaryKey = null;
      this.clearRows();
      this.render();
      if (focused) this.focusActive();
    });
    onProducers(() => {
      this.summaryKey = null;
      this.schedule();
    });
  }

  // ---- state from the outside -------------------------------------------

  /** reset shows a new partition (or the same one afresh). */
  reset(topic, partition, at, sel) {
    this.gen++;
    this.topic = topic;
    this.partition = partition;
    for (const c of this.inflight.values()) c.abort();
    this.inflight.clear();
    this.failed.clear();
    this.cache.clear();
    this.clearRows();
    resetProducers(topic, partition);
    this.marked.clear();
    this.retryOf.clear();
    this.wanted = null;
    this.replaying = false;
    this.stash = null;
    this.pointers = null;
    this.groups = [];
    this.scrollY = 0;
    this.follow = at === undefined || at === null;
    this.at = at ?? null;
    this.pendingAt = at ?? null;
    this.placedStart = undefined; // the log start the view was placed over
    this.active = sel ?? at ?? null;
    this.selected = sel ?? null;
    this.hovered = null;
    this.summaryKey = '';
    this.updateFollow();
    this.schedule();
    this.opts.onDetails(this.selected, undefined);
  }

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
    this.failed.clear();
    if (msg.pointers) this.pointers = { ...msg.pointers };
    this.groups = msg.groups || [];
    for (const e of msg.entries || []) this.cache.put(e);
    this.afterGrowth();
  }

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
  }

  applyPointers(p) {
    const live = this.replaying ? this.stash : this;
    const old = live.pointers;
    live.pointers = { ...p };
    if (old) {
      if (p.lastStableOffset > old.lastStableOffset) live.cache.markStale(old.lastStableOffset, p.lastStableOffset);
      if (p.logStartOffset > old.logStartOffset) live.cache.markStale(old.logStartOffset, p.logStartOffset);
    }
    if (!this.replaying) this.afterGrowth();
  }

  /**
   * cleaned refetches every known offset: the log cleaner removed records
   * below the LSO, which the live stream (the log's tail) never carries.
   */
  cleaned() {
    const live = this.replaying ? this.stash : this;
    if (!live.pointers) return;
    live.cache.markStale(live.pointers.logStartOffset, live.pointers.highWatermark);
    if (!this.replaying) this.schedule();
  }

  applyGroups(groups) {
    if (this.replaying) {
      this.stash.groups = groups || [];
      return;
    }
    this.groups = groups || [];
    this.schedule();
  }

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
  }

  tryReveal() {
    if (!this.wanted || !this.pointers || this.replaying) return;
    const hi = Math.max(...this.wanted);
    if (this.hw <= hi || !this.cache.get(hi)) return;
    const copies = this.wanted.map((o) => this.copyOf(o)?.of).filter(Number.isFinite);
    const list = [...this.wanted, ...copies];
    this.wanted = null;
    this.reveal(list);
  }

  /** noteRetry marks offset as our producer's retry of the send stored at of. */
  noteRetry(offset, of) {
    if (!Number.isFinite(offset) || !Number.isFinite(of)) return;
    this.retryOf.set(offset, of);
    this.schedule();
  }

  /** copyOf is what offset repeats, if anything: {kind: 'retry'|'same', of}. */
  copyOf(offset) {
    return copyOf(this.cache.get(offset), this.retryOf);
  }

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
  }

  /** mark outlines the cells of offsets (the story's chosen entry); none clears it. */
  mark(offsets) {
    this.marked = new Set(offsets || []);
    this.schedule();
  }

  /**
   * reveal scrolls so that the offsets (and the pointers right after them)
   * are on screen, then flashes them: what an action just wrote. When
   * they are at the end of the log it follows the end again.
   */
  reveal(offsets) {
    const list = (offsets || []).filter(Number.isFinite);
    if (!this.pointers || !list.length) {
      this.setFollow(true);
      return;
    }
    this.layoutIfNeeded();
    if (!this.cols) return;
    const lo = Math.max(this.start, Math.min(...list));
    const hi = Math.min(this.hw, Math.max(...list));
    const last = this.rowOf(this.hw);
    const first = this.rowOf(lo);
    if (last - first < this.visibleRows()) {
      this.setFollow(true);
    } else {
      this.follow = false;
      this.updateFollow();
      const rows = this.visibleRows();
      const top = Math.max(0, Math.min(first, this.rowOf(hi) - rows + 1));
      this.setScroll(top * this.rowH, true);
    }
    this.render();
    this.flash(list);
  }

  // ---- replay -------------------------------------------------------------

  /** showPast shows a recorded state: entries, pointers and groups as they were. */
  showPast(past) {
    if (!this.replaying) {
      this.stash = { cache: this.cache, pointers: this.pointers, groups: this.groups };
      this.replaying = true;
      this.cache = new EntryCache(60);
      for (const c of this.inflight.values()) c.abort();
      this.inflight.clear();
    }
    this.cache.clear();
    for (const e of past.entries) this.cache.put(e);
    this.pointers = past.pointers ? { ...past.pointers } : null;
    this.groups = past.groups || [];
    this.summaryKey = null;
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
  }

  /** showLive leaves the replay: the live state comes back. */
  showLive() {
    if (!this.replaying) return;
    const s = this.stash;
    this.cache = s.cache;
    this.pointers = s.pointers;
    this.groups = s.groups;
    this.stash = null;
    this.replaying = false;
    this.summaryKey = null;
    this.gen++;
    this.setFollow(true);
    if (this.selected !== null) this.opts.onDetails(this.selected, this.cache.get(this.selected));
    this.schedule();
  }

  afterGrowth() {
    if (!this.pointers) {
      this.schedule();
      return;
    }
    if (this.pendingAt !== null) {
      this.layoutIfNeeded();
      // The URL's at at the top, its sel in view.
      if (this.cols) {
        const at = Math.max(this.start, Math.min(this.hw, this.pendingAt));
        this.pendingAt = null;
        this.placedStart = this.start;
        this.setScroll(geometry.anchoredScroll(this, at, this.selected), true, at);
      }
    } else if (this.follow) {
      this.layoutIfNeeded();
      this.scrollY = this.followY();
    } else if (this.placedStart !== undefined && this.placedStart !== this.start) {
      // The log start moved (retention, a deletion): the rows moved under
      // the view; the anchor comes back to the top.
      this.layoutIfNeeded();
      const before = this.geometryNow();
      this.place(before && { ...before, start: this.placedStart });
    }
    this.placedStart = this.start;
    if (this.selected !== null) this.opts.onDetails(this.selected, this.cache.get(this.selected));
    this.schedule();
    if (this.wanted) queueMicrotask(() => this.tryReveal());
  }

  // ---- geometry ---------------------------------------------------------

  // The arithmetic is loggeometry.js's, over this view (start, hw, cols,
  // rowH, viewH, scrollY); these methods add what a view without
  // pointers answers.
  get start() { return this.pointers ? this.pointers.logStartOffset : 0; }
  get hw() { return this.pointers ? this.pointers.highWatermark : 0; }
  slotCount() { return this.pointers ? geometry.slotCount(this) : 0; }
  rowCount() { return this.pointers ? geometry.rowCount(this) : 0; }
  totalH() { return this.rowCount() * this.rowH; }

  /**
   * tellHeight tells the page (an offsetlab:log-height event) when the
   * height every row of the log needs changes: a lesson's step card takes
   * the height the log does not need (stepplace.js).
   */
  tellHeight() {
    const need = this.neededHeight();
    if (need === this.toldH) return;
    this.toldH = need;
    document.dispatchEvent(new CustomEvent('offsetlab:log-height', { detail: need }));
  }

  /** neededHeight is the height every row of the log needs (0 before it is laid out). */
  neededHeight() { return this.cols && this.pointers ? this.headH + this.totalH() : 0; }

  /** maxScroll lets the last row end the view with whole rows above it: no row is cut at the top when following. */
  maxScroll() { return this.pointers ? geometry.maxScroll(this) : 0; }
  /** followY is where the view rests while following the end (loggeometry.js's followScroll). */
  followY() { return this.pointers ? geometry.followScroll(this) : 0; }
  rowOf(offset) { return geometry.rowOf(this, offset); }
  visibleRows() { return geometry.fullRows(this); }

  firstVisibleOffset() {
    if (!this.cols || !this.pointers) return null;
    return geometry.firstVisibleOffset(this);
  }

  /** lastVisibleOffset is the last written offset on screen (null when none). */
  lastVisibleOffset() {
    if (!this.cols || !this.pointers) return null;
    return geometry.lastVisibleOffset(this);
  }

  /**
   * layoutIfNeeded lays out before a draw when nothing is laid out yet or
   * the viewport's width changed since (a zoom, a resized window): the
   * ResizeObserver says so too, but only at the next frame, and a draw
   * may come first.
   */
  layoutIfNeeded() {
    if (!this.cols || this.viewport.clientWidth !== this.measuredW) this.layout(true);
  }

  /**
   * layout measures the row height, gutter and column count; when they or
   * the view's height changed it puts the view back on its place (place).
   */
  layout(quiet) {
    const width = this.viewport.clientWidth;
    if (!width) return;
    this.measuredW = width;
    const before = this.geometryNow();
    const probe = this.makeRow(1);
    probe.style.visibility = 'hidden';
    this.viewport.appendChild(probe);
    const rowH = probe.offsetHeight || this.rowH;
    const gutter = this.table ? 0 : probe.firstChild.offsetWidth;
    probe.remove();
    const slotMin = parseFloat(getComputedStyle(this.viewport).getPropertyValue('--slot-min')) || 128;
    const cols = this.table ? 1 : geometry.columnCount(width, gutter, slotMin);
    this.headH = this.table ? this.head.offsetHeight : 0;
    const viewH = Math.max(rowH, this.viewport.clientHeight - this.headH);
    this.minimapH = this.minimap.clientHeight;
    const changed = cols !== this.cols || rowH !== this.rowH || viewH !== this.viewH;
    if (cols !== this.cols) this.clearRows();
    this.rowH = rowH;
    this.cols = cols;
    this.viewH = viewH;
    if (changed) this.place(before);
    this.scrollY = Math.min(this.scrollY, this.maxScroll());
    if (!quiet) this.render();
  }

  /** geometryNow is the view's geometry as laid out now, null before a layout. */
  geometryNow() {
    if (!this.cols || !this.pointers) return null;
    return { start: this.start, hw: this.hw, cols: this.cols, rowH: this.rowH, viewH: this.viewH, scrollY: this.scrollY };
  }

  /**
   * place puts the view back on its place after its geometry changed
   * (before is the geometry it had): the end while following; else the
   * anchor's row at the top, with the selected offset kept in view when it
   * was in view before (one scrolled away from stays away).
   */
  place(before) {
    if (!this.cols || !this.pointers) return;
    if (this.follow) {
      this.scrollY = this.followY();
      return;
    }
    if (this.pendingAt !== null) return; // afterGrowth places it
    const at = this.at ?? (before ? geometry.firstVisibleOffset(before) : null);
    if (at === null) return;
    const sel = this.selected !== null && (!before || geometry.rowInView(before, this.selected)) ? this.selected : null;
    this.scrollY = geometry.anchoredScroll(this, Math.max(this.start, Math.min(this.hw, at)), sel);
  }

  /** anchorOffset is the offset the view is anchored on (the URL's at), null while following the end. */
  anchorOffset() {
    if (this.follow) return null;
    return this.at ?? this.firstVisibleOffset();
  }

  /**
   * watchPixelRatio lays out again when the screen's pixel ratio changes
   * (the browser zoomed, the window moved to another screen): row heights
   * are measured in rounded pixels.
   */
  watchPixelRatio() {
    const mq = window.matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`);
    mq.addEventListener('change', () => {
      this.layout();
      this.watchPixelRatio();
    }, { once: true });
  }

  // ---- scrolling ----------------------------------------------------------

  /**
   * setScroll moves the view to y. user says a person (or an action of
   * theirs) moved it: the view follows the end again when it reached it,
   * and otherwise is anchored on at, by default the first offset on show.
   */
  setScroll(y, user, at) {
    const next = Math.max(0, Math.min(this.maxScroll(), y));
    const moved = next !== this.scrollY;
    this.scrollY = next;
    if (user) {
      this.follow = this.scrollY >= this.followY() - 1 && this.pendingAt === null;
      this.at = this.follow ? null : at ?? this.firstVisibleOffset();
      this.updateFollow();
      this.opts.onView();
    }
    if (moved) this.schedule();
    return moved;
  }

  scrollToOffset(offset, align) {
    if (!this.cols) return;
    const y = geometry.scrollToShow(this, offset, align);
    if (y !== null) this.setScroll(y, true);
  }

  setFollow(on) {
    this.follow = on;
    if (on) {
      this.scrollY = this.followY();
      this.at = null;
    } else {
      this.at = this.firstVisibleOffset();
    }
    this.updateFollow();
    this.opts.onView();
    this.schedule();
  }

  updateFollow() {
    this.followBtn.setAttribute('aria-pressed', String(this.follow));
  }

  // ---- DOM --------------------------------------------------------------

  clearRows() {
    for (const row of this.rows.values()) row.remove();
    this.rows.clear();
    this.tabStop = null;
  }

  makeRow(cols) {
    if (this.table) return makeTableRow();
    const row = el('div', 'row');
    const gutter = el('div', 'gutter');
    gutter.setAttribute('aria-hidden', 'true');
    // The lanes' labels: RC and RU, as the counts above the log and the
    // table name them, whole on one line (Kafka's names do not fit the
    // gutter at the cells' text size, and the lesson's words need the
    // width); the names in the title.
    const laneLabel = (cls, key, name) => {
      const span = el('span', 'g-lane ' + cls, t(key));
      span.title = name;
      return span;
    };
    gutter.append(el('span', 'g-top'), el('span', 'g-log', t('lane.log')),
      laneLabel('g-rc', 'lane.rcLabel', 'read_committed'), laneLabel('g-ru', 'lane.ruLabel', 'read_uncommitted'));
    const slots = el('div', 'slots');
    for (let i = 0; i < cols; i++) {
      const slot = el('div', 'slot');
      const batch = el('div', 'batch');
      batch.append(el('span', 'batch-label'));
      const cell = el('button', 'cell');
      cell.type = 'button';
      cell.tabIndex = -1;
      cell.dataset.testid = 'log-cell';
      const copy = el('span', 'copy');
      copy.dataset.testid = 'copy-mark';
      cell.append(el('span', 'off'), el('span', 'val'), el('span', 'pid'), el('span', 'tag'), copy);
      const rc = el('div', 'lane');
      rc.dataset.lane = 'rc';
      rc.dataset.testid = 'lane-rc';
      const ru = el('div', 'lane');
      ru.dataset.lane = 'ru';
      ru.dataset.testid = 'lane-ru';
      slot.append(el('div', 'flags'), batch, cell, rc, ru);
      slots.append(slot);
    }
    row.append(gutter, slots);
    return row;
  }

  schedule() {
    if (!this.raf) {
      this.raf = requestAnimationFrame(() => {
        this.raf = 0;
        this.render();
      });
    }
  }

  /** render draws the visible rows now. */
  render() {
    if (this.raf) {
      cancelAnimationFrame(this.raf);
      this.raf = 0;
    }
    this.layoutIfNeeded();
    this.updatePointerText();
    if (!this.pointers || !this.cols) {
      this.clearRows();
      this.updateMinimap();
      this.tellHeight();
      this.afterRender();
      return;
    }
    const rows = this.rowCount();
    const [r0, r1] = geometry.visibleRowRange(this);
    for (const [r, row] of this.rows) {
      if (r < r0 || r > r1) {
        row.remove();
        this.rows.delete(r);
      }
    }
    const flags = this.flagMap();
    for (let r = r0; r <= r1; r++) {
      let row = this.rows.get(r);
      if (!row) {
        row = this.makeRow(this.cols);
        this.rows.set(r, row);
        this.viewport.append(row);
      }
      row.style.transform = `translateY(${this.headH + r * this.rowH - this.scrollY}px)`;
      if (this.table) {
        row.setAttribute('aria-rowindex', String(r + 2));
        this.fillRow(row, this.start + r, flags);
        continue;
      }
      const slots = row.lastChild.children;
      for (let i = 0; i < this.cols; i++) this.fillSlot(slots[i], this.start + r * this.cols + i, flags);
    }
    this.viewport.classList.toggle('scrollable', this.maxScroll() > 0);
    this.tellHeight();
    if (this.table) this.viewport.setAttribute('aria-rowcount', String(rows + 1));
    else this.viewport.removeAttribute('aria-rowcount');
    this.fixTabStop();
    this.updateMinimap();
    this.updateCounts(r0, r1);
    this.requestPages(r0, r1);
    this.afterRender();
  }

  /** onRender calls f after every draw of the view: a layer over the cells (stepstage.js) follows them. */
  onRender(f) {
    this.renderHooks.push(f);
  }

  afterRender() {
    for (const f of this.renderHooks) f();
  }

  /** flagMap groups the pointers by the offset they point at. */
  flagMap() {
    const m = new Map();
    const add = (id, label, value) => {
      if (!m.has(value)) m.set(value, []);
      m.get(value).push({ id, label, value });
    };
    const p = this.pointers;
    add('logstart', t('pointer.logStart'), p.logStartOffset);
    add('lso', 'LSO', p.lastStableOffset);
    add('hw', 'HW', p.highWatermark);
    for (const g of this.groups) add('group:' + g.group, g.group, g.committed);
    return m;
  }

  /** setTable switches between the cells and the table, keeping the offsets on show. */
  setTable(on) {
    if (on === this.table) return;
    const before = this.geometryNow();
    this.table = on;
    this.tableButton?.setAttribute('aria-pressed', String(on));
    this.head.hidden = !on;
    const vp = this.viewport;
    vp.classList.toggle('table', on);
    // A table is announced as one; the cells as the partition log.
    if (on) {
      vp.setAttribute('role', 'table');
      vp.removeAttribute('aria-roledescription');
      vp.dataset.i18nAttr = 'aria-label:table.aria';
      vp.setAttribute('aria-label', t('table.aria'));
    } else {
      vp.setAttribute('role', 'group');
      vp.dataset.i18nAttr = 'aria-roledescription:log.roledesc;aria-label:log.aria';
      vp.setAttribute('aria-roledescription', t('log.roledesc'));
      vp.setAttribute('aria-label', t('log.aria'));
    }
    try {
      window.localStorage.setItem(TABLE_KEY, String(on));
    } catch {
      // storage disabled: the choice lasts until the page reloads
    }
    this.clearRows();
    this.cols = 0;
    this.layout(true);
    this.place(before);
    this.schedule();
  }

  /** fillRow writes offset into a row of the table (tableview.js). */
  fillRow(row, offset, flags) {
    const e = offset < this.hw ? this.cache.get(offset) : undefined;
    const kind = offset === this.hw ? 'next' : e ? e.kind : 'loading';
    const here = flags.get(offset) || [];
    const copy = copyOf(e, this.retryOf);
    const key = [offset, kind, e && e.txn, e && e.reason, e && e.marker, e && e.readCommitted, e && e.readUncommitted, e && e.key, e && e.value,
      e && e.timestamp, e && JSON.stringify(e.headers || []), here.map((f) => f.id + '=' + f.value).join(','), copy && copy.kind + copy.of,
      this.pointers.lastStableOffset, this.hw, this.selected === offset, this.marked.has(offset)].join('|');
    if (row._key === key) return;
    row._key = key;
    const shortName = (f) => (f.id === 'logstart' ? t('table.ptrStart') : f.id === 'lso' ? 'LSO' : f.id === 'hw' ? 'HW' : t('legend.group'));
    let label;
    if (kind === 'next') label = t('cell.ariaNext', { offset });
    else if (!e) label = t('cell.ariaLoading', { offset });
    else label = t('cell.aria', { offset, what: describe(e) }) + (copy ? '. ' + copyText(copy) : '');
    fillTableRow(row, offset, {
      e,
      kind,
      label,
      selected: this.selected === offset,
      marked: this.marked.has(offset),
      flags: here.map((f) => ({ id: f.id, kind: f.id.startsWith('group:') ? 'group' : f.id, short: shortName(f), title: pointerTitle(f) })),
      copy: copy ? { badge: t(copy.kind === 'retry' ? 'cell.retryOf' : 'cell.sameAs', { offset: fmt(copy.of) }), text: copyText(copy) } : null,
      lane: (which) => {
        if (kind === 'next') return { reason: 'next', text: '', label: '' };
        const name = which === 'rc' ? 'read_committed' : 'read_uncommitted';
        const reason = laneReason(e, which, this.pointers);
        const text = reason === '' ? t('lane.receives', { name, offset }) : t('lane.skips', { name, offset, reason: reasonText(reason) });
        return { reason, text, label: reason === 'loading' ? '' : text };
      },
    });
  }

  fillSlot(slot, offset, flags) {
    const inLog = offset <= this.hw;
    const e = offset < this.hw ? this.cache.get(offset) : undefined;
    const kind = !inLog ? 'none' : offset === this.hw ? 'next' : e ? e.kind : 'loading';
    const here = inLog ? flags.get(offset) : undefined;
    const flagKey = here ? here.map((f) => f.id + '=' + f.value).join(',') : '';
    const copy = copyOf(e, this.retryOf);
    const key = [offset, kind, e && e.txn, e && e.reason, e && e.marker, e && e.readCommitted, e && e.readUncommitted,
      e && e.value, e && e.producerId, e && alias(e.producerId), e && e.batchBaseOffset, flagKey, copy && copy.kind + copy.of,
      this.pointers.lastStableOffset, this.hw, this.selected === offset, this.marked.has(offset)].join('|');
    if (slot._key === key) return;
    slot._key = key;
    slot.hidden = !inLog;
    if (!inLog) return;

    const [flagBox, batch, cell, rc, ru] = slot.children;
    slot.dataset.offset = offset;
    this.fillFlags(flagBox, slot, here);
    this.fillBatch(batch, offset, e);

    cell.dataset.offset = offset;
    cell.dataset.kind = kind;
    cell.dataset.txn = e ? e.txn : 'none';
    if (e && e.marker) cell.dataset.marker = e.marker;
    else delete cell.dataset.marker;
    if (e && e.kind === 'gap') cell.dataset.reason = e.reason || 'unknown';
    else delete cell.dataset.reason;
    if (copy) {
      cell.dataset.copy = copy.kind;
      cell.dataset.copyOf = copy.of;
    } else {
      delete cell.dataset.copy;
      delete cell.dataset.copyOf;
    }
    if (this.marked.has(offset)) cell.dataset.marked = 'true';
    else delete cell.dataset.marked;
    cell.setAttribute('aria-pressed', String(this.selected === offset));
    const [off, val, pid, tag, mark] = cell.children;
    mark.textContent = copy ? t(copy.kind === 'retry' ? 'cell.retryOf' : 'cell.sameAs', { offset: fmt(copy.of) }) : '';
    mark.title = copy ? copyText(copy) : '';
    off.textContent = fmt(offset);
    if (kind === 'next') {
      val.textContent = t('cell.next');
      cell.title = '';
      pid.textContent = '';
      tag.textContent = t('cell.notWritten');
      cell.setAttribute('aria-label', t('cell.ariaNext', { offset }));
    } else if (!e) {
      val.textContent = t('cell.loading');
      cell.title = '';
      pid.textContent = '';
      tag.textContent = '';
      cell.setAttribute('aria-label', t('cell.ariaLoading', { offset }));
    } else {
      val.textContent = valueText(e);
      const hasPid = Number(e.producerId) >= 0;
      // Narrow no-break spaces around the dots: the line fits a cell.
      pid.textContent = hasPid ? `${producerLabel(e.producerId)}\u202f·\u202fe${e.producerEpoch}` + (e.sequence >= 0 ? `\u202f·\u202fs${e.sequence}` : '') : '';
      cell.title = hasPid ? t('cell.pidTitle', { pid: e.producerId, alias: producerLabel(e.producerId), epoch: e.producerEpoch, sequence: e.sequence }) : '';
      tag.textContent = tagText(e);
      cell.setAttribute('aria-label', t('cell.aria', { offset, what: describe(e) }) + (copy ? '. ' + copyText(copy) : ''));
    }
    this.fillLane(rc, 'rc', offset, kind, e);
    this.fillLane(ru, 'ru', offset, kind, e);
  }

  fillFlags(box, slot, here) {
    box.replaceChildren();
    slot.classList.toggle('pointed', !!here);
    if (!here) return;
    for (const f of here) {
      const flag = el('span', 'flag', `${f.label} ${fmt(f.value)}`);
      flag.dataset.testid = 'pointer';
      flag.dataset.pointer = f.id;
      flag.dataset.value = f.value;
      flag.dataset.kind = f.id.startsWith('group:') ? 'group' : f.id;
      flag.title = pointerTitle(f);
      box.append(flag);
    }
  }

  fillBatch(batch, offset, e) {
    const label = batch.firstChild;
    if (!e || e.batchBaseOffset < 0) {
      delete batch.dataset.pos;
      label.textContent = '';
      return;
    }
    const base = e.batchBaseOffset;
    const last = e.batchLastOffset;
    batch.dataset.pos = base === last ? 'single' : offset === base ? 'start' : offset === last ? 'end' : 'mid';
    batch.dataset.base = base;
    batch.dataset.last = last;
    const rowStart = (offset - this.start) % this.cols === 0;
    label.textContent = base !== last && (offset === base || rowStart) ? t('cell.batch', { from: fmt(base), to: fmt(last) }) : '';
  }

  fillLane(lane, which, offset, kind, e) {
    lane.dataset.offset = offset;
    const name = which === 'rc' ? 'read_committed' : 'read_uncommitted';
    if (kind === 'next') {
      lane.dataset.received = 'false';
      lane.dataset.reason = 'next';
      lane.textContent = '';
      lane.removeAttribute('aria-label');
      return;
    }
    const reason = laneReason(e, which, this.pointers);
    lane.dataset.received = String(reason === '');
    lane.dataset.reason = reason;
    lane.textContent = reason === '' ? '✓' : reasonText(reason);
    lane.setAttribute('aria-label', reason === '' ? t('lane.receives', { name, offset }) : t('lane.skips', { name, offset, reason: reasonText(reason) }));
  }

  /** fixTabStop keeps exactly one cell in the tab order: the active one if visible. */
  fixTabStop() {
    let target = null;
    if (this.active !== null) target = this.cellFor(this.active);
    if (!target) {
      for (const row of this.rows.values()) {
        const c = this.table ? row : row.querySelector('.slot:not([hidden]) .cell');
        if (c && (!target || +c.dataset.offset < +target.dataset.offset)) target = c;
      }
    }
    if (this.tabStop && this.tabStop !== target && this.tabStop.isConnected) this.tabStop.tabIndex = -1;
    if (target) target.tabIndex = 0;
    this.tabStop = target;
  }

  cellFor(offset) {
    if (!this.cols || !this.pointers) return null;
    const row = this.rows.get(this.rowOf(offset));
    if (!row) return null;
    if (this.table) return row;
    const slot = row.lastChild.children[(offset - this.start) % this.cols];
    return slot && !slot.hidden ? slot.children[2] : null;
  }

  flash(offsets) {
    if (this.reduceMotion.matches) return;
    for (const o of offsets) {
      const cell = this.cellFor(o);
      if (!cell) continue;
      cell.classList.remove('flash');
      void cell.offsetWidth; // restart the animation
      cell.classList.add('flash');
    }
  }

  // ---- pointers, counts, minimap ------------------------------------------

  updatePointerText() {
    const p = this.pointers;
    const key = p ? JSON.stringify([p, this.groups]) : '';
    if (key === this.summaryKey) return;
    this.summaryKey = key;
    this.summary.replaceChildren();
    if (!p) {
      this.why.textContent = this.topic ? t('log.reading') : '';
      this.why.dataset.state = '';
      return;
    }
    const items = [
      { id: 'logstart', label: t('pointer.logStart'), value: p.logStartOffset },
      { id: 'lso', label: 'LSO', value: p.lastStableOffset },
      { id: 'hw', label: 'HW', value: p.highWatermark },
      ...this.groups.map((g) => ({ id: 'group:' + g.group, label: t('pointer.group', { group: g.group }), value: g.committed })),
    ];
    for (const it of items) {
      const b = el('button', 'ptr', `${it.label} ${fmt(it.value)}`);
      b.type = 'button';
      b.dataset.testid = 'pointer-summary';
      b.dataset.pointerSummary = it.id;
      b.dataset.value = it.value;
      b.dataset.kind = it.id.startsWith('group:') ? 'group' : it.id;
      b.title = pointerTitle(it) + t('pointer.clickHint');
      b.addEventListener('click', () => this.jumpTo(it.value));
      this.summary.append(b);
    }
    if (p.lastStableOffset < p.highWatermark) {
      const holder = this.cache.get(p.lastStableOffset);
      const who = holder && Number(holder.producerId) >= 0 ? t('lso.who', { producer: producerLabel(holder.producerId), epoch: holder.producerEpoch }) : '';
      this.why.dataset.state = 'held';
      this.held.show(this.topic, this.partition, p, () => t('lso.held', { who, lso: fmt(p.lastStableOffset), hw: fmt(p.highWatermark) }));
    } else {
      this.why.dataset.state = 'stable';
      this.held.show(this.topic, this.partition, p, () => t('lso.stable', { hw: fmt(p.highWatermark) }));
    }
  }

  /** updateCounts writes "records received vs offsets spanned" for each lane. */
  updateCounts(r0, r1) {
    const p = this.pointers;
    let from = this.start;
    let to = this.hw;
    let where = t('count.wholeLog');
    if (to - from > 2 * PAGE || !this.cache.complete(from, to)) {
      from = Math.max(this.start, this.start + r0 * this.cols);
      to = Math.min(this.hw, this.start + (r1 + 1) * this.cols);
      where = t('count.onScreen');
    }
    let rc = 0;
    let ru = 0;
    let known = 0;
    for (let o = from; o < to; o++) {
      const e = this.cache.get(o);
      if (!e) continue;
      known++;
      if (laneReason(e, 'rc', p) === '') rc++;
      if (laneReason(e, 'ru', p) === '') ru++;
    }
    const span = to - from;
    const range = span > 0 ? `${fmt(from)}–${fmt(to - 1)}, ${where}` : t('count.none');
    const put = (node, name, n) => {
      const key = `count.receives${n === 1 ? 'One' : 'Many'}${span === 1 ? 'One' : 'Many'}`; // English plurals
      node.textContent = t(key, { name, n: fmt(n), span: fmt(span) }) +
        (name === 'read_uncommitted' ? ` (${range})` : '') + (known < span ? t('count.loading') : '') + t('count.end');
      node.dataset.received = n;
      node.dataset.span = span;
    };
    put(this.countRC, 'read_committed', rc);
    put(this.countRU, 'read_uncommitted', ru);
    if (this.windowText) {
      const first = Math.max(this.start, this.start + r0 * this.cols);
      const last = Math.min(this.hw, this.start + (r1 + 1) * this.cols - 1);
      this.windowText.textContent = t('log.window', { first: fmt(first), last: fmt(last), start: fmt(this.start), hw: fmt(this.hw) });
    }
  }

  /**
   * updateMinimap places the thumb over the offsets on screen and the
   * pointer marks on the minimap's scale (loggeometry.js's minimapScale, the
   * heat strip's), so that the thumb sits on the part of the strip shown.
   */
  updateMinimap() {
    const H = this.minimapH || 0;
    const mm = this.minimap;
    const first = this.firstVisibleOffset() ?? 0;
    const thumb = this.pointers && this.cols ? geometry.minimapThumb(this, H, this.follow) : null;
    this.thumb.style.height = `${thumb ? thumb.height : H}px`;
    this.thumb.style.transform = `translateY(${thumb ? thumb.top : 0}px)`;
    mm.setAttribute('aria-valuemin', String(this.start));
    mm.setAttribute('aria-valuemax', String(this.hw));
    mm.setAttribute('aria-valuenow', String(first));
    mm.setAttribute('aria-valuetext', this.pointers ? t('log.minimapValue', { first, start: this.start, hw: this.hw }) : t('log.minimapEmpty'));
    // Pointer marks: where LSO, HW and the groups sit in the whole log.
    const marks = this.pointers ? [...this.flagMap().values()].flat() : [];
    while (this.marks.length < marks.length) {
      const m = el('div', 'mm-mark');
      mm.append(m);
      this.marks.push(m);
    }
    const s = this.pointers ? geometry.minimapScale(this.start, this.hw, H) : null;
    this.marks.forEach((m, i) => {
      const f = marks[i];
      m.hidden = !f || !s;
      if (!f || !s) return;
      const y = s.y(f.value + 0.5);
      m.style.transform = `translateY(${Math.max(0, Math.min(H - 3, y - 1.5))}px)`;
      m.dataset.kind = f.id.startsWith('group:') ? 'group' : f.id;
      m.title = `${f.label} ${f.value}`;
    });
  }

  // ---- loading ----------------------------------------------------------

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
  }

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
  }

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
  }

  // ---- selection and input ------------------------------------------------

  select(offset) {
    this.selected = offset;
    if (offset !== null) this.active = offset;
    this.opts.onDetails(offset, offset === null ? undefined : this.cache.get(offset));
    this.opts.onView();
    this.schedule();
  }

  /** jumpTo scrolls to an offset, makes it active and focuses it. */
  jumpTo(offset, focus) {
    if (!this.pointers) return;
    const o = Math.max(this.start, Math.min(this.hw, offset));
    this.active = o;
    this.scrollToOffset(o, 'nearest');
    this.render();
    if (focus) this.focusActive();
  }

  focusActive() {
    const cell = this.cellFor(this.active);
    if (cell) {
      this.fixTabStop();
      cell.focus({ preventScroll: true });
    }
  }

  bind() {
    const vp = this.viewport;
    vp.addEventListener('wheel', (ev) => {
      let dy = ev.deltaY;
      if (ev.deltaMode === 1) dy *= 40;
      else if (ev.deltaMode === 2) dy *= this.viewH;
      if (this.setScroll(this.scrollY + dy, true)) ev.preventDefault();
    }, { passive: false });

    let touchY = null;
    vp.addEventListener('touchstart', (ev) => {
      touchY = ev.touches.length === 1 ? ev.touches[0].clientY : null;
    }, { passive: true });
    vp.addEventListener('touchmove', (ev) => {
      if (touchY === null || ev.touches.length !== 1) return;
      const y = ev.touches[0].clientY;
      if (this.setScroll(this.scrollY + (touchY - y), true)) ev.preventDefault();
      touchY = y;
    }, { passive: false });

    vp.addEventListener('click', (ev) => {
      const cell = ev.target.closest('.cell, .trow');
      if (!cell) return;
      const o = +cell.dataset.offset;
      this.active = o;
      this.select(this.selected === o ? null : o);
      if (this.selected !== null) this.opts.onPick?.(o);
    });
    vp.addEventListener('focusin', (ev) => {
      const cell = ev.target.closest('.cell, .trow');
      if (cell) {
        this.active = +cell.dataset.offset;
        this.fixTabStop();
      }
    });
    vp.addEventListener('mouseover', (ev) => {
      const cell = ev.target.closest('.cell, .trow');
      const o = cell ? +cell.dataset.offset : null;
      if (o === this.hovered) return;
      this.hovered = o;
      const show = o ?? this.selected;
      this.opts.onDetails(show, show === null ? undefined : this.cache.get(show), o !== null && o !== this.selected);
    });
    vp.addEventListener('mouseleave', () => {
      this.hovered = null;
      this.opts.onDetails(this.selected, this.selected === null ? undefined : this.cache.get(this.selected));
    });
    vp.addEventListener('keydown', (ev) => this.onKey(ev));

    this.bindMinimap();
    this.followBtn.addEventListener('click', () => this.setFollow(!this.follow));
  }

  onKey(ev) {
    if (!this.pointers || !ev.target.closest('.cell, .trow') || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const o = this.active ?? this.start;
    const page = this.cols * this.visibleRows();
    const moves = {
      ArrowRight: o + 1, ArrowLeft: o - 1, ArrowDown: o + this.cols, ArrowUp: o - this.cols,
      PageDown: o + page, PageUp: o - page, Home: this.start, End: this.hw,
    };
    if (ev.key === 'Escape') {
      this.select(null);
      return;
    }
    // A table row is not a button: Enter and Space choose it as a click does.
    const row = ev.target.closest('.trow');
    if (row && (ev.key === 'Enter' || ev.key === ' ')) {
      ev.preventDefault();
      row.click();
      return;
    }
    if (!(ev.key in moves)) return;
    ev.preventDefault();
    this.jumpTo(moves[ev.key], true);
    if (this.selected !== null) this.select(this.active);
  }

  /**
   * bindMinimap: dragging the minimap scrolls the log (the offset under the
   * pointer in the middle of the view); a click without a drag goes to the
   * offset under it and selects it, as the heat strip shows it.
   */
  bindMinimap() {
    const mm = this.minimap;
    const offsetAt = (clientY) => {
      const rect = mm.getBoundingClientRect();
      return geometry.minimapScale(this.start, this.hw, rect.height).offset(clientY - rect.top);
    };
    const center = (clientY) => {
      if (!this.pointers || !this.cols) return;
      const o = offsetAt(clientY);
      this.setScroll(geometry.centredScroll(this, o), true);
    };
    let downY = null;
    let dragged = false;
    mm.addEventListener('pointerdown', (ev) => {
      mm.setPointerCapture(ev.pointerId);
      downY = ev.clientY;
      dragged = false;
      ev.preventDefault();
    });
    mm.addEventListener('pointermove', (ev) => {
      if (!mm.hasPointerCapture(ev.pointerId) || downY === null) return;
      if (!dragged && Math.abs(ev.clientY - downY) < 4) return;
      dragged = true;
      center(ev.clientY);
    });
    mm.addEventListener('pointerup', (ev) => {
      if (downY === null) return;
      const wasDrag = dragged;
      downY = null;
      dragged = false;
      if (wasDrag || !this.pointers) return;
      this.goTo(Math.min(this.hw - 1, offsetAt(ev.clientY)));
    });
    mm.addEventListener('pointercancel', () => {
      downY = null;
      dragged = false;
    });
    mm.addEventListener('keydown', (ev) => {
      const steps = {
        ArrowDown: this.rowH, ArrowUp: -this.rowH, PageDown: this.viewH, PageUp: -this.viewH,
        Home: -Infinity, End: Infinity,
      };
      if (!(ev.key in steps)) return;
      ev.preventDefault();
      const d = steps[ev.key];
      this.setScroll(d === Infinity ? this.maxScroll() : d === -Infinity ? 0 : this.scrollY + d, true);
    });
  }

  /**
   * goTo shows an offset found elsewhere (a jump, a search result, a seek,
   * the heat strip): it stops following the end, scrolls the offset into
   * the middle of the view, selects it and flashes it. The focus stays
   * where it is, so the control that asked can be used again.
   */
  goTo(offset) {
    if (!this.pointers) return;
    this.layoutIfNeeded();
    const o = Math.max(this.start, Math.min(this.hw, offset));
    this.follow = false;
    this.updateFollow();
    this.active = o;
    if (this.cols) this.setScroll(geometry.centredScroll(this, o), true);
    this.select(o);
    this.render();
    this.flash([o]);
  }
}

function pointerTitle(f) {
  if (f.id === 'logstart') return t('pointer.titleLogStart', { value: f.value });
  if (f.id === 'lso') return t('pointer.titleLso', { value: f.value });
  if (f.id === 'hw') return t('pointer.titleHw', { value: f.value });
  return t('pointer.titleGroup', { group: f.id.slice('group:'.length), value: f.value });
}
