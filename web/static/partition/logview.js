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

// The view is one class whose methods live in modules by their job, each
// mixed into LogView.prototype below: logfeed.js (what the view is told),
// logplace.js (layout, scrolling and the anchor), logrows.js (the rows'
// DOM), logpointers.js (pointer flags), loginput.js
// (wheel, touch, keys, pointer); the cells' words are celltext.js's. Pages
// are loaded by a PageLoader (logpages.js), the pointer summary and the
// minimap are a PointerSummary and a Minimap (logpointers.js) and the
// lanes' counts LaneCounts
// (lanecounts.js), each handed only what it reads. This file holds the state, the draw loop, the table toggle, the
// tab stop and the selection.

import { onLanguage, t } from '../common/i18n.js';
import { apiPartition } from '../common/api.js';
import { EntryCache, PAGE } from './cache.js';
import { onProducers, resetProducers } from './producers.js';
import * as geometry from './loggeometry.js';
import { makeTableHead } from './tableview.js';
import { HeldBanner } from './lsohold.js';
import { logFeed } from './logfeed.js';
import { logPlacement } from './logplace.js';
import { logRows } from './logrows.js';
import { logPointers, Minimap, PointerSummary } from './logpointers.js';
import { LaneCounts } from './lanecounts.js';
import { PageLoader, readWindow } from './logpages.js';
import { logInput } from './loginput.js';

export { describe, describeKind } from './celltext.js';

const TABLE_KEY = 'offsetlab.logTable';

