// logplace.js: the measures the log view is laid out by. A Layout measures
// a probe row in the viewport when the width, the zoom or the mode
// changes: the row height, the columns that fit, a slot's width, the
// view's height under the table's header, where a row's cells start under
// its flags and batch brackets, and the flags' font (flaglines.js measures
// their labels with it). It is handed the viewport, the table's header
// and a way to build a probe row; the view (logview.js) then puts itself
// back on its place with loggeometry.js's arithmetic.

import * as geometry from './loggeometry.js';

/**
 * @typedef {object} Measures what a layout decides for the view
 * @property {number} cols offsets a row holds (1 in the table)
 * @property {number} rowH a row's height in pixels
 * @property {number} viewH the height the rows have under the table's header
 */

/** Layout measures the viewport and a probe row, and keeps what it measured. */
export class Layout {
  /**
   * @param {HTMLElement} viewport the log's viewport
   * @param {HTMLElement} head the table's header row (hidden with the cells)
   * @param {(cols: number) => HTMLElement} probeRow builds a row as the view shows it (cells or table)
   */
  constructor(viewport, head, probeRow) {
    this.viewport = viewport;
    this.head = head;
    this.probeRow = probeRow;
    /** @type {number|undefined} the viewport's width when last measured, unset before */
    this.measuredW = undefined;
    /** where a row's cells start under its flags and batch brackets */
    this.cellTop = 0;
    /** the flags' height above a row's cells */
    this.flagsH = 0;
    /** a slot's width in pixels (0 in the table) */
    this.slotW = 0;
    /** the flags' font and their labels' padding ('' and 0 before a row of cells was measured) */
    this.flagFont = '';
    this.flagPad = 0;
    /** the table's header's height (0 with the cells) */
    this.headH = 0;
    /** a table row's and the header's height at one and at two lines (equal where the width allows one density only) */
    this.tableRowH = { one: 0, two: 0, headOne: 0, headTwo: 0 };
  }

  /**
   * stale says whether a layout is due before a draw: nothing is laid out
   * yet (cols is 0) or the viewport's width changed since (a zoom, a
   * resized window) — the ResizeObserver says so too, but only at the
   * next frame, and a draw may come first.
   * @param {number} cols the columns laid out now
   */
  stale(cols) {
    return !cols || this.viewport.clientWidth !== this.measuredW;
  }

  /**
   * measure lays a probe row into the viewport and measures it; null when
   * the viewport has no width (hidden).
   * @param {boolean} table whether the view is the table
   * @param {number} rowH the row height to keep should the probe measure none
   * @returns {Measures|null}
   */
  measure(table, rowH, slots = 1) {
    const width = this.viewport.clientWidth;
    if (!width) return null;
    this.measuredW = width;
    this.headH = table ? this.head.offsetHeight : 0;
    const probe = this.probeRow(1);
    probe.style.visibility = 'hidden';
    this.viewport.style.removeProperty('--cell-h');
    this.viewport.appendChild(probe);
    let probeH = probe.offsetHeight || rowH;
    if (!table) probeH = this.fitTwoRows(probe, probeH);
    else probeH = this.chooseTableLines(probe, slots) || probeH;
    const gutter = table ? 0 : /** @type {HTMLElement} */ (probe.firstChild).offsetWidth;
    this.cellTop = table ? 0 : /** @type {HTMLElement|null} */ (probe.querySelector('.cell'))?.offsetTop || 0;
    /** @type {HTMLElement|null} */
    const flagBox = table ? null : probe.querySelector('.flags');
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
    const cols = table ? 1 : geometry.columnCount(width, gutter, slotMin);
    this.slotW = table ? 0 : (width - gutter) / cols;
    const viewH = Math.max(probeH, this.viewport.clientHeight - this.headH);
    return { cols, rowH: probeH, viewH };
  }

  /**
   * chooseTableLines measures the probe row of the table in both of its
   * densities, where the log's width gives it two (tools.css: a laptop's
   * log, two lines a row with the time and the headers, or one without),
   * and keeps the one that shows the log best: one line when only one
   * line a row brings every offset on screen (a lesson's log), else two.
   * It returns the row height, 0 when the probe measures none.
   * @param {HTMLElement} probe a table row in the viewport
   * @param {number} slots the log's slots (its offsets and the next one's)
   */
  chooseTableLines(probe, slots) {
    const vp = this.viewport;
    vp.dataset.tableLines = '1';
    const one = probe.offsetHeight;
    const headOne = this.head.offsetHeight;
    vp.dataset.tableLines = '2';
    const two = probe.offsetHeight;
    const headTwo = this.head.offsetHeight;
    this.tableRowH = { one, two, headOne, headTwo };
    const lines = this.tableLines(slots);
    vp.dataset.tableLines = String(lines);
    this.headH = lines === 1 ? headOne : headTwo;
    return lines === 1 ? one : two;
  }

  /**
   * tableLines is the density chooseTableLines picks for a log of slots
   * slots, with the row heights it measured last.
   * @param {number} slots
   */
  tableLines(slots) {
    const { one, two, headOne, headTwo } = this.tableRowH;
    const room = this.viewport.clientHeight;
    return one < two && slots * two + headTwo > room && slots * one + headOne <= room ? 1 : 2;
  }

  /**
   * fitTwoRows shortens the cells (never under 5.75 lines of their text,
   * which still hold an offset, a value line, a producer line and a tag)
   * when two rows of the probe's height do not fit the viewport: a
   * lesson's log of up to ten offsets at 1280×720 then shows every cell,
   * pointer and lane, whatever takes height above it (a second line of
   * group pointers, the classroom bar, share lanes, Korean's taller
   * lines). It returns the row height.
   * @param {HTMLElement} probe a row of cells in the viewport
   * @param {number} probeH its height
   */
  fitTwoRows(probe, probeH) {
    const short = 2 * probeH - this.viewport.clientHeight;
    const cell = /** @type {HTMLElement|null} */ (probe.querySelector('.cell'));
    if (short <= 0 || !cell) return probeH;
    const text = parseFloat(getComputedStyle(this.viewport).getPropertyValue('--cell-text')) || 16;
    const fit = Math.max(Math.round(text * 5.75), cell.offsetHeight - Math.ceil(short / 2));
    if (fit >= cell.offsetHeight) return probeH;
    this.viewport.style.setProperty('--cell-h', `${fit}px`);
    return probe.offsetHeight || probeH;
  }
}
