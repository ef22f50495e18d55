// details.js: the offset details panel, filled from the hovered or
// selected cell's entry.

import { describe, laneReason } from './logview.js';
import { onLanguage, t } from './i18n.js';

// The last details shown, redrawn in the new language after a switch.
let last = null;
onLanguage(() => {
  if (last) showDetails(...last);
});

/** row adds a field; its name is translated, data-field keeps the English name. */
function row(dl, name, value) {
  const dt = document.createElement('dt');
  dt.textContent = name.startsWith('read_') ? name : t('details.f.' + name.replace(/ /g, '_'));
  const dd = document.createElement('dd');
  dd.textContent = value;
  dd.dataset.field = name;
  dl.append(dt, dd);
}

function bytes(value, encoding, truncated) {
  if (value === null || value === undefined) return 'null';
  let s = encoding === 'base64' ? t('details.base64', { value }) : value;
  if (truncated) s += t('details.cut');
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
  last = [offset, entry, pointers, transient];
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
    row(dl, 'State', pointers && offset >= pointers.highWatermark ? t('details.notWritten') : t('cell.loading'));
    return;
  }
  row(dl, 'What', describe(entry));
  if (entry.kind !== 'gap') {
    row(dl, 'Batch', entry.batchBaseOffset === entry.batchLastOffset ? t('details.batchOne', { offset: entry.batchBaseOffset }) : t('details.batch', { from: entry.batchBaseOffset, to: entry.batchLastOffset }));
    row(dl, 'Producer id', entry.producerId >= 0 ? String(entry.producerId) : t('details.noPid'));
    row(dl, 'Producer epoch', String(entry.producerEpoch));
    row(dl, 'Sequence', entry.sequence >= 0 ? String(entry.sequence) : t('details.noSeq'));
    const yn = (b) => t(b ? 'details.yes' : 'details.no');
    row(dl, 'Flags', t('details.flags', { transactional: yn(entry.transactional), control: yn(entry.control) }));
    row(dl, 'Transaction', entry.kind === 'control' ? t('details.markerOf', { marker: entry.marker }) : t('details.txn.' + entry.txn));
    row(dl, 'Compression', entry.compression);
    row(dl, 'Timestamp', entry.timestamp ? new Date(entry.timestamp).toISOString() : t('details.none'));
    row(dl, 'Key', bytes(entry.key, entry.keyEncoding, false));
    row(dl, 'Value', bytes(entry.value, entry.valueEncoding, entry.valueTruncated));
    const headers = entry.headers || [];
    row(dl, 'Headers', headers.length ? headers.map((h) => `${h.key}=${h.valueEncoding === 'null' ? 'null' : bytes(h.value, h.valueEncoding, h.valueTruncated)}`).join('; ') : t('details.none'));
  }
  const rc = laneReason(entry, 'rc', pointers);
  const ru = laneReason(entry, 'ru', pointers);
  const lane = (r) => (r === '' ? t('details.receives') : t('details.skips', { reason: t('lane.reason.' + r.replace(/ /g, '_')) }));
  row(dl, 'read_committed', lane(rc));
  row(dl, 'read_uncommitted', lane(ru));
}
