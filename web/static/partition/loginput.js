// loginput.js: how a person moves the log: the wheel and touch scroll it
// (the viewport does not scroll natively), a click or a key picks a cell
// (arrows, Page Up/Down, Home, End, Escape; Enter and Space on a table
// row), hovering shows a cell's details, the minimap drags or jumps, and
// the follow button. Mixed into LogView (logview.js): `this` is the view.

import * as geometry from './loggeometry.js';

/** logInput binds the viewport's, the minimap's and the follow button's events. */
/** @satisfies {ThisType<import('./logview.js').LogView>} */
export const logInput = {
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
  },

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
  },

  /**
   * bindMinimap: dragging the minimap scrolls the log (the offset under the
   * pointer in the middle of the view); a click without a drag goes to the
   * offset under it and selects it, as the heat strip shows it.
   */
  bindMinimap() {
    const mm = this.minimap.el;
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
  },
};
