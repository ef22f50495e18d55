// logpointers.js: what the log says around its cells: the pointer summary
// above it (log start, LSO, HW, the groups' committed offsets) with the
// sentence on why the LSO is held (PointerSummary, handed its elements and
// what it shows), the pointer flags over the cells (flagMap groups them by
// offset; PointerFlags holds their lines, flaglines.js's layout, handed a
// way to measure a label), and the minimap's thumb and pointer marks
// (Minimap, handed its elements). The lanes' counts are lanecounts.js's.

import { fmt } from '../common/api.js';
import { t } from '../common/i18n.js';
import { producerLabel } from './producers.js';
import * as geometry from './loggeometry.js';
import { pointerTitle } from './celltext.js';
import { flagLayout } from './flaglines.js';

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/**
 * @typedef {object} SummaryState what the pointer summary shows
 * @property {string} [topic]
 * @property {number} [partition]
 * @property {import('../types/wire.js').Pointers|null} pointers
 * @property {{group: string, committed: number}[]} groups the groups' committed offsets
 * @property {{get: (offset: number) => import('../types/wire.js').Entry|undefined}} cache the entries known (the LSO's holder is named)
 */

/**
 * PointerSummary is the row of pointer buttons above the log and the
 * sentence on why the LSO is held (or that it is not); it redraws only
 * when the pointers or groups changed, or after redo().
 */
export class PointerSummary {
  /**
   * @param {HTMLElement} summary the buttons' row
   * @param {HTMLElement} why the LSO sentence
   * @param {import('./lsohold.js').HeldBanner} held the banner that writes the sentence
   * @param {(offset: number) => void} jump called when a pointer's button is clicked
   */
  constructor(summary, why, held, jump) {
    this.summary = summary;
    this.why = why;
    this.held = held;
    this.jump = jump;
    /** @type {string|null} what is on show ('' nothing; null: redraw whatever comes) */
    this.key = '';
  }

  /** redo has the next show draw again (a language or a producer's name changed). */
  redo() {
    this.key = null;
  }

  /** forget takes what is on show as nothing (a new partition). */
  forget() {
    this.key = '';
  }

  /** @param {SummaryState} s */
  show(s) {
    const p = s.pointers;
    const key = p ? JSON.stringify([p, s.groups]) : '';
    if (key === this.key) return;
    this.key = key;
    this.summary.replaceChildren();
    if (!p) {
      this.why.textContent = s.topic ? t('log.reading') : '';
      this.why.dataset.state = '';
      return;
    }
    const items = [
      { id: 'logstart', label: t('pointer.logStart'), value: p.logStartOffset },
      { id: 'lso', label: 'LSO', value: p.lastStableOffset },
      { id: 'hw', label: 'HW', value: p.highWatermark },
      ...s.groups.map((g) => ({ id: 'group:' + g.group, label: t('pointer.group', { group: g.group }), value: g.committed })),
    ];
    for (const it of items) {
      const b = el('button', 'ptr', `${it.label} ${fmt(it.value)}`);
      b.type = 'button';
      b.dataset.testid = 'pointer-summary';
      b.dataset.pointerSummary = it.id;
      b.dataset.value = it.value;
      b.dataset.kind = it.id.startsWith('group:') ? 'group' : it.id;
      b.title = pointerTitle(it) + t('pointer.clickHint');
      b.addEventListener('click', () => this.jump(it.value));
      this.summary.append(b);
    }
    if (p.lastStableOffset < p.highWatermark) {
      const holder = s.cache.get(p.lastStableOffset);
      const who = holder && Number(holder.producerId) >= 0 ? t('lso.who', { producer: producerLabel(holder.producerId), epoch: holder.producerEpoch }) : '';
      this.why.dataset.state = 'held';
      this.held.show(s.topic, s.partition, p, () => t('lso.held', { who, lso: fmt(p.lastStableOffset), hw: fmt(p.highWatermark) }));
    } else {
      this.why.dataset.state = 'stable';
      this.held.show(s.topic, s.partition, p, () => t('lso.stable', { hw: fmt(p.highWatermark) }));
    }
  }
}

/**
 * Minimap is the strip beside the log: its thumb over the offsets on
 * screen and the pointer marks, on loggeometry.js's minimapScale (the heat
 * strip's), so that the thumb sits on the part of the strip shown.
 */
export class Minimap {
  /**
   * @param {HTMLElement} el the strip (a slider)
   * @param {HTMLElement} thumb the thumb in it
   */
  constructor(el, thumb) {
    this.el = el;
    this.thumb = thumb;
    /** @type {HTMLElement[]} the pointer marks, made as needed */
    this.marks = [];
    /** the strip's height when last measured (0 before) */
    this.h = 0;
  }

  /** measure takes the strip's height again (the view was laid out). */
  measure() {
    this.h = this.el.clientHeight;
  }

