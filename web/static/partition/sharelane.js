// sharelane.js: the share lanes under the log, one per share group with
// state on the partition (KIP-932), beside RC and RU: per offset its state
// (shape and colour by state; who holds an acquired record, the delivery,
// the lock's seconds left; an archived record's reason) and the start and
// end offsets (SPSO, SPEO) as pointers. The live feed sends the lanes in
// its snapshot and in share messages; the lanes draw themselves after
// every draw of the log (LogView.onRender) into the slots on screen, in
// room the slots keep for them (--share-lanes, sharelane.css). The table
// view shows no lanes.

import { onLanguage, t } from '../common/i18n.js';
import { shareCell, workerNames } from './sharecell.js';

/** @typedef {import('../types/wire.js').SharePartition} ShareLane */
/** @typedef {(a: Record<string, string|number>) => string} Sentence */

/** @type {Record<string, () => string>} */
const WHY = {
  deliveryLimit: () => t('lane.share.why.deliveryLimit'),
  rejected: () => t('lane.share.why.rejected'),
  notDelivered: () => t('lane.share.why.notDelivered'),
};
/** @type {Record<string, () => string>} */
const WHY_SHORT = {
  deliveryLimit: () => t('lane.share.short.deliveryLimit'),
  rejected: () => t('lane.share.short.rejected'),
  notDelivered: () => t('lane.share.short.notDelivered'),
};
/** @type {Record<string, Sentence>} */
const SENTENCE = {
  'lane.share.done': (a) => t('lane.share.done', a),
  'lane.share.available': (a) => t('lane.share.available', a),
  'lane.share.acquired': (a) => t('lane.share.acquired', a),
  'lane.share.acknowledged': (a) => t('lane.share.acknowledged', a),
  'lane.share.archived': (a) => t('lane.share.archived', a),
  'lane.share.inFlight': (a) => t('lane.share.inFlight', a),
};

export class ShareLanes {
  /**
   * @param {import('./logview.js').LogView} view the log: its viewport and rows, onRender
   */
  constructor(view) {
    this.view = view;
    /** @type {ShareLane[]} */
    this.lanes = [];
    /** @type {Map<string, Map<string, string>>} by group: member id → W1, W2 … */
    this.workers = new Map();
    this.timer = 0;
    view.onRender(() => this.draw());
    onLanguage(() => this.draw());
  }

  /**
   * set shows the lanes of a snapshot or share message (none: no lanes).
   *
   * @param {ShareLane[] | undefined} lanes
   */
  set(lanes) {
    const before = this.lanes.length;
    this.lanes = lanes || [];
    for (const lane of this.lanes) {
      if (!this.workers.has(lane.group)) this.workers.set(lane.group, new Map());
      workerNames(lane, /** @type {Map<string, string>} */ (this.workers.get(lane.group)));
    }
    this.view.viewport.style.setProperty('--share-lanes', String(this.lanes.length));
    // More or fewer lanes change the rows' height: measure again.
    if (this.lanes.length !== before) this.view.layout();
    else this.draw();
    this.tick();
  }

  /** tick redraws every second while a lock counts down. */
  tick() {
    const counting = this.lanes.some((l) => (l.records || []).some((r) => r.state === 'acquired'));
    if (counting && !this.timer) this.timer = window.setInterval(() => this.draw(), 1000);
    if (!counting && this.timer) {
      clearInterval(this.timer);
      this.timer = 0;
    }
  }

  /** draw writes the lanes into the rows on screen. */
  draw() {
    const n = this.view.table ? 0 : this.lanes.length;
    const now = Date.now();
    for (const row of this.view.viewport.querySelectorAll('.row')) {
      const gutter = row.querySelector('.gutter');
      if (gutter) this.drawLabels(gutter, n);
      for (const slot of row.querySelectorAll('.slot')) this.drawSlot(/** @type {HTMLElement} */ (slot), n, now);
    }
  }

  /**
   * @param {Element} gutter
   * @param {number} n
   */
  drawLabels(gutter, n) {
    let box = gutter.querySelector('.g-share');
    if (!n) {
      box?.remove();
      return;
    }
    if (!box) {
      box = document.createElement('span');
      box.className = 'g-share';
      gutter.append(box);
    }
    while (box.children.length > n) box.lastElementChild?.remove();
    while (box.children.length < n) box.append(document.createElement('span'));
    this.lanes.forEach((lane, i) => {
      const label = /** @type {HTMLElement} */ (box.children[i]);
      label.textContent = t('lane.share.label', { n: i + 1 });
      label.title = t('lane.share.title', { group: lane.group, start: lane.startOffset, end: lane.endOffset });
    });
  }

  /**
   * @param {HTMLElement} slot
   * @param {number} n
   * @param {number} now
   */
  drawSlot(slot, n, now) {
    let box = slot.querySelector('.share-lanes');
    // Slots past the next offset hold no offset and no lane.
    if (!n || slot.dataset.offset === undefined || slot.hidden) {
      box?.remove();
      return;
    }
    if (!box) {
      box = document.createElement('div');
      box.className = 'share-lanes';
      slot.append(box);
    }
    while (box.children.length > n) box.lastElementChild?.remove();
    while (box.children.length < n) {
      const cell = document.createElement('div');
      cell.className = 'share-lane';
      cell.dataset.testid = 'share-lane';
      box.append(cell);
    }
    const offset = Number(slot.dataset.offset);
    const cells = box.children;
    this.lanes.forEach((lane, i) => this.fillCell(/** @type {HTMLElement & {_key?: string}} */ (cells[i]), lane, offset, now));
  }

  /**
   * @param {HTMLElement & {_key?: string}} cell
   * @param {ShareLane} lane
   * @param {number} offset
   * @param {number} now
   */
  fillCell(cell, lane, offset, now) {
    const c = shareCell(lane, offset, this.workers.get(lane.group) || new Map(), now);
    const why = c.whyKey ? WHY[c.whyKey]?.() ?? c.whyKey : '';
    const short = c.whyKey ? `${c.short} ${WHY_SHORT[c.whyKey]?.() ?? ''}`.trim() : c.short;
    const sentence = c.key ? SENTENCE[c.key]({ ...c.args, why }) : '';
    const key = [lane.group, offset, c.state, short, sentence, c.spso, c.speo].join('|');
    if (cell._key === key) return;
    cell._key = key;
    cell.dataset.group = lane.group;
    cell.dataset.offset = String(offset);
    cell.dataset.state = c.state;
    cell.dataset.spso = String(c.spso);
    cell.dataset.speo = String(c.speo);
    if (c.whyKey) cell.dataset.why = c.whyKey;
    else delete cell.dataset.why;
    cell.textContent = short;
    cell.title = sentence;
    if (sentence) cell.setAttribute('aria-label', sentence);
    else cell.removeAttribute('aria-label');
  }
}
