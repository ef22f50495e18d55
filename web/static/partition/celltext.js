// celltext.js: the words of the log's cells, in the chosen language: a
// record's key, value and tag, what a copy repeats, a lane's reason, a pointer's
// title, and the sentence a screen reader says for a cell. No DOM: the
// cells (logrows.js), the details panel and the table read them.

import { fmt } from '../common/api.js';
import { t } from '../common/i18n.js';
import { producerLabel } from './producers.js';

/**
 * reasonText is a lane reason (an English code kept in data-reason) in the chosen language.
 * @param {string} reason
 */
export function reasonText(reason) {
  return t('lane.reason.' + reason.replace(/ /g, '_'));
}

/**
 * isTombstone: a data record with a key and a null value, which deletes its
 * key on a compacted topic.
 * @param {import('../types/wire.js').Entry} e
 */
export function isTombstone(e) {
  return e.kind === 'data' && (e.value === null || e.value === undefined) && e.key !== null && e.key !== undefined;
}

/**
 * valueText is what a cell shows as its value: a marker's name, a gap, a null, binary or the text.
 * @param {import('../types/wire.js').Entry} e
 */
export function valueText(e) {
  if (e.kind === 'control') return e.marker ? e.marker : t('cell.controlRecord');
  if (e.kind === 'gap') return t('cell.noRecord');
  if (isTombstone(e)) return t('cell.tombstoneWord');
  if (e.value === null || e.value === undefined) return t('cell.nullValue');
  if (e.valueEncoding === 'base64') return t('cell.binary', { value: e.value });
  return e.value + (e.valueTruncated ? '…' : '');
}

/** KEY_SHOWN is how many characters of a key a cell shows before "…". */
const KEY_SHOWN = 12;

/**
 * keyText is what a cell shows of a data record's key before its value:
 * the key's first characters (a binary key as the word), '' without a key.
 * @param {import('../types/wire.js').Entry} e
 */
export function keyText(e) {
  if (e.kind !== 'data' || e.key === null || e.key === undefined) return '';
  if (e.keyEncoding === 'base64') return t('cell.binaryKey');
  const chars = [...e.key];
  return chars.length > KEY_SHOWN ? chars.slice(0, KEY_SHOWN - 1).join('') + '…' : e.key + (e.keyTruncated ? '…' : '');
}

/**
 * copyText says in words what a copy repeats (the badge's tooltip and the cell's label).
 * @param {{kind: string, of: number}} copy
 */
export function copyText(copy) {
  return t(copy.kind === 'retry' ? 'cell.retryOfText' : 'cell.sameAsText', { offset: fmt(copy.of) });
}

/** gapKeys are the legend and screen-reader keys of a gap, by its reason (the log API's). */
const gapKeys = {
  compacted: ['legend.gapCompacted', 'cell.describeGapCompacted'],
  beforeLogStart: ['legend.gapDeleted', 'cell.describeGapDeleted'],
};
function gapKey(e, i) {
  return (gapKeys[e.reason] || ['legend.gap', 'cell.describeGap'])[i];
}

/**
 * tagText is the cell's kind in a word: marker, gap, committed, aborted, open or plain data.
 * @param {import('../types/wire.js').Entry} e
 */
export function tagText(e) {
  if (e.kind === 'control') return t('cell.marker');
  if (e.kind === 'gap') return t(gapKey(e, 0));
  switch (e.txn) {
    case 'committed': return t('legend.committed');
    case 'aborted': return t('legend.aborted');
    case 'open': return t('legend.open');
    default: return t('legend.data');
  }
}

/**
 * describeKind says what a cell is without its value (the details print the value once, below).
 * @param {import('../types/wire.js').Entry} e
 */
export function describeKind(e) {
  if (e.kind === 'control') return t('cell.describeMarker', { marker: e.marker || 'control', producer: producerLabel(e.producerId), epoch: e.producerEpoch });
  if (e.kind === 'gap') return t(gapKey(e, 1));
  return t({ committed: 'legend.committedSr', aborted: 'legend.abortedSr', open: 'cell.describeOpen' }[e.txn] || 'cell.describeNoTxn');
}

/**
 * describe is a cell's sentence for screen readers.
 * @param {import('../types/wire.js').Entry} e
 */
export function describe(e) {
  if (e.kind === 'control') return t('cell.describeMarker', { marker: e.marker || 'control', producer: producerLabel(e.producerId), epoch: e.producerEpoch });
  if (e.kind === 'gap') return t(gapKey(e, 1));
  const what = t({ committed: 'legend.committedSr', aborted: 'legend.abortedSr', open: 'cell.describeOpen' }[e.txn] || 'cell.describeNoTxn');
  if (e.key !== null && e.key !== undefined) return t('cell.describeKeyed', { what, key: e.keyEncoding === 'base64' ? t('cell.binaryKey') : e.key, value: valueText(e) });
  return t('cell.describe', { what, value: valueText(e) });
}

/**
 * pointerTitle is a pointer's tooltip: what the log start, the LSO, the HW or a group's committed offset means.
 * @param {{id: string, value: number}} f a pointer flag: its id (logstart, lso, hw, group:NAME) and offset
 */
export function pointerTitle(f) {
  if (f.id === 'logstart') return t('pointer.titleLogStart', { value: f.value });
  if (f.id === 'lso') return t('pointer.titleLso', { value: f.value });
  if (f.id === 'hw') return t('pointer.titleHw', { value: f.value });
  return t('pointer.titleGroup', { group: f.id.slice('group:'.length), value: f.value });
}
