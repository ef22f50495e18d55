// tableview.js: the log as a table, one row per offset — offset, the
// pointers at it, time, key, value, headers, the outcome (committed,
// aborted, open, a COMMIT or ABORT marker: a symbol and a word, in the
// cells' colours and shapes) and what each consumer lane receives (✓ or
// ✗, the reason in the label). What kafka-ui or AKHQ show as their
// messages table, with the transaction's outcome and the two isolation
// levels beside it. logview.js virtualises it like the cells (only the
// rows on screen exist) when its table mode is on; this module builds and
// fills a row.

import { fmt } from '../common/api.js';
import { t, tr } from '../common/i18n.js';

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// COLUMNS: class, header key, test id. The lanes' headers are short (RC,
// RU) with the isolation level's name as their label.
const COLUMNS = [
  ['t-off', 'table.col.offset', 'row-offset'],
  ['t-ptr', 'table.col.pointers', 'row-pointers'],
  ['t-time', 'table.col.time', 'row-time'],
  ['t-key', 'table.col.key', 'row-key'],
  ['t-val', 'table.col.value', 'row-value'],
  ['t-hdr', 'table.col.headers', 'row-headers'],
  ['t-out', 'table.col.outcome', 'row-outcome'],
  ['t-rc', 'table.col.rc', 'row-rc'],
  ['t-ru', 'table.col.ru', 'row-ru'],
];

/** KEY_CHARS bounds the Key column: its header and "null" at least, keys of 24 characters whole at most. */
const KEY_CHARS = { min: 5, max: 24 };

/**
 * keyColumnChars is how many characters wide the Key column is for the
 * rows of offsets from..to: the longest key among them, within KEY_CHARS
 * (a longer key ends in "…", whole in its title). The value gets the rest.
 * @param {{get: (offset: number) => import('../types/wire.js').Entry|undefined}} cache
 * @param {number} from
 * @param {number} to
 */
export function keyColumnChars(cache, from, to) {
  let n = KEY_CHARS.min;
  for (let o = from; o <= to && n < KEY_CHARS.max; o++) {
    const e = cache.get(o);
    if (e && e.kind === 'data' && e.key !== null && e.key !== undefined) n = Math.max(n, bytesText(e.key, e.keyEncoding, e.keyTruncated).text.length);
  }
  return Math.min(n, KEY_CHARS.max) + 1;
}

/** makeTableHead is the header row, kept over the rows while they scroll. */
export function makeTableHead() {
  const head = el('div', 'thead');
  head.setAttribute('role', 'row');
  head.setAttribute('aria-rowindex', '1');
  head.dataset.testid = 'table-head';
  for (const [cls, key] of COLUMNS) {
    const h = tr(el('span', cls), key);
    h.setAttribute('role', 'columnheader');
    if (cls === 't-rc' || cls === 't-ru') {
      const name = cls === 't-rc' ? 'read_committed' : 'read_uncommitted';
      h.title = name;
      h.setAttribute('aria-label', name);
    }
    head.append(h);
  }
  return head;
}

/** makeTableRow is an empty row; fillTableRow writes an offset into it. */
export function makeTableRow() {
  const row = el('div', 'trow');
  row.setAttribute('role', 'row');
  row.tabIndex = -1;
  row.dataset.testid = 'log-row';
  for (const [cls, , id] of COLUMNS) {
    const c = el('span', cls);
    c.setAttribute('role', 'cell');
    c.dataset.testid = id;
    row.append(c);
  }
  return row;
}

/** pad2 writes a number in two digits (three for milliseconds). */
const pad = (n, w = 2) => String(n).padStart(w, '0');

/**
 * timeText is a timestamp as the table shows it: the local date and time,
 * MM-DD HH:MM:SS.mmm (the year and UTC in its title).
 * @param {number|string} ms a time: milliseconds since the epoch or an ISO string (a record's timestamp)
 */
