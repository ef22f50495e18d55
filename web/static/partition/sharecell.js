// sharecell.js: what a share lane shows at one offset, with no page
// around it. A lane is one share group's state on the partition (KIP-932),
// as GET …/share and the live feed's share messages carry it:
// {group, startOffset, endOffset, highWatermark, records: [{offset, state,
// deliveryCount, member?, lockExpiresAt?, why?}]}.

/**
 * @typedef {Pick<import('../types/wire.js').SharePartition, 'group' | 'startOffset' | 'endOffset' | 'highWatermark' | 'records' | 'settled'>} ShareLane
 * @typedef {{state: string, short: string, whyKey: string, key: string, args: Record<string, string|number>, spso: boolean, speo: boolean}} ShareCell
 */

/**
 * workerNames numbers a lane's members W1, W2 … in the order they first hold a record.
 *
 * @param {{records: {member?: string}[] | null}} lane
 * @param {Map<string, string>} [names] the names so far, extended
 * @returns {Map<string, string>}
 */
export function workerNames(lane, names = new Map()) {
  for (const r of lane.records || []) {
    if (r.member && !names.has(r.member)) names.set(r.member, 'W' + (names.size + 1));
  }
  return names;
}

/**
 * shareCell is what lane shows at offset at time now (ms): its state
 * ('none' past the high watermark, 'done' below the start offset,
 * 'unknown' where the lane carries no record), a short label, the
 * sentence (catalogue key and arguments) and whether the SPSO or the
 * SPEO points at it.
 *
 * @param {ShareLane} lane
 * @param {number} offset
 * @param {Map<string,string>} workers
 * @param {number} now
 * @returns {ShareCell}
 */
export function shareCell(lane, offset, workers, now) {
  const spso = offset === lane.startOffset;
  const speo = offset === lane.endOffset && lane.endOffset > lane.startOffset;
  /** @type {Record<string, string|number>} */
  const args0 = { group: lane.group, offset };
  const base = { spso, speo, short: '', whyKey: '', args: args0 };
  if (offset >= lane.highWatermark) return { ...base, state: 'none', key: '' };
  if (lane.startOffset < 0) return { ...base, state: 'unknown', key: '' };
  // Below the start offset: what the broker still tells of the offsets it
  // passed (settled: accepted or rejected), else just "done".
  const settled = offset < lane.startOffset ? (lane.settled || []).find((x) => x.offset === offset) : undefined;
  if (offset < lane.startOffset && !settled) return { ...base, state: 'done', short: '', key: 'lane.share.done' };
  const r = settled || (lane.records || []).find((x) => x.offset === offset);
  if (!r) return { ...base, state: 'unknown', key: '' };
  const args = { ...base.args, attempts: r.deliveryCount };
  switch (r.state) {
    case 'acquired': {
      // The dashboard's own workers by their names; others W1, W2 ….
      const worker = r.worker || (r.member && workers.get(r.member)) || '?';
      const seconds = r.lockExpiresAt ? Math.max(0, Math.ceil((Date.parse(r.lockExpiresAt) - now) / 1000)) : 0;
      return { ...base, state: 'acquired', short: `${worker} #${r.deliveryCount} ${seconds}s`, key: 'lane.share.acquired', args: { ...args, worker, seconds } };
    }
    case 'acknowledged':
      return { ...base, state: 'acknowledged', short: '✓', key: 'lane.share.acknowledged', args };
    case 'archived':
      return { ...base, state: 'archived', short: '✗', whyKey: r.why || 'rejected', key: 'lane.share.archived', args };
    case 'inFlight':
      return { ...base, state: 'inFlight', short: `… #${r.deliveryCount}`, key: 'lane.share.inFlight', args };
    default:
      return { ...base, state: 'available', short: r.deliveryCount ? `○ #${r.deliveryCount}` : '○', key: 'lane.share.available', args };
  }
}
