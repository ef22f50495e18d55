// logpointers.js: what the log says around its cells: the pointer summary
// above it (log start, LSO, HW, the groups' committed offsets) with the
// sentence on why the LSO is held, the lanes' "records received vs offsets
// spanned" counts, the window's range, and the minimap's thumb and
// pointer marks. Mixed into LogView (logview.js): `this` is the view.

import { fmt } from '../common/api.js';
import { PAGE } from './cache.js';
import { laneReason } from './cells.js';
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

/** logPointers draws the pointers, the counts and the minimap from the view's state. */
/** @satisfies {ThisType<import('./logview.js').LogView>} */
export const logPointers = {
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
  },

  /**
   * layoutFlags decides the flags' lines and each pointed offset's room
   * (flaglines.js) from every pointer of the log, so that the rows keep one
   * height wherever the view scrolls; when the lines change the rows are
   * measured again.
   */
  layoutFlags(flags) {
    if (!this.cols || !this.slotW || !this.flagFont) return;
    // The flags of one offset say its number once, after the last of them.
    const groups = [...flags].map(([offset, list]) => ({
      offset,
      flags: list.map((f, i) => {
        const n = i === list.length - 1 ? ` ${fmt(f.value)}` : '';
        return { id: f.id, label: f.label + n, short: f.id.startsWith('group:') ? t('legend.group') + n : undefined };
      }),
    }));
    const ctx = (this.measureCtx ||= document.createElement('canvas').getContext('2d'));
    ctx.font = this.flagFont;
    const widthOf = (label) => Math.ceil(ctx.measureText(label).width) + this.flagPad;
    const out = flagLayout(groups, { start: this.start, cols: this.cols, slotW: this.slotW, gap: 4 }, widthOf);
    this.flagRoom = out.room;
    this.flagShort = out.short;
    if (out.lines !== (this.flagLines || 1)) {
      this.flagLines = out.lines;
      this.viewport.style.setProperty('--flag-lines', String(out.lines));
      this.layout(true);
    }
  },

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
  },

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
  },

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
  },
};