  /**
   * draw places the thumb and the marks.
   * @param {any} g the view's geometry (loggeometry.js: start, hw, cols, rowH, viewH, scrollY)
   * @param {object} s
   * @param {import('../types/wire.js').Pointers|null} s.pointers
   * @param {boolean} s.follow whether the view follows the end
   * @param {number} s.first the first offset on screen
   * @param {{id: string, label: string, value: number}[]} s.flags the pointers to mark (none without pointers)
   */
  draw(g, s) {
    const H = this.h || 0;
    const mm = this.el;
    const first = s.first;
    const thumb = s.pointers && g.cols ? geometry.minimapThumb(g, H, s.follow) : null;
    this.thumb.style.height = `${thumb ? thumb.height : H}px`;
    this.thumb.style.transform = `translateY(${thumb ? thumb.top : 0}px)`;
    mm.setAttribute('aria-valuemin', String(g.start));
    mm.setAttribute('aria-valuemax', String(g.hw));
    mm.setAttribute('aria-valuenow', String(first));
    mm.setAttribute('aria-valuetext', s.pointers ? t('log.minimapValue', { first, start: g.start, hw: g.hw }) : t('log.minimapEmpty'));
    // Pointer marks: where LSO, HW and the groups sit in the whole log.
    const marks = s.flags;
    while (this.marks.length < marks.length) {
      const m = el('div', 'mm-mark');
      mm.append(m);
      this.marks.push(m);
    }
    const sc = s.pointers ? geometry.minimapScale(g.start, g.hw, H) : null;
    this.marks.forEach((m, i) => {
      const f = marks[i];
      m.hidden = !f || !sc;
      if (!f || !sc) return;
      const y = sc.y(f.value + 0.5);
      m.style.transform = `translateY(${Math.max(0, Math.min(H - 3, y - 1.5))}px)`;
      m.dataset.kind = f.id.startsWith('group:') ? 'group' : f.id;
      m.title = `${f.label} ${f.value}`;
    });
  }
}

/**
 * @typedef {{id: string, label: string, value: number}} Flag a pointer at the offset it points at
 */

/**
 * flagMap groups the pointers by the offset they point at: the log start,
 * the LSO, the HW and each group's committed offset, in that order.
 * @param {import('../types/wire.js').Pointers} p
 * @param {{group: string, committed: number}[]} groups
 * @returns {Map<number, Flag[]>}
 */
export function flagMap(p, groups) {
  /** @type {Map<number, Flag[]>} */
  const m = new Map();
  const add = (id, label, value) => {
    if (!m.has(value)) m.set(value, []);
    m.get(value).push({ id, label, value });
  };
  add('logstart', t('pointer.logStart'), p.logStartOffset);
  add('lso', 'LSO', p.lastStableOffset);
  add('hw', 'HW', p.highWatermark);
  for (const g of groups) add('group:' + g.group, g.group, g.committed);
  return m;
}

/**
 * @typedef {object} FlagGrid where the flags are laid out (the view's layout, logplace.js)
 * @property {number} start the log start offset
 * @property {number} cols offsets a row holds
 * @property {number} slotW a slot's width in pixels
 * @property {string} font the flags' font
 * @property {number} pad a flag's padding, added to its label's width
 */

/**
 * PointerFlags holds the pointer flags' lines (flaglines.js): how many
 * lines every row gives them, each pointed offset's room and the flags
 * shown by their short label. The rows read them when they fill a slot.
 */
export class PointerFlags {
  /**
   * @param {(font: string, label: string) => number} [textWidth] a label's
   *   width in pixels in font; by default measured on a canvas of the page
   */
  constructor(textWidth) {
    this.textWidth = textWidth || canvasTextWidth();
    /** the flags' lines over every row */
    this.lines = 1;
    /** @type {Map<number, number>} each pointed offset's room in pixels */
    this.room = new Map();
    /** @type {Set<string>} the ids of the flags shown by their short label */
    this.short = new Set();
  }

  /**
   * layout decides the flags' lines and each pointed offset's room from
   * every pointer of the log, so that the rows keep one height wherever
   * the view scrolls. It returns true when the number of lines changed:
   * the rows must then be measured again.
   * @param {Map<number, Flag[]>} flags the pointers by offset (flagMap)
   * @param {FlagGrid} grid
   */
  layout(flags, grid) {
    if (!grid.cols || !grid.slotW || !grid.font) return false;
    // The flags of one offset say its number once, after the last of them.
    const groups = [...flags].map(([offset, list]) => ({
      offset,
      flags: list.map((f, i) => {
        const n = i === list.length - 1 ? ` ${fmt(f.value)}` : '';
        return { id: f.id, label: f.label + n, short: f.id.startsWith('group:') ? t('legend.group') + n : undefined };
      }),
    }));
    const widthOf = (label) => Math.ceil(this.textWidth(grid.font, label)) + grid.pad;
    const out = flagLayout(groups, { start: grid.start, cols: grid.cols, slotW: grid.slotW, gap: 4 }, widthOf);
    this.room = out.room;
    this.short = out.short;
    if (out.lines === this.lines) return false;
    this.lines = out.lines;
    return true;
  }
}

/** canvasTextWidth measures text on a canvas made when first asked. */
function canvasTextWidth() {
  /** @type {CanvasRenderingContext2D|null} */
  let ctx = null;
  return (font, label) => {
    ctx ||= document.createElement('canvas').getContext('2d');
    ctx.font = font;
    return ctx.measureText(label).width;
  };
}
