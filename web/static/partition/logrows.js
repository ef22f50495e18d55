// logrows.js: the DOM of the log's rows. A row of cells is a gutter (the
// lanes' labels) and cols slots, each stacking pointer flags, the batch
// bracket, the cell and the two consumer lanes; in table mode a row is
// one offset (tableview.js). Filling a slot or a row rewrites it only
// when what it shows changed (its _key). A RowRenderer is handed the
// pointer flags' lines (logpointers.js) and, with each row, what the view
// shows (RowState).

import { fmt } from '../common/api.js';
import { copyOf, laneReason } from './cells.js';
import { t } from '../common/i18n.js';
import { alias, producerLabel } from './producers.js';
import { fillTableRow, makeTableRow } from './tableview.js';
import { copyText, describe, isTombstone, keyText, pointerTitle, reasonText, tagText, valueText } from './celltext.js';

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/**
 * @typedef {object} RowState what the rows show of the log view
 * @property {number} start the log start offset
 * @property {number} hw the high watermark: the next offset to be written
 * @property {number} cols offsets a row of cells holds
 * @property {import('../types/wire.js').Pointers} pointers
 * @property {{get: (offset: number) => import('../types/wire.js').Entry|undefined}} cache the entries known
 * @property {Map<number, number>} retryOf our producer's retries: offset to the send it repeats
 * @property {number|null} selected the selected offset
 * @property {Set<number>} marked the offsets the story's chosen entry points at
 */

/**
 * @typedef {import('./logpointers.js').Flag} Flag
 */

/** RowRenderer builds a row and writes an offset into a slot or a table row. */
export class RowRenderer {
  /**
   * @param {import('./logpointers.js').PointerFlags} flags the flags' room and short labels, laid out before the rows are filled
   */
  constructor(flags) {
    this.flags = flags;
  }

