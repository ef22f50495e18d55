// details.js: the offset details panel, filled from the hovered or
// selected cell's entry.

import { describe, laneReason } from './logview.js';

function row(dl, name, value) {
  const dt = document.createElement('dt');
  dt.textContent = name;
  const dd = document.createElement('dd');
  dd.textContent = value;
  dd.dataset.field = name;
  dl.append(dt, dd);
}

function bytes(value, encoding, truncated) {
  if (value === null || value === undefined) return 'null';
  let s = encoding === 'base64' ? `${value} (base64: not UTF-8 text)` : value;
  if (truncated) s += ' … (cut; the record holds more)';
  return s;
}

/**
 * showDetails fills the panel. offset null clears it.
 * @param {object|undefined} entry
 * @param {object|null} pointers
 * @param {boolean} transient true while hovering (not selected)
 */
export function showDetails(offset, entry, pointers, transient) {
  const dl = document.getElementById('details-list');
  const hint = document.getElementById('details-hint');
  const panel = document.getElementById('details');
  dl.replaceChildren();
  panel.dataset.offset = offset === null ? '' : String(offset);
  panel.dataset.transient = String(!!transient);
  if (offset === null) {
    hint.hidden = false;
    return;
  }
  hint.hidden = true;
  row(dl, 'Offset', String(offset));
  if (!entry) {
    row(dl, 'State', pointers && offset >= pointers.highWatermark ? 'not written yet (high watermark)' : 'loading…');
    return;
  }
  row(dl, 'What', describe(entry));
  if (entry.kind !== 'gap') {
    row(dl, 'Batch', entry.batchBaseOffset === entry.batchLastOffset ? `offset ${entry.batchBaseOffset} (one record)` : `offsets ${entry.batchBaseOffset}–${entry.batchLastOffset}`);
    row(dl, 'Producer id', entry.producerId >= 0 ? String(entry.producerId) : 'none (-1): not idempotent');
    row(dl, 'Producer epoch', String(entry.producerEpoch));
    row(dl, 'Sequence', entry.sequence >= 0 ? String(entry.sequence) : 'none (-1)');
    row(dl, 'Flags', `transactional ${entry.transactional ? 'yes' : 'no'} · control ${entry.control ? 'yes' : 'no'}`);
    row(dl, 'Transaction', entry.kind === 'control' ? `${entry.marker} marker` : entry.txn);
    row(dl, 'Compression', entry.compression);
    row(dl, 'Timestamp', entry.timestamp ? new Date(entry.timestamp).toISOString() : 'none');
    row(dl, 'Key', bytes(entry.key, entry.keyEncoding, false));
    row(dl, 'Value', bytes(entry.value, entry.valueEncoding, entry.valueTruncated));
    const headers = entry.headers || [];
    row(dl, 'Headers', headers.length ? headers.map((h) => `${h.key}=${h.valueEncoding === 'null' ? 'null' : bytes(h.value, h.valueEncoding, h.valueTruncated)}`).join('; ') : 'none');
  }
  const rc = laneReason(entry, 'rc', pointers);
  const ru = laneReason(entry, 'ru', pointers);
  row(dl, 'read_committed', rc === '' ? 'receives it' : `skips it (${rc})`);
  row(dl, 'read_uncommitted', ru === '' ? 'receives it' : `skips it (${ru})`);
}
