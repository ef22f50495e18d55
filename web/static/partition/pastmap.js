// pastmap.js: the heat strip of a replayed moment, with no page around it.
// While the replay shows the log as it was, the minimap's strip spans the
// log start to the high watermark of that moment, and its buckets count
// what the log held then: the offsets the recording holds (its snapshot
// and every entry after it) as the recording says they were — a
// transaction still open then is open on the strip — and the offsets
// older than the recording from the partition's live map (written before
// the recording began, they look as they look now), clipped to the
// moment's range.

/**
 * countKey is the map bucket's count an entry adds to (heat.js's COUNTS).
 * @param {import('../types/wire.js').Entry} e
 */
export function countKey(e) {
  if (e.kind === 'control') return e.marker === 'ABORT' ? 'abortMarkers' : 'commitMarkers';
  if (e.kind === 'gap') return 'gaps';
  return { committed: 'committed', aborted: 'aborted', open: 'open' }[e.txn] || 'plain';
}

/** gapKeys are a gap's per-reason counts, by the log API's reason. */
const gapKeys = { compacted: 'gapsCompacted', beforeLogStart: 'gapsBeforeLogStart' };

const COUNT_KEYS = ['plain', 'committed', 'commitMarkers', 'aborted', 'abortMarkers', 'open', 'gaps', 'gapsCompacted', 'gapsBeforeLogStart', 'gapsUnknown'];

function emptyBucket(from, to) {
  const b = { from, to };
  for (const k of COUNT_KEYS) b[k] = 0;
  return b;
}

/**
 * pastBuckets cuts the moment's range [start, hw) (its pointers) into
 * buckets of size offsets from base — the live map's grid, so both strips
 * line up — and counts each: the recorded entries (offsets from the first
 * one recorded up) as they were, the older offsets from the live buckets
 * (a live bucket partly older counts in proportion). Offsets older than
 * the recording that the live map has not reached yet stay uncounted.
 * @param {import('../types/wire.js').MapBucket[]} live the live map's buckets ({from, to, plain, …}), contiguous from base
 * @param {{entries: import('../types/wire.js').Entry[], pointers: import('../types/wire.js').Pointers}} past the replayed moment (replay.js's stateAt)
 * @param {{base: number, size: number}} grid the live map's bucket grid
 * @returns {import('../types/wire.js').MapBucket[]} buckets {from, to, plain, committed, …}
 */
export function pastBuckets(live, past, grid) {
  const p = past.pointers;
  if (!p || p.highWatermark <= p.logStartOffset) return [];
  const start = p.logStartOffset;
  const hw = p.highWatermark;
  const size = Math.max(1, grid.size || Math.ceil((hw - start) / 400));
  const base = grid.size ? Math.min(grid.base, start) : start;
  const entries = (past.entries || []).filter((e) => e.offset >= start && e.offset < hw);
  const recorded = entries.length ? entries[0].offset : hw;
  const out = [];
  const first = Math.floor((start - base) / size);
  const last = Math.floor((hw - 1 - base) / size);
  for (let i = first; i <= last; i++) {
    const from = Math.max(start, base + i * size);
    const to = Math.min(hw, base + (i + 1) * size);
    out.push(emptyBucket(from, to));
  }
  const at = (offset) => out[Math.floor((offset - base) / size) - first];
  // Older than the recording: the live map's counts, in proportion.
  for (const b of live || []) {
    const from = Math.max(b.from, start);
    const to = Math.min(b.to, recorded, hw);
    if (to <= from) continue;
    for (let o = from; o < to;) {
      const bucket = at(o);
      const end = Math.min(to, bucket.to);
      const part = (end - o) / Math.max(1, b.to - b.from);
      for (const k of COUNT_KEYS) bucket[k] += Math.round((b[k] || 0) * part);
      o = end;
    }
  }
  // The recording: each entry as it was.
  for (const e of entries) {
    const bucket = at(e.offset);
    const k = countKey(e);
    bucket[k]++;
    if (k === 'gaps') bucket[gapKeys[e.reason] || 'gapsUnknown']++;
  }
  // What nothing counts (older than the recording, not mapped yet) is not drawn.
  const mappedTo = live && live.length ? live[live.length - 1].to : base;
  return out.filter((b) => b.from >= recorded || b.to <= mappedTo || COUNT_KEYS.some((k) => b[k] > 0));
}
