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

// LogView holds the view's place (the scroll, following the end, the
// anchor), the draw loop, the table toggle, the tab stop and the
// selection, and is handed its collaborators by job, each owning its own
// state: a LogFeed (logfeed.js: what the view is told, and the entries,
// pointers and groups it shows), a Layout (logplace.js: the measures of
// a row and the viewport), a RowRenderer (logrows.js: the rows' DOM) over
// the PointerFlags (logpointers.js: the flags' lines), a LogInput
// (loginput.js: wheel, touch, keys, pointer), a PageLoader (logpages.js),
// the PointerSummary and the Minimap (logpointers.js) and the lanes'
// LaneCounts (lanecounts.js); the cells' words are celltext.js's and the
// arithmetic loggeometry.js's.

import { onLanguage, t } from '../common/i18n.js';
import { apiPartition } from '../common/api.js';
import { PAGE } from './cache.js';
import { onProducers, resetProducers } from './producers.js';
import * as geometry from './loggeometry.js';
import { keyColumnChars, makeTableHead } from './tableview.js';
import { HeldBanner } from './lsohold.js';
import { LogFeed } from './logfeed.js';
import { Layout } from './logplace.js';
import { RowRenderer } from './logrows.js';
import { flagMap, Minimap, PointerFlags, PointerSummary } from './logpointers.js';
import { LaneCounts } from './lanecounts.js';
import { PageLoader, readWindow } from './logpages.js';
import { LogInput } from './loginput.js';

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

    this.feed = new LogFeed({
      pages: { abort: () => this.pages.abort(), forgetFailures: () => this.pages.forgetFailures() },
      grown: () => this.afterGrowth(),
      drawNow: (changed) => {
        this.render();
        this.flash(changed);
      },
      schedule: () => this.schedule(),
      followEnd: () => this.setFollow(true),
      reveal: (offsets) => this.reveal(offsets),
    });
    this.flags = new PointerFlags();
    this.renderer = new RowRenderer(this.flags);
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
    /** @type {number|null|undefined} the URL's at, until the pointers are known to place it (unset before the first partition) */
    this.pendingAt = undefined;
    /** @type {number|undefined} the log start the view was placed over */
    this.placedStart = undefined;
    this.active = null;
    this.selected = null;
    this.tabStop = null;
    this.topic = undefined;
    this.partition = undefined;
    /** the room under the rows a step's answer asks for (askRoom) */
    this.answerRoom = 0;
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
    this.toldH = -1;
    this.head = makeTableHead();
    this.head.hidden = true;
    this.viewport.append(this.head);
    this.grid = new Layout(this.viewport, this.head, (cols) => this.renderer.makeRow(cols, this.table));
    this.input = new LogInput({ viewport: this.viewport, minimap: this.minimap.el, followBtn: this.followBtn }, this);
    this.tableButton = document.getElementById('table-toggle');
    this.tableButton?.addEventListener('click', () => this.setTable(!this.table));
    let saved = null;
    try {
      saved = window.localStorage.getItem(TABLE_KEY);
    } catch {
      saved = null; // storage disabled: cells, as the page starts
    }
    if (saved === 'true') this.setTable(true);

    this.input.bind();
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
    this.feed.reset();
    this.clearRows();
    resetProducers(topic, partition);
    this.scrollY = 0;
    this.follow = at === undefined || at === null;
    this.at = at ?? null;
    this.pendingAt = at ?? null;
    this.placedStart = undefined; // the log start the view was placed over
    this.active = sel ?? at ?? null;
    this.selected = sel ?? null;
    this.input.forgetHover();
    this.pointerSummary.forget();
    this.updateFollow();
    this.schedule();
    this.opts.onDetails(this.selected, undefined);
  }

  // What the view shows is the feed's (logfeed.js): live, or the past
  // during a replay.
  get cache() { return this.feed.cache; }

  get pointers() { return this.feed.pointers; }

  get groups() { return this.feed.groups; }

  get marked() { return this.feed.marked; }

  get retryOf() { return this.feed.retryOf; }

  get replaying() { return this.feed.replaying; }

  get stash() { return this.feed.stash; }

  // The arithmetic is loggeometry.js's, over this view (start, hw, cols,
  // rowH, viewH, scrollY); these methods add what a view without
  // pointers answers.
  get start() { return this.feed.start; }

  get hw() { return this.feed.hw; }

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
  neededHeight(withAnswer = true) { return this.cols && this.pointers ? this.grid.headH + this.totalH() + (withAnswer ? this.answerRoom : 0) : 0; }

  /** askRoom sets the room under the rows a step's answer needs (0: none). */
  askRoom(px) {
    if (this.answerRoom === px) return;
    this.answerRoom = px;
    this.tellHeight();
  }

  /** maxScroll lets the last row end the view, the rows above it filling the view. */
  maxScroll() { return this.pointers ? geometry.maxScroll(this) : 0; }

  /** followY is where the view rests while following the end (loggeometry.js's followScroll). */
  followY() { return this.pointers ? geometry.followScroll(this, this.pointers.lastStableOffset, this.grid.cellTop) : 0; }

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
    const flags = flagMap(this.pointers, this.groups);
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
        row = this.renderer.makeRow(this.cols, this.table);
        this.rows.set(r, row);
        this.viewport.append(row);
      }
      row.style.transform = `translateY(${this.grid.headH + r * this.rowH - this.scrollY}px)`;
      if (this.table) {
        row.setAttribute('aria-rowindex', String(r + 2));
        this.renderer.fillRow(row, this.start + r, flags, this);
        continue;
      }
      const slots = row.lastChild.children;
      for (let i = 0; i < this.cols; i++) this.renderer.fillSlot(slots[i], this.start + r * this.cols + i, flags, this);
      // A row the view cuts at its top (the latest rows fill the view)
      // hides the labels the cut would slice: its flags, then its batches'.
      const cut = r * this.rowH - this.scrollY;
      if (cut < 0 && -cut > 0.5) row.dataset.cut = -cut > this.grid.flagsH ? 'batch' : 'flags';
      else delete row.dataset.cut;
    }
    if (this.table) this.viewport.style.setProperty('--tkey', `${keyColumnChars(this.cache, this.start + r0, this.start + r1)}ch`);
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
    this.feed.takePage(log);
    if (this.selected !== null) this.opts.onDetails(this.selected, this.cache.get(this.selected));
  }

  /** updateMinimap redraws the minimap's thumb and pointer marks. */
  updateMinimap() {
    this.minimap.draw(this, {
      pointers: this.pointers,
      follow: this.follow,
      first: this.firstVisibleOffset() ?? 0,
      flags: this.pointers ? [...flagMap(this.pointers, this.groups).values()].flat() : [],
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

  /**
   * layoutFlags lays the pointer flags' lines out (logpointers.js) from
   * every pointer of the log, so that the rows keep one height wherever
   * the view scrolls; when the lines change the rows are measured again.
   * @param {Map<number, import('./logpointers.js').Flag[]>} flags
   */
  layoutFlags(flags) {
    const g = this.grid;
    if (!this.flags.layout(flags, { start: this.start, cols: this.cols, slotW: g.slotW, font: g.flagFont, pad: g.flagPad })) return;
    this.viewport.style.setProperty('--flag-lines', String(this.flags.lines));
    this.layout(true);
  }

  // ---- what the view is told (logfeed.js) ----

  /** applySnapshot takes the stream's whole state in. */
  applySnapshot(msg) { this.feed.applySnapshot(msg); }

  /** applyEntries takes new or changed entries in. */
  applyEntries(entries) { this.feed.applyEntries(entries); }

  /** applyPointers takes new pointers in. */
  applyPointers(p) { this.feed.applyPointers(p); }

  /** cleaned refetches every known offset (the log cleaner ran). */
  cleaned() { this.feed.cleaned(); }

  /** applyGroups takes the groups' committed offsets in. */
  applyGroups(groups) { this.feed.applyGroups(groups); }

  /** expect shows the offsets an action just wrote once they arrive; meanwhile the view follows the end. */
  expect(offsets) { this.feed.expect(offsets); }

  /** noteRetry marks offset as our producer's retry of the send stored at of. */
  noteRetry(offset, of) { this.feed.noteRetry(offset, of); }

  /** copyOf is what offset repeats, if anything: {kind: 'retry'|'same', of}. */
  copyOf(offset) { return this.feed.copyOf(offset); }

  /** epochRise is a marker's raised producer epoch ({from, to}), else null. */
  epochRise(offset) { return this.feed.epochRise(offset); }

  /** mark outlines the cells of offsets (the story's chosen entry); none clears it. */
  mark(offsets) { this.feed.mark(offsets); }

  /** showPast shows a recorded state: entries, pointers and groups as they were. */
  showPast(past) {
    this.feed.showPast(past);
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
  }

  /** showLive leaves the replay: the live state comes back. */
  showLive() {
    if (!this.feed.showLive()) return;
    this.pointerSummary.redo();
    this.gen++;
    this.setFollow(true);
    if (this.selected !== null) this.opts.onDetails(this.selected, this.cache.get(this.selected));
    this.schedule();
  }

  // ---- where the view stands ----
  // It lays the rows out (row height, columns; logplace.js measures them)
  // when the width, the zoom or the mode changes and then puts the view
  // back on its place: the end of the log while following, else the
  // anchor (`at`: the first offset a person scrolled to, or the URL's) at
  // the top with the selected offset kept in view.

  /**
   * afterGrowth puts the view on its place after the log or its pointers
   * changed: the URL's anchor once the pointers are known, the end while
   * following, the anchor again when the log start moved under it.
   */
  afterGrowth() {
    if (!this.pointers) {
      this.schedule();
      return;
    }
    // A log that grew past (or back under) what one line a row fits takes
    // the table's other density.
    if (this.table && this.cols && String(this.grid.tableLines(geometry.slotCount(this))) !== this.viewport.dataset.tableLines) this.layout(true);
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
    if (this.feed.wanted) queueMicrotask(() => this.feed.tryReveal());
  }

  /**
   * reveal scrolls so that the offsets (and the pointers right after them)
   * are on screen, then flashes them: what an action just wrote. When
   * they are at the end of the log it follows the end again.
   * @param {number[]} offsets
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

  /** layoutIfNeeded lays out before a draw when nothing is laid out yet or the viewport's width changed since. */
  layoutIfNeeded() {
    if (this.grid.stale(this.cols)) this.layout(true);
  }

  /**
   * layout measures the row height, gutter and column count (Layout); when
   * they or the view's height changed it puts the view back on its place
   * (place).
   * @param {boolean} [quiet] no draw now
   */
  layout(quiet) {
    const before = this.geometryNow();
    const m = this.grid.measure(this.table, this.rowH, this.pointers ? geometry.slotCount(this) : 1);
    if (!m) return;
    this.minimap.measure();
    const changed = m.cols !== this.cols || m.rowH !== this.rowH || m.viewH !== this.viewH;
    if (m.cols !== this.cols) this.clearRows();
    this.rowH = m.rowH;
    this.cols = m.cols;
    this.viewH = m.viewH;
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

  /**
   * setScroll moves the view to y. user says a person (or an action of
   * theirs) moved it: the view follows the end again when it reached it,
   * and otherwise is anchored on at, by default the first offset on show.
   * @param {number} y
   * @param {boolean} [user]
   * @param {number} [at]
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

  /**
   * jumpTo scrolls to an offset, makes it active and focuses it.
   * @param {number} offset
   * @param {boolean} [focus]
   */
  jumpTo(offset, focus) {
    if (!this.pointers) return;
    this.layoutIfNeeded(); // a zoom's resize may not have laid out the new columns yet
    const o = Math.max(this.start, Math.min(this.hw, offset));
    this.active = o;
    this.scrollToOffset(o, 'nearest');
    this.render();
    if (focus) this.focusActive();
  }

  /**
   * goTo shows an offset found elsewhere (a jump, a search result, a seek,
   * the heat strip): it stops following the end, scrolls the offset into
   * the middle of the view, selects it and flashes it. The focus stays
   * where it is, so the control that asked can be used again.
   * @param {number} offset
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

  // ---- what a person did (loginput.js) ----

  /** pick selects a clicked offset, or unselects it when it was selected. */
  pick(offset) {
    this.active = offset;
    this.select(this.selected === offset ? null : offset);
    if (this.selected !== null) this.opts.onPick?.(offset);
  }

  /** focusOn makes the focused cell's offset the active one. */
  focusOn(offset) {
    this.active = offset;
    this.fixTabStop();
  }

  /** hover shows the details of the offset under the pointer, or the selected one's when none. */
  hover(offset) {
    const show = offset ?? this.selected;
    this.opts.onDetails(show, show === null ? undefined : this.cache.get(show), offset !== null && offset !== this.selected);
  }

  /** unhover shows the selected offset's details again: the pointer left the log. */
  unhover() {
    this.opts.onDetails(this.selected, this.selected === null ? undefined : this.cache.get(this.selected));
  }
}