export class LogView {
  /**
   * @param {object} opts
   * @param {(offset: number|null, entry: import('../types/wire.js').Entry|undefined, transient?: boolean) => void} opts.onDetails
   * @param {(offset: number) => void} [opts.onPick] called when a click selects an offset
   * @param {(err: Error) => void} opts.onError
   * @param {() => void} opts.onView called when the scroll position or selection changes
   */
  constructor(opts) {
    this.opts = opts;
    this.viewport = document.getElementById('log-viewport');
    this.minimap = new Minimap(document.getElementById('minimap'), document.getElementById('minimap-thumb'));
    const why = document.getElementById('lso-why');
    const held = new HeldBanner(why, { canWrite: document.getElementById('app')?.dataset.canWrite === 'true' });
    this.pointerSummary = new PointerSummary(document.getElementById('pointer-summary'), why, held, (offset) => this.jumpTo(offset));
    this.counts = new LaneCounts(document.getElementById('lane-count-rc'), document.getElementById('lane-count-ru'), document.getElementById('window-text'));
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
    this.pages = new PageLoader({
      cache: () => this.cache,
      start: () => this.start,
      gen: () => this.gen,
      replaying: () => this.replaying,
      read: (from, limit, signal) => readWindow(`${apiPartition(this.topic, this.partition)}/log`, from, limit, signal),
      onPage: (log) => this.takePage(log),
      onError: (err) => this.opts.onError(err),
      schedule: () => this.schedule(),
    });
    this.renderHooks = [];
    this.raf = 0;
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
      this.pointerSummary.redo();
      this.clearRows();
      this.render();
      if (focused) this.focusActive();
    });
    onProducers(() => {
      this.pointerSummary.redo();
      this.schedule();
    });
  }

  /** reset shows a new partition (or the same one afresh). */
  reset(topic, partition, at, sel) {
    this.gen++;
    this.topic = topic;
    this.partition = partition;
    this.pages.abort();
    this.pages.forgetFailures();
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
    this.pointerSummary.forget();
    this.updateFollow();
    this.schedule();
    this.opts.onDetails(this.selected, undefined);
  }

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

  /**
   * neededHeight is the height every row of the log needs (0 before it is
   * laid out), and under them the room a step's answer asks for
   * (stepstage.js's callout, which then covers no cell, lane or label)
   * unless withAnswer is false.
   * @param {boolean} [withAnswer]
   */
  neededHeight(withAnswer = true) { return this.cols && this.pointers ? this.headH + this.totalH() + (withAnswer ? this.answerRoom || 0 : 0) : 0; }

  /** askRoom sets the room under the rows a step's answer needs (0: none). */
  askRoom(px) {
    if ((this.answerRoom || 0) === px) return;
    this.answerRoom = px;
    this.tellHeight();
  }

  /** maxScroll lets the last row end the view, the rows above it filling the view. */
  maxScroll() { return this.pointers ? geometry.maxScroll(this) : 0; }

  /** followY is where the view rests while following the end (loggeometry.js's followScroll). */
  followY() { return this.pointers ? geometry.followScroll(this, this.pointers.lastStableOffset, this.cellTop || 0) : 0; }

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

  clearRows() {
    for (const row of this.rows.values()) row.remove();
    this.rows.clear();
    this.tabStop = null;
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
    this.pointerSummary.show(this);
    if (!this.pointers || !this.cols) {
      this.clearRows();
      this.updateMinimap();
      this.tellHeight();
      this.afterRender();
      return;
    }
    const rows = this.rowCount();
    const flags = this.flagMap();
    if (!this.table) this.layoutFlags(flags);
    const [r0, r1] = geometry.visibleRowRange(this);
    for (const [r, row] of this.rows) {
      if (r < r0 || r > r1) {
        row.remove();
        this.rows.delete(r);
      }
    }
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
      // A row the view cuts at its top (the latest rows fill the view)
      // hides the labels the cut would slice: its flags, then its batches'.
      const cut = r * this.rowH - this.scrollY;
      if (cut < 0 && -cut > 0.5) row.dataset.cut = -cut > this.flagsH ? 'batch' : 'flags';
      else delete row.dataset.cut;
    }
    this.viewport.classList.toggle('scrollable', this.maxScroll() > 0);
    this.tellHeight();
    if (this.table) this.viewport.setAttribute('aria-rowcount', String(rows + 1));
    else this.viewport.removeAttribute('aria-rowcount');
    this.fixTabStop();
    this.updateMinimap();
    this.counts.show(this, r0, r1);
    this.requestPages(r0, r1);
    this.afterRender();
  }

  /** requestPages has the pages of rows r0..r1 loaded (logpages.js). */
  requestPages(r0, r1) {
    this.pages.want(geometry.pageRange(this, r0, r1, PAGE));
  }

  /**
   * takePage moves the pointers on to what a live page says (never back)
   * and shows the selected offset's entry as the page brought it.
   * @param {import('../types/wire.js').Log} log
   */
  takePage(log) {
    if (this.pointers) {
      this.pointers = {
        logStartOffset: Math.max(this.pointers.logStartOffset, log.logStartOffset),
        lastStableOffset: Math.max(this.pointers.lastStableOffset, log.lastStableOffset),
        highWatermark: Math.max(this.pointers.highWatermark, log.highWatermark),
      };
    }
    if (this.selected !== null) this.opts.onDetails(this.selected, this.cache.get(this.selected));
  }

  /** updateMinimap redraws the minimap's thumb and pointer marks. */
  updateMinimap() {
    this.minimap.draw(this, {
      pointers: this.pointers,
      follow: this.follow,
      first: this.firstVisibleOffset() ?? 0,
      flags: this.pointers ? [...this.flagMap().values()].flat() : [],
    });
  }

  /** onRender calls f after every draw of the view: a layer over the cells (stepstage.js) follows them. */
  onRender(f) {
    this.renderHooks.push(f);
  }

  afterRender() {
    for (const f of this.renderHooks) f();
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

  select(offset) {
    this.selected = offset;
    if (offset !== null) this.active = offset;
    this.opts.onDetails(offset, offset === null ? undefined : this.cache.get(offset));
    this.opts.onView();
    this.schedule();
  }

  focusActive() {
    const cell = this.cellFor(this.active);
    if (cell) {
      this.fixTabStop();
      cell.focus({ preventScroll: true });
    }
  }
}

Object.assign(LogView.prototype, logFeed, logPlacement, logRows, logPointers, logInput);
