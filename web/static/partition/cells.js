// cells.js: what a cell of the log means, with no page around it: which
// consumer lane receives an offset and, when one does not, why (the
// offset model of internal/inspect, as the page shows it), and whether a
// record repeats an earlier one. logview.js draws from it, details.js
// explains with it.

/**
 * laneReason says why a consumer at an isolation level skips an offset, or '' when it receives it.
 * @param {import('../types/wire.js').Entry|undefined} e
 * @param {string} lane 'rc' (read_committed) or 'ru' (read_uncommitted)
 * @param {import('../types/wire.js').Pointers|null} pointers
 * @returns {string}
 */
export function laneReason(e, lane, pointers) {
  if (!e) return 'loading';
  if (e.kind === 'control') return 'marker';
  if (e.kind === 'gap') return 'gap';
  if (lane === 'rc') {
    if (e.readCommitted) return '';
    if (e.txn === 'aborted') return 'aborted';
    if (pointers && e.offset >= pointers.lastStableOffset) return 'beyond LSO';
    return 'not delivered';
  }
  if (e.readUncommitted) return '';
  if (pointers && e.offset >= pointers.highWatermark) return 'beyond HW';
  return 'not delivered';
}

/**
 * copyOf says which earlier offset a record repeats: our producer's retry
 * after a lost ACK (narrated by the server), else a record with the same
 * key and value earlier in the window (the entry's duplicateOf).
 * @param {import('../types/wire.js').Entry|undefined} e
 * @param {Map<number, number>} retries a retried send's offset -> the one whose ACK was lost
 * @returns {{kind: string, of: number}|null}
 */
export function copyOf(e, retries) {
  if (!e || e.kind !== 'data') return null;
  const retry = retries.get(e.offset);
  if (retry !== undefined && retry !== e.offset) return { kind: 'retry', of: retry };
  if (typeof e.duplicateOf === 'number') return { kind: 'same', of: e.duplicateOf };
  return null;
}
