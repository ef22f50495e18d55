// details.js: the offset details (the dock's Details tab), filled from the
// hovered or selected cell's entry. A label sits above its value so a JSON
// value has the dock's whole width; the value is printed once — JSON
// pretty-printed, binary as a hex dump — and "Copy value" copies it.

import { describeKind } from './logview.js';
import { laneReason } from './cells.js';
import { onLanguage, t } from '../common/i18n.js';
import { alias, reportedEpochs } from './producers.js';

// The last details shown, redrawn in the new language after a switch.
/** @type {Parameters<typeof showDetails>|null} the panel's last content, shown again in another language */
let last = null;
let copyText = null;
/** @type {(offset: number) => void} */
let jumpTo = () => {};
onLanguage(() => {
  if (last) showDetails(...last);
});

/**
 * setupDetails wires the Copy value button and the links to other offsets.
 * @param {(offset: number) => void} jump selects and shows an offset
 */
export function setupDetails(jump) {
  jumpTo = jump;
  const button = document.getElementById('details-copy');
  button?.addEventListener('click', () => copy(button));
}

/**
 * schemaRows shows a value written through a Schema Registry: its schema
 * (id, subject, version, type) and the value decoded as JSON, or the
 * sentence saying why it stays raw; the raw bytes follow as for any value.
 */
function schemaRows(dl, entry) {
  const s = entry.schema;
  row(dl, 'Schema', t(s.subject ? 'details.schema' : 'details.schemaId', { id: s.id, subject: s.subject || '', version: s.version || 0, type: s.type || '?' }));
  if (entry.decoded !== undefined) {
    const pre = document.createElement('pre');
    pre.dataset.json = 'true';
    pre.dataset.testid = 'details-decoded';
    highlight(pre, JSON.stringify(entry.decoded, null, 2));
    const dd = row(dl, 'Decoded', pre);
    if (entry.decodeProblem) dd.append(problemNote(entry.decodeProblem)); // decoded, yet refused by its schema
  } else if (entry.decodeProblem) {
    row(dl, 'Decoded', problemNote(entry.decodeProblem));
  }
}

/** problemNote is why a value stays raw, or why its schema refuses it. */
function problemNote(problem) {
  const p = document.createElement('p');
  p.className = 'note';
  p.dataset.testid = 'details-decode-problem';
  p.textContent = t(problem.key, problem.args);
  return p;
}

/** row adds a field; its name is translated, data-field keeps the English name. */
function row(dl, name, value) {
  const dt = document.createElement('dt');
  dt.textContent = name.startsWith('read_') ? name : t('details.f.' + name.replace(/ /g, '_'));
  const dd = document.createElement('dd');
  if (value instanceof Node) dd.append(value);
  else dd.textContent = value;
  dd.dataset.field = name;
  dl.append(dt, dd);
  return dd;
}