  /**
   * makeRow builds a row of cols slots, or a table row.
   * @param {number} cols
   * @param {boolean} table
   * @returns {HTMLElement}
   */
  makeRow(cols, table) {
    if (table) return makeTableRow();
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

  /**
   * fillRow writes offset into a row of the table (tableview.js).
   * @param {any} row
   * @param {number} offset
   * @param {Map<number, Flag[]>} flags
   * @param {RowState} s
   */
  fillRow(row, offset, flags, s) {
    const e = offset < s.hw ? s.cache.get(offset) : undefined;
    const kind = offset === s.hw ? 'next' : e ? e.kind : 'loading';
    const here = flags.get(offset) || [];
    const copy = copyOf(e, s.retryOf);
    const key = [offset, kind, e && e.txn, e && e.reason, e && e.marker, e && e.readCommitted, e && e.readUncommitted, e && e.key, e && e.value,
      e && e.timestamp, e && JSON.stringify(e.headers || []), here.map((f) => f.id + '=' + f.value).join(','), copy && copy.kind + copy.of,
      s.pointers.lastStableOffset, s.hw, s.selected === offset, s.marked.has(offset)].join('|');
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
      selected: s.selected === offset,
      marked: s.marked.has(offset),
      flags: here.map((f) => ({ id: f.id, kind: f.id.startsWith('group:') ? 'group' : f.id, short: shortName(f), title: pointerTitle(f) })),
      copy: copy ? { badge: t(copy.kind === 'retry' ? 'cell.retryOf' : 'cell.sameAs', { offset: fmt(copy.of) }), text: copyText(copy) } : null,
      lane: (which) => {
        if (kind === 'next') return { reason: 'next', text: '', label: '' };
        const name = which === 'rc' ? 'read_committed' : 'read_uncommitted';
        const reason = laneReason(e, which, s.pointers);
        const text = reason === '' ? t('lane.receives', { name, offset }) : t('lane.skips', { name, offset, reason: reasonText(reason) });
        return { reason, text, label: reason === 'loading' ? '' : text };
      },
    });
  }

  /**
   * fillSlot writes offset into a slot of a row of cells.
   * @param {any} slot
   * @param {number} offset
   * @param {Map<number, Flag[]>} flags
   * @param {RowState} s
   */
  fillSlot(slot, offset, flags, s) {
    const inLog = offset <= s.hw;
    const e = offset < s.hw ? s.cache.get(offset) : undefined;
    const kind = !inLog ? 'none' : offset === s.hw ? 'next' : e ? e.kind : 'loading';
    const here = inLog ? flags.get(offset) : undefined;
    const flagKey = here ? here.map((f) => f.id + '=' + f.value + (this.flags.short.has(f.id) ? 's' : '')).join(',') + '@' + (this.flags.room.get(offset) ?? '') : '';
    const copy = copyOf(e, s.retryOf);
    const key = [offset, kind, e && e.txn, e && e.reason, e && e.marker, e && e.readCommitted, e && e.readUncommitted,
      e && e.key, e && e.value, e && e.producerId, e && alias(e.producerId), e && e.batchBaseOffset, flagKey, copy && copy.kind + copy.of,
      s.pointers.lastStableOffset, s.hw, s.selected === offset, s.marked.has(offset)].join('|');
    if (slot._key === key) return;
    slot._key = key;
    slot.hidden = !inLog;
    if (!inLog) return;

    const [flagBox, batch, cell, rc, ru] = slot.children;
    slot.dataset.offset = offset;
    this.fillFlags(flagBox, slot, here);
    this.fillBatch(batch, offset, e, s);

    cell.dataset.offset = offset;
    cell.dataset.kind = kind;
    cell.dataset.txn = e ? e.txn : 'none';
    if (e && e.marker) cell.dataset.marker = e.marker;
    else delete cell.dataset.marker;
    if (e && e.kind === 'gap') cell.dataset.reason = e.reason || 'unknown';
    else delete cell.dataset.reason;
    if (e && isTombstone(e)) cell.dataset.tombstone = 'true';
    else delete cell.dataset.tombstone;
    if (copy) {
      cell.dataset.copy = copy.kind;
      cell.dataset.copyOf = copy.of;
    } else {
      delete cell.dataset.copy;
      delete cell.dataset.copyOf;
    }
    if (s.marked.has(offset)) cell.dataset.marked = 'true';
    else delete cell.dataset.marked;
    cell.setAttribute('aria-pressed', String(s.selected === offset));
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
      // The key first, on a line of its own, as kcat -K: prints it: "kiwi: tombstone".
      const k = keyText(e);
      if (k) val.replaceChildren(el('span', 'cell-key', k + ':'), ' ' + valueText(e));
      else val.textContent = valueText(e);
      const hasPid = Number(e.producerId) >= 0;
      // Narrow no-break spaces around the dots: the line fits a cell.
      pid.textContent = hasPid ? `${producerLabel(e.producerId)}\u202f·\u202fe${e.producerEpoch}` + (e.sequence >= 0 ? `\u202f·\u202fs${e.sequence}` : '') : '';
      cell.title = hasPid ? t('cell.pidTitle', { pid: e.producerId, alias: producerLabel(e.producerId), epoch: e.producerEpoch, sequence: e.sequence }) : '';
      tag.textContent = tagText(e);
      cell.setAttribute('aria-label', t('cell.aria', { offset, what: describe(e) }) + (copy ? '. ' + copyText(copy) : ''));
    }
    placeCopy(cell, off, val, mark);
    this.fillLane(rc, 'rc', offset, kind, e, s.pointers);
    this.fillLane(ru, 'ru', offset, kind, e, s.pointers);
  }

  /**
   * @param {any} box
   * @param {any} slot
   * @param {Flag[]|undefined} here the flags at the slot's offset
   */
  fillFlags(box, slot, here) {
    box.replaceChildren();
    slot.classList.toggle('pointed', !!here);
    // The room up to the next pointed offset (flaglines.js): the flags
    // wrap within it instead of running over their neighbours' or out of the row.
    const room = here ? this.flags.room.get(Number(slot.dataset.offset)) : undefined;
    box.style.width = room === undefined ? '' : `${room}px`;
    if (!here) return;
    here.forEach((f, i) => {
      const label = this.flags.short.has(f.id) ? t('legend.group') : f.label;
      // The offset's number once, after its last flag (flaglines.js measures them so).
      const flag = el('span', 'flag', i === here.length - 1 ? `${label} ${fmt(f.value)}` : label);
      flag.dataset.testid = 'pointer';
      flag.dataset.pointer = f.id;
      flag.dataset.value = f.value;
      flag.dataset.kind = f.id.startsWith('group:') ? 'group' : f.id;
      flag.title = pointerTitle(f);
      box.append(flag);
    });
  }

  /**
   * @param {any} batch
   * @param {number} offset
   * @param {import('../types/wire.js').Entry|undefined} e
   * @param {RowState} s
   */
  fillBatch(batch, offset, e, s) {
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
    const rowStart = (offset - s.start) % s.cols === 0;
    label.textContent = base !== last && (offset === base || rowStart) ? t('cell.batch', { from: fmt(base), to: fmt(last) }) : '';
  }

  /**
   * @param {any} lane
   * @param {'rc'|'ru'} which
   * @param {number} offset
   * @param {string} kind
   * @param {import('../types/wire.js').Entry|undefined} e
   * @param {import('../types/wire.js').Pointers} pointers
   */
  fillLane(lane, which, offset, kind, e, pointers) {
    lane.dataset.offset = offset;
    const name = which === 'rc' ? 'read_committed' : 'read_uncommitted';
    if (kind === 'next') {
      lane.dataset.received = 'false';
      lane.dataset.reason = 'next';
      lane.textContent = '';
      lane.removeAttribute('aria-label');
      return;
    }
    const reason = laneReason(e, which, pointers);
    lane.dataset.received = String(reason === '');
    lane.dataset.reason = reason;
    lane.textContent = reason === '' ? '✓' : reasonText(reason);
    lane.setAttribute('aria-label', reason === '' ? t('lane.receives', { name, offset }) : t('lane.skips', { name, offset, reason: reasonText(reason) }));
  }
}

/**
 * placeCopy puts a copy's badge (≡ n, ↻ n) in the cell's top right, beside
 * its offset, or where the two do not fit side by side (a long offset, a
 * narrow cell) at the start of the value's first line, which indents to
 * make room: the cell keeps its height, so its tag stays whole, and
 * neither number covers the other.
 * @param {HTMLElement} cell
 * @param {HTMLElement} off
 * @param {HTMLElement} val
 * @param {HTMLElement} mark
 */
function placeCopy(cell, off, val, mark) {
  delete cell.dataset.copyPlace;
  val.style.textIndent = '';
  mark.style.top = '';
  if (!mark.textContent || !cell.clientWidth) return;
  const room = cell.clientWidth - off.offsetLeft - off.offsetWidth;
  if (room >= mark.offsetWidth + 6) return;
  cell.dataset.copyPlace = 'line';
  mark.style.top = `${val.getBoundingClientRect().top - cell.getBoundingClientRect().top - cell.clientTop}px`;
  val.style.textIndent = `${mark.offsetWidth + 4}px`;
}

