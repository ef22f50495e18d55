// loginput.js: how a person moves the log: the wheel and touch scroll it
// (the viewport does not scroll natively), a click or a key picks a cell
// (arrows, Page Up/Down, Home, End, Escape; Enter and Space on a table
// row), hovering shows a cell's details, the minimap drags or jumps, and
// the follow button. A LogInput is handed those elements and the view it
// steers (Steered: what it reads of the view and what it asks of it);
// keyMove, the offset a key moves to, is plain arithmetic
// (node --test web/static/test/loginput.test.js).

import * as geometry from './loggeometry.js';

/**
 * @typedef {object} Steered what the input reads of the log view and asks of it
 * @property {import('../types/wire.js').Pointers|null} pointers
 * @property {number} start the log start offset
 * @property {number} hw the high watermark
 * @property {number} cols offsets a row holds
 * @property {number} rowH a row's height
 * @property {number} viewH the rows' height on screen
 * @property {number} scrollY how far the view is scrolled
 * @property {boolean} follow whether the view follows the end
 * @property {number|null} active the offset keys move from
 * @property {number|null} selected the selected offset
 * @property {() => number} visibleRows the whole rows on screen
 * @property {() => number} maxScroll
 * @property {(y: number, user?: boolean) => boolean} setScroll scrolls, true when the view moved
 * @property {(on: boolean) => void} setFollow
 * @property {(offset: number|null) => void} select
 * @property {(offset: number, focus?: boolean) => void} jumpTo makes an offset active and scrolls to it
 * @property {(offset: number) => void} goTo shows, selects and flashes an offset
 * @property {(offset: number) => void} pick a click chose (or unchose) an offset
 * @property {(offset: number) => void} focusOn a cell of the offset took the focus
 * @property {(offset: number|null) => void} hover shows the details of the offset under the pointer (null: none)
 * @property {() => void} unhover the pointer left the log
 */

/**
 * keyMove is the offset a key moves the active offset o to: the arrows by
 * one slot or row, Page Up/Down by the rows on screen, Home and End to the
 * log's ends; undefined for any other key.
 * @param {string} key
 * @param {number} o
 * @param {{start: number, hw: number, cols: number, rows: number}} g the log start, the HW, the columns and the whole rows on screen
 * @returns {number|undefined}
 */
export function keyMove(key, o, g) {
  const page = g.cols * g.rows;
  const moves = {
    ArrowRight: o + 1, ArrowLeft: o - 1, ArrowDown: o + g.cols, ArrowUp: o - g.cols,
    PageDown: o + page, PageUp: o - page, Home: g.start, End: g.hw,
  };
  return Object.hasOwn(moves, key) ? moves[key] : undefined;
}

/** LogInput binds the viewport's, the minimap's and the follow button's events. */
export class LogInput {
  /**
   * @param {{viewport: HTMLElement, minimap: HTMLElement, followBtn: HTMLElement}} nodes
   * @param {Steered} view
   */
  constructor(nodes, view) {
    this.viewport = nodes.viewport;
    this.minimap = nodes.minimap;
    this.followBtn = nodes.followBtn;
    this.view = view;
    /** @type {number|null} the offset under the pointer */
    this.hovered = null;
  }

  /** forgetHover takes the pointer as over no cell (a new partition). */
  forgetHover() {
    this.hovered = null;
  }

  /** bind listens to the elements. */
  bind() {
    const vp = this.viewport;
    const view = this.view;
    vp.addEventListener('wheel', (ev) => {
      let dy = ev.deltaY;
      if (ev.deltaMode === 1) dy *= 40;
      else if (ev.deltaMode === 2) dy *= view.viewH;
      if (view.setScroll(view.scrollY + dy, true)) ev.preventDefault();
    }, { passive: false });

    let touchY = null;
    vp.addEventListener('touchstart', (ev) => {
      touchY = ev.touches.length === 1 ? ev.touches[0].clientY : null;
    }, { passive: true });
    vp.addEventListener('touchmove', (ev) => {
      if (touchY === null || ev.touches.length !== 1) return;
      const y = ev.touches[0].clientY;
      if (view.setScroll(view.scrollY + (touchY - y), true)) ev.preventDefault();
      touchY = y;
    }, { passive: false });

    /** @type {(ev: Event) => HTMLElement|null} */
    const cellOf = (ev) => /** @type {HTMLElement} */ (ev.target).closest('.cell, .trow');
    vp.addEventListener('click', (ev) => {
      const cell = cellOf(ev);
      if (cell) view.pick(+cell.dataset.offset);
    });
    vp.addEventListener('focusin', (ev) => {
      const cell = cellOf(ev);
      if (cell) view.focusOn(+cell.dataset.offset);
    });
    vp.addEventListener('mouseover', (ev) => {
      const cell = cellOf(ev);
      const o = cell ? +cell.dataset.offset : null;
      if (o === this.hovered) return;
      this.hovered = o;
      view.hover(o);
    });
    vp.addEventListener('mouseleave', () => {
      this.hovered = null;
      view.unhover();
    });
    vp.addEventListener('keydown', (ev) => this.onKey(ev));

    this.bindMinimap();
    this.followBtn.addEventListener('click', () => view.setFollow(!view.follow));
  }

  /**
   * onKey moves the active offset (and the selection, if any) by a key
   * pressed on a cell; Escape unselects.
   * @param {{key: string, target: any, altKey: boolean, ctrlKey: boolean, metaKey: boolean, preventDefault: () => void}} ev
   */
  onKey(ev) {
    const view = this.view;
    if (!view.pointers || !ev.target.closest('.cell, .trow') || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key === 'Escape') {
      view.select(null);
      return;
    }
    // A table row is not a button: Enter and Space choose it as a click does.
    const row = ev.target.closest('.trow');
    if (row && (ev.key === 'Enter' || ev.key === ' ')) {
      ev.preventDefault();
      row.click();
      return;
    }
    const to = keyMove(ev.key, view.active ?? view.start, { start: view.start, hw: view.hw, cols: view.cols, rows: view.visibleRows() });
    if (to === undefined) return;
    ev.preventDefault();
    view.jumpTo(to, true);
    if (view.selected !== null) view.select(view.active);
  }

  /**
   * bindMinimap: dragging the minimap scrolls the log (the offset under the
   * pointer in the middle of the view); a click without a drag goes to the
   * offset under it and selects it, as the heat strip shows it.
   */
  bindMinimap() {
    const mm = this.minimap;
    const view = this.view;
    const offsetAt = (clientY) => {
      const rect = mm.getBoundingClientRect();
      return geometry.minimapScale(view.start, view.hw, rect.height).offset(clientY - rect.top);
    };
    const center = (clientY) => {
      if (!view.pointers || !view.cols) return;
      const o = offsetAt(clientY);
      view.setScroll(geometry.centredScroll(view, o), true);
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
      if (wasDrag || !view.pointers) return;
      view.goTo(Math.min(view.hw - 1, offsetAt(ev.clientY)));
    });
    mm.addEventListener('pointercancel', () => {
      downY = null;
      dragged = false;
    });
    mm.addEventListener('keydown', (ev) => {
      const steps = {
        ArrowDown: view.rowH, ArrowUp: -view.rowH, PageDown: view.viewH, PageUp: -view.viewH,
        Home: -Infinity, End: Infinity,
      };
      if (!(ev.key in steps)) return;
      ev.preventDefault();
      const d = steps[ev.key];
      view.setScroll(d === Infinity ? view.maxScroll() : d === -Infinity ? 0 : view.scrollY + d, true);
    });
  }
}