/** bytesOf decodes base64 into bytes. */
function bytesOf(b64) {
  try {
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

/**
 * hexDump writes bytes as kafka-dump-log's readers expect: offset, 16 hex bytes, ASCII.
 * @param {Uint8Array} bytes
 */
export function hexDump(bytes) {
  const lines = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const chunk = [...bytes.slice(i, i + 16)];
    const hex = chunk.map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = chunk.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${i.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  |${ascii}|`);
  }
  return lines.join('\n');
}

/**
 * pretty is a value as the panel prints it: JSON indented, other text as is.
 * @param {string} value
 */
export function pretty(value) {
  const s = value.trim();
  if ((s.startsWith('{') && s.endsWith('}')) || (s.startsWith('[') && s.endsWith(']'))) {
    try {
      return JSON.stringify(JSON.parse(s), null, 2);
    } catch {
      return value;
    }
  }
  return value;
}

// JSON_TOKEN finds the parts of indented JSON worth telling apart: a
// string (a key when a colon follows), a number, true, false, null.
const JSON_TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

/**
 * highlight fills pre with JSON text, its keys, strings, numbers and
 * literals in spans of their own (.j-key, .j-str, .j-num, .j-lit): the same
 * text, told apart by colour and, for keys and literals, weight.
 * @param {HTMLElement} pre
 * @param {string} json
 */
export function highlight(pre, json) {
  let at = 0;
  const part = (cls, text) => {
    const s = document.createElement('span');
    s.className = cls;
    s.textContent = text;
    return s;
  };
  for (const m of json.matchAll(JSON_TOKEN)) {
    if (m.index > at) pre.append(json.slice(at, m.index));
    if (m[1] !== undefined) {
      pre.append(part(m[2] ? 'j-key' : 'j-str', m[1]));
      if (m[2]) pre.append(m[2]);
    } else if (m[3] !== undefined) {
      pre.append(part('j-num', m[3]));
    } else {
      pre.append(part('j-lit', m[4]));
    }
    at = m.index + m[0].length;
  }
  if (at < json.length) pre.append(json.slice(at));
}

/** isJSON reports whether pretty() read value as JSON. */
function isJSON(value) {
  const s = value.trim();
  if (!((s.startsWith('{') && s.endsWith('}')) || (s.startsWith('[') && s.endsWith(']')))) return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

// CONTROL_CHARS are characters no one can read on screen (tab and line
// breaks are fine).
const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** valueNode is a key or value: null, a hex dump of binary, or its (pretty) text. */
function valueNode(value, encoding, truncated) {
  const pre = document.createElement('pre');
  if (value === null || value === undefined) {
    pre.textContent = 'null';
    return [pre, null];
  }
  let text;
  let raw;
  if (encoding === 'base64') {
    const bytes = bytesOf(value);
    text = t('details.hexOf', { count: bytes.length }) + '\n' + hexDump(bytes);
    raw = hexDump(bytes);
  } else if (CONTROL_CHARS.test(value)) {
    // UTF-8, but not text a person can read (a marker's key and value):
    // the bytes, as for binary.
    const bytes = new TextEncoder().encode(value);
    text = t('details.hexControl', { count: bytes.length }) + '\n' + hexDump(bytes);
    raw = hexDump(bytes);
  } else {
    text = pretty(value);
    raw = value;
  }
  if (truncated) text += t('details.cut');
  if (encoding !== 'base64' && !truncated && isJSON(value)) {
    pre.dataset.json = 'true';
    highlight(pre, text);
  } else {
    pre.textContent = text;
  }
  return [pre, raw];
}

function linkTo(offset) {
  const b = document.createElement('button');
  b.type = 'button';
  b.dataset.testid = 'details-link';
  b.dataset.offset = String(offset);
  b.textContent = t('details.goTo', { offset });
  b.addEventListener('click', () => jumpTo(offset));
  return b;
}

function para(text, cls) {
  const p = document.createElement('p');
  if (cls) p.className = cls;
  p.textContent = text;
  return p;
}

async function copy(button) {
  if (copyText === null) return;
  let ok = false;
  try {
    await navigator.clipboard.writeText(copyText);
    ok = true;
  } catch {
    // Not a secure context (a classroom address over http): select the
    // value so Ctrl+C copies it.
    const pre = document.querySelector('#details-list [data-field="Value"] pre');
    if (pre) {
      const range = document.createRange();
      range.selectNodeContents(pre);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      ok = document.execCommand?.('copy') ?? false;
    }
  }
  button.textContent = t(ok ? 'details.copied' : 'details.copySelected');
  setTimeout(() => { button.textContent = t('details.copy'); }, 2000);
}

/**
 * showDetails fills the panel. offset null clears it.
 * @param {number|null} offset
 * @param {import('../types/wire.js').Entry|undefined} entry
 * @param {import('../types/wire.js').Pointers|null} pointers
 * @param {boolean} transient true while hovering (not selected)
 * @param {{kind: string, of: number}|null} copyOf the earlier offset this record repeats
 * @param {{from: number, to: number}|null} epochRise a marker's epoch above its records'
 */
export function showDetails(offset, entry, pointers, transient, copyOf, epochRise) {
  const dl = document.getElementById('details-list');
  const hint = document.getElementById('details-hint');
  const panel = document.getElementById('details');
  const copyButton = document.getElementById('details-copy');
  last = [offset, entry, pointers, transient, copyOf, epochRise];
  dl.replaceChildren();
  panel.dataset.offset = offset === null ? '' : String(offset);
  panel.dataset.transient = String(!!transient);
  copyText = null;
  copyButton.hidden = true;
  if (offset === null) {
    hint.hidden = false;
    return;
  }
  hint.hidden = true;
  row(dl, 'Offset', String(offset));
  if (!entry) {
    row(dl, 'State', pointers && offset >= pointers.highWatermark ? t('details.notWritten') : t('cell.loading'));
    return;
  }
  row(dl, 'What', describeKind(entry));
  // A value written through a Schema Registry: decoded, near the top, so
  // that it shows without scrolling; the raw bytes come with the rest.
  if (entry.schema) schemaRows(dl, entry);
  if (copyOf) {
    const box = document.createElement('div');
    box.append(para(t(copyOf.kind === 'retry' ? 'details.retryOf' : 'details.sameAs', { offset: copyOf.of }), 'note'), linkTo(copyOf.of));
    row(dl, 'Copy', box).dataset.testid = 'details-copy-of';
  }
  if (entry.kind !== 'gap') {
    row(dl, 'Batch', entry.batchBaseOffset === entry.batchLastOffset ? t('details.batchOne', { offset: entry.batchBaseOffset }) : t('details.batch', { from: entry.batchBaseOffset, to: entry.batchLastOffset }));
    const pid = Number(entry.producerId) >= 0;
    row(dl, 'Producer id', pid ? (alias(entry.producerId) ? t('details.pidAlias', { pid: entry.producerId, alias: alias(entry.producerId) }) : String(entry.producerId)) : t('details.noPid'));
    const epoch = row(dl, 'Producer epoch', String(entry.producerEpoch));
    const said = pid ? reportedEpochs(entry.producerId) : [];
    if (epochRise) {
      epoch.append(para(t('details.markerEpochNote', epochRise), 'note'));
      epoch.dataset.markerEpochNote = 'true';
    } else if (said.length && !said.includes(entry.producerEpoch)) {
      epoch.append(para(t('details.epochNote', { epoch: entry.producerEpoch, reported: said.join(', ') }), 'note'));
      epoch.dataset.epochNote = 'true';
    }
    row(dl, 'Sequence', entry.sequence >= 0 ? String(entry.sequence) : t('details.noSeq'));
    const yn = (b) => t(b ? 'details.yes' : 'details.no');
    row(dl, 'Flags', t('details.flags', { transactional: yn(entry.transactional), control: yn(entry.control) }));
    row(dl, 'Transaction', entry.kind === 'control' ? t('details.markerOf', { marker: entry.marker }) : t('details.txn.' + entry.txn));
    row(dl, 'Compression', entry.compression);
    row(dl, 'Timestamp', entry.timestamp ? new Date(entry.timestamp).toISOString() : t('details.none'));
    row(dl, 'Key', valueNode(entry.key, entry.keyEncoding, false)[0]);
    const [value, raw] = valueNode(entry.value, entry.valueEncoding, entry.valueTruncated);
    row(dl, 'Value', value);
    if (raw !== null && entry.kind === 'data') {
      copyText = raw;
      copyButton.hidden = false;
      copyButton.textContent = t('details.copy');
    }
    const headers = entry.headers || [];
    const text = (h) => (h.valueEncoding === 'null' ? 'null' : h.valueEncoding === 'base64' ? t('details.base64', { value: h.value }) : h.value);
    const shown = headers.length ? headers.map((h) => `${h.key}${h.keyTruncated ? '…' : ''}=${text(h)}`).join('; ') : t('details.none');
    row(dl, 'Headers', entry.headersTruncated ? shown + t('details.headersCut', { shown: headers.length, count: entry.headerCount }) : shown);
  }
  const rc = laneReason(entry, 'rc', pointers);
  const ru = laneReason(entry, 'ru', pointers);
  const lane = (r) => (r === '' ? t('details.receives') : t('details.skips', { reason: t('lane.reason.' + r.replace(/ /g, '_')) }));
  row(dl, 'read_committed', lane(rc));
  row(dl, 'read_uncommitted', lane(ru));
}