export function timeText(ms) {
  if (!ms && ms !== 0) return '';
  const d = new Date(ms);
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** bytesText is a key or value as one line: text, null, or binary (base64). */
function bytesText(v, encoding, truncated) {
  if (v === null || v === undefined) return { text: 'null', cls: 'null' };
  if (encoding === 'base64') return { text: t('cell.binary', { value: v }), cls: 'binary' };
  return { text: v + (truncated ? '…' : ''), cls: '' };
}

function headerText(headers) {
  if (!headers || !headers.length) return '';
  const one = (h) => `${h.key}=${h.valueEncoding === 'null' ? 'null' : h.value}`;
  return headers.map(one).join('; ');
}

/** outcomeKey names a row's outcome sentence and symbol class. */
function outcome(e, kind) {
  if (kind === 'next') return ['table.out.next', 'next'];
  if (!e) return ['cell.loading', 'loading'];
  if (e.kind === 'gap') return [{ compacted: 'table.out.gapCompacted', beforeLogStart: 'table.out.gapDeleted' }[e.reason] || 'table.out.gap', 'gap'];
  if (e.kind === 'control') return [e.marker === 'ABORT' ? 'table.out.abortMarker' : 'table.out.commitMarker', e.marker === 'ABORT' ? 'abort' : 'commit'];
  return [{ committed: 'table.out.committed', aborted: 'table.out.aborted', open: 'table.out.open' }[e.txn] || 'table.out.none', e.txn || 'none'];
}

function setText(node, text, title) {
  if (node.textContent !== text) node.textContent = text;
  if (title !== undefined) node.title = title;
}

/**
 * fillTableRow writes offset into row.
 * @param {HTMLElement} row
 * @param {number} offset
 * @param {{e: import('../types/wire.js').Entry|undefined, kind: string, label: string, selected: boolean, marked: boolean,
 *   flags: {id: string, kind: string, short: string, title: string}[], copy: {badge: string, text: string}|null,
 *   lane: (which: string) => {reason: string, text: string, label: string}}} ctx what the row shows
 */
export function fillTableRow(row, offset, ctx) {
  const { e, kind } = ctx;
  const [off, ptr, time, key, val, hdr, out, rc, ru] = /** @type {HTMLElement[]} */ ([...row.children]);
  row.dataset.offset = String(offset);
  row.dataset.kind = kind;
  row.dataset.txn = e ? e.txn : 'none';
  if (e && e.marker) row.dataset.marker = e.marker;
  else delete row.dataset.marker;
  row.setAttribute('aria-selected', String(!!ctx.selected));
  if (ctx.marked) row.dataset.marked = 'true';
  else delete row.dataset.marked;
  row.setAttribute('aria-label', ctx.label);

  setText(off, fmt(offset));
  // Pointers: the first two as flags, the rest counted (all in the title).
  ptr.replaceChildren();
  const flags = ctx.flags || [];
  for (const f of flags.slice(0, flags.length > 2 ? 1 : 2)) {
    const flag = el('span', 'tflag', f.short);
    flag.dataset.kind = f.kind;
    flag.dataset.pointer = f.id;
    ptr.append(flag);
  }
  if (flags.length > 2) ptr.append(el('span', 'tmore', `+${flags.length - 1}`));
  ptr.title = flags.map((f) => f.title).join('\n');

  const data = e && e.kind === 'data';
  setText(time, e && e.timestamp ? timeText(e.timestamp) : '', e && e.timestamp ? new Date(e.timestamp).toISOString() : '');
  const k = data ? bytesText(e.key, e.keyEncoding, e.keyTruncated) : { text: '', cls: '' };
  setText(key, k.text, k.text);
  key.dataset.style = k.cls;
  // The value: a copy's badge (≡ 2, ↻ 2) before it.
  val.replaceChildren();
  if (ctx.copy) {
    const badge = el('span', 'tcopy', ctx.copy.badge);
    badge.title = ctx.copy.text;
    badge.dataset.testid = 'copy-mark';
    val.append(badge, ' ');
  }
  let v;
  if (kind === 'next') v = { text: t('cell.next'), cls: 'muted' };
  else if (!e) v = { text: t('cell.loading'), cls: 'muted' };
  else if (e.kind === 'control') v = { text: e.marker ? t('details.markerOf', { marker: e.marker }) : t('cell.controlRecord'), cls: 'marker' };
  else if (e.kind === 'gap') v = { text: t('cell.noRecord'), cls: 'muted' };
  else if (e.kind === 'data' && e.value === null && e.key !== null) v = { text: t('cell.tombstone'), cls: 'tombstone' };
  else if (e.decoded !== undefined) v = { text: JSON.stringify(e.decoded), cls: 'decoded' }; // decoded with its registry schema
  else v = bytesText(e.value, e.valueEncoding, e.valueTruncated);
  val.append(el('span', 'tval', v.text));
  // The headers also in the value's title: a laptop's table has no room for their column.
  const headers = data ? headerText(e.headers) : '';
  val.title = headers ? `${v.text}\n${t('table.col.headers')}: ${headers}` : v.text;
  val.dataset.style = v.cls;
  setText(hdr, headers, headers);

  const [oKey, oClass] = outcome(e, kind);
  tr(out, oKey);
  out.dataset.outcome = oClass;

  for (const [cell, which] of /** @type {[HTMLElement, string][]} */ ([[rc, 'rc'], [ru, 'ru']])) {
    const l = ctx.lane(which);
    cell.dataset.offset = String(offset);
    cell.dataset.received = String(l.reason === '');
    cell.dataset.reason = l.reason;
    setText(cell, l.reason === 'next' || l.reason === 'loading' ? '' : l.reason === '' ? '✓' : '✗', l.text);
    if (l.label) cell.setAttribute('aria-label', l.label);
    else cell.removeAttribute('aria-label');
  }
}
