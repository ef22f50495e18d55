// logplace.js: where the log view stands. It lays the rows out (row
// height, columns) when the width, the zoom or the mode changes and then
// puts the view back on its place: the end of the log while following,
// else the anchor (`at`: the first offset a person scrolled to, or the
// URL's) at the top with the selected offset kept in view. It moves the
// view (setScroll, reveal, jumpTo, goTo) and says whether it follows.
// The arithmetic is loggeometry.js's. Mixed into LogView (logview.js):
// `this` is the view.

import * as geometry from './loggeometry.js';

/** logPlacement lays the view out, scrolls it and keeps its place. */
/** @satisfies {ThisType<import('./logview.js').LogView>} */
export const logPlacement = {
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
  },

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
  },

  /**
   * layoutIfNeeded lays out before a draw when nothing is laid out yet or
   * the viewport's width changed since (a zoom, a resized window): the
   * ResizeObserver says so too, but only at the next frame, and a draw
   * may come first.
   */
  layoutIfNeeded() {
    if (!this.cols || this.viewport.clientWidth !== this.measuredW) this.layout(true);
  },

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
    // Where a row's cells start under its flags and batch brackets, and
    // the flags' font (flaglines.js measures their labels with it).
    this.cellTop = this.table ? 0 : probe.querySelector('.cell')?.offsetTop || 0;
    const flagBox = this.table ? null : probe.querySelector('.flags');
    this.flagsH = flagBox ? flagBox.offsetHeight : 0;
    if (flagBox) {
      const flag = document.createElement('span');
      flag.className = 'flag';
      flag.textContent = 'HW 0';
      flagBox.append(flag);
      const fs = getComputedStyle(flag);
      this.flagFont = `${fs.fontWeight} ${fs.fontSize} ${fs.fontFamily}`;
      this.flagPad = parseFloat(fs.paddingLeft) + parseFloat(fs.paddingRight) + 1;
    }
    probe.remove();
    const slotMin = parseFloat(getComputedStyle(this.viewport).getPropertyValue('--slot-min')) || 128;
    const cols = this.table ? 1 : geometry.columnCount(width, gutter, slotMin);
    this.slotW = this.table ? 0 : (width - gutter) / cols;
    this.headH = this.table ? this.head.offsetHeight : 0;
    const viewH = Math.max(rowH, this.viewport.clientHeight - this.headH);
    this.minimap.measure();
    const changed = cols !== this.cols || rowH !== this.rowH || viewH !== this.viewH;
    if (cols !== this.cols) this.clearRows();
    this.rowH = rowH;
    this.cols = cols;
    this.viewH = viewH;
    if (changed) this.place(before);
    this.scrollY = Math.min(this.scrollY, this.maxScroll());
    if (!quiet) this.render();
  },

  /** geometryNow is the view's geometry as laid out now, null before a layout. */
  geometryNow() {
    if (!this.cols || !this.pointers) return null;
    return { start: this.start, hw: this.hw, cols: this.cols, rowH: this.rowH, viewH: this.viewH, scrollY: this.scrollY };
  },

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
  },

  /** anchorOffset is the offset the view is anchored on (the URL's at), null while following the end. */
  anchorOffset() {
    if (this.follow) return null;
    return this.at ?? this.firstVisibleOffset();
  },

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
  },

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
  },

  scrollToOffset(offset, align) {
    if (!this.cols) return;
    const y = geometry.scrollToShow(this, offset, align);
    if (y !== null) this.setScroll(y, true);
  },

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
  },

  updateFollow() {
    this.followBtn.setAttribute('aria-pressed', String(this.follow));
  },

  /** jumpTo scrolls to an offset, makes it active and focuses it. */
  jumpTo(offset, focus) {
    if (!this.pointers) return;
    const o = Math.max(this.start, Math.min(this.hw, offset));
    this.active = o;
    this.scrollToOffset(o, 'nearest');
    this.render();
    if (focus) this.focusActive();
  },

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
  },
};
