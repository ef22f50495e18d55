// heat.js: how a partition map (GET …/map: buckets of plain, committed,
// aborted and open records, COMMIT and ABORT markers, gaps) is drawn as a
// heat strip on a canvas. The topic page's strips (strips.js, horizontal)
// and the partition page's minimap (partmap.js, vertical) share it, so a
// class reads one vocabulary everywhere: each class has a colour AND a
// shape — aborted records hatched, open ones dotted, ABORT markers
// cross-hatched, gaps dashed — never colour alone (heat.css draws the same
// keys for the legends).

// The palette; heat.css's .key rules use the same colours.
export const PALETTE = {
  plain: '#8fb0da',
  committed: '#2f8a4c',
  commitMarker: '#0a3d1a',
  aborted: '#f2b3b3',
  abortedLine: '#8a1414',
  abortMarker: '#6f0d0d',
  open: '#f7d76b',
  openDot: '#5a3900',
  gap: '#ffffff',
  gapLine: '#4b5563',
  lso: '#6b21a8',
  hw: '#101418',
  empty: '#eef1f4',
  unwritten: '#f8fafc',
};

/** COUNTS are the fields of a map bucket, in the order a strip stacks them. */
export const COUNTS = ['plain', 'committed', 'commitMarkers', 'aborted', 'abortMarkers', 'open', 'gaps'];

/**
 * totals adds up buckets' counts.
 * @param {import('../types/wire.js').MapBucket[]} buckets
 */
export function totals(buckets) {
  const t = { plain: 0, committed: 0, aborted: 0, open: 0, commitMarkers: 0, abortMarkers: 0, gaps: 0,
    gapsCompacted: 0, gapsBeforeLogStart: 0, gapsUnknown: 0 };
  for (const b of buckets || []) for (const k in t) t[k] += b[k] || 0;
  return t;
}

/**
 * patterns are the shapes of the classes that must not be told by colour.
 * @param {CanvasRenderingContext2D} g
 */
export function patterns(g) {
  const make = (size, paint) => {
    const c = document.createElement('canvas');
    c.width = size;
    c.height = size;
    paint(c.getContext('2d'), size);
    return g.createPattern(c, 'repeat');
  };
  return {
    // ✗ aborted records: light red, dark diagonal hatch (as the cells).
    aborted: make(8, (p, s) => {
      p.fillStyle = PALETTE.aborted;
      p.fillRect(0, 0, s, s);
      p.strokeStyle = PALETTE.abortedLine;
      p.lineWidth = 2;
      p.beginPath();
      p.moveTo(-2, s + 2);
      p.lineTo(s + 2, -2);
      p.stroke();
    }),
    // ABORT markers: dark red, light cross-hatch.
    abortMarker: make(8, (p, s) => {
      p.fillStyle = PALETTE.abortMarker;
      p.fillRect(0, 0, s, s);
      p.strokeStyle = '#fbe2e2';
      p.lineWidth = 1.5;
      p.beginPath();
      p.moveTo(0, 0);
      p.lineTo(s, s);
      p.moveTo(s, 0);
      p.lineTo(0, s);
      p.stroke();
    }),
    // … open records: yellow with dots.
    open: make(6, (p, s) => {
      p.fillStyle = PALETTE.open;
      p.fillRect(0, 0, s, s);
      p.fillStyle = PALETTE.openDot;
      p.beginPath();
      p.arc(s / 2, s / 2, 1.2, 0, Math.PI * 2);
      p.fill();
    }),
    // gaps: white with a dashed rule.
    gap: make(8, (p, s) => {
      p.fillStyle = PALETTE.gap;
      p.fillRect(0, 0, s, s);
      p.fillStyle = PALETTE.gapLine;
      p.fillRect(0, s / 2, s / 2, 1);
    }),
  };
}

/** fills pairs each count with its colour or pattern, in stacking order. */
function fills(pats) {
  return [
    ['plain', PALETTE.plain], ['committed', PALETTE.committed], ['commitMarkers', PALETTE.commitMarker],
    ['aborted', pats.aborted], ['abortMarkers', pats.abortMarker], ['open', pats.open], ['gaps', pats.gap],
  ];
}

// RARE are the classes a person hunts for in a long partition: however few
// they are in a bucket, they get at least RARE_SHARE of the strip across
// and RARE_EXTENT pixels along it, drawn over their neighbours, so that
// three aborted records among a million offsets still show.
const RARE = new Set(['aborted', 'abortMarkers', 'open', 'gaps']);
const RARE_SHARE = 0.4;
const RARE_EXTENT = 4;

/**
 * drawBuckets paints buckets along one axis: each bucket spans
 * pos(from)…pos(to) on the offset axis, and its classes are stacked across
 * the other axis (thick pixels) in proportion to their counts — a rare
 * class (RARE) never thinner than RARE_SHARE of it, and a bucket holding one never
 * shorter than RARE_EXTENT. Horizontal strips stack from the bottom up;
 * vertical ones from the left.
 * @param {CanvasRenderingContext2D} g
 * @param {import('../types/wire.js').MapBucket[]} buckets map buckets ({from, to, plain, …})
 * @param {{pos: (offset: number) => number, thick: number, vertical?: boolean, pats: Record<string, CanvasPattern|string>}} opts
 */
export function drawBuckets(g, buckets, { pos, thick, vertical = false, pats }) {
  const order = fills(pats);
  const paint = (b, boosted) => {
    const n = b.to - b.from;
    let a0 = pos(b.from);
    let extent = Math.max(1, pos(b.to) - a0);
    // Sizes across: rare classes at least RARE_SHARE, the rest share what is left.
    const sizes = order.map(([k]) => ((b[k] || 0) / n) * thick);
    let rare = 0;
    let common = 0;
    order.forEach(([k], i) => {
      if (!sizes[i]) return;
      if (RARE.has(k)) {
        sizes[i] = Math.max(sizes[i], Math.max(4, thick * RARE_SHARE));
        rare += sizes[i];
      } else {
        common += sizes[i];
      }
    });
    // Several rare classes in one bucket may claim more than the strip.
    const fit = rare > thick ? thick / rare : 1;
    if (fit < 1) order.forEach(([k], i) => { if (RARE.has(k)) sizes[i] *= fit; });
    const scale = common > 0 ? Math.max(0, thick - rare * fit) / common : 0;
    if (boosted) {
      if (extent < RARE_EXTENT) {
        a0 -= (RARE_EXTENT - extent) / 2;
        extent = RARE_EXTENT;
      }
    }
    let across = vertical ? 0 : thick;
    order.forEach(([k, fill], i) => {
      if (!sizes[i]) return;
      const size = RARE.has(k) ? sizes[i] : sizes[i] * scale;
      g.fillStyle = fill;
      if (vertical) {
        g.fillRect(across, a0, size, extent);
        across += size;
      } else {
        g.fillRect(a0, across - size, extent, size);
        across -= size;
      }
    });
  };
  const hasRare = (b) => [...RARE].some((k) => b[k] > 0);
  for (const b of buckets) if (b.to > b.from) paint(b, false);
  // Buckets with rare classes again, on top, at least RARE_EXTENT long.
  for (const b of buckets) if (b.to > b.from && hasRare(b)) paint(b, true);
}

// The minimap's buckets: one per pixel of its height, within these
// bounds. A partition is cut into requests of about CHUNK_OFFSETS offsets
// (at least one bucket each), at most MAX_CHUNKS of them: each is ~10 ms
// of a scan.
const MIN_BUCKETS = 200;
const MAX_BUCKETS = 1000;
export const CHUNK_OFFSETS = 100_000;
const MAX_CHUNKS = 20;

/**
 * bucketCount is how many buckets a strip h pixels long is cut into.
 * @param {number} h
 */
export function bucketCount(h) {
  return Math.max(MIN_BUCKETS, Math.min(MAX_BUCKETS, Math.round(h)));
}

/**
 * planMap decides what of a partition to map next, given its pointers
 * now, what is mapped (buckets of size offsets from base, contiguous,
 * counted under the LSO lso) and the n buckets the strip wants: null when
 * the map is current; {fresh: true, from, size} to cut the partition
 * afresh (a new log start, no map yet, or a partition grown past twice
 * the buckets it was cut in, or shrunk below a quarter); else {fresh:
 * false, keep, from, size}: keep the first keep buckets and map from
 * there — from the bucket holding the LSO the tail was mapped with (open
 * records there resolve) or the last one (it grows).
 * @param {import('../types/wire.js').Pointers} pointers
 * @param {{base: number, size: number, lso: number, buckets: {to: number}[]}} mapped
 * @param {number} n
 */
export function planMap({ logStartOffset: start, lastStableOffset: lso, highWatermark: hw }, mapped, n) {
  const { base, size, buckets } = mapped;
  const fresh = !size || start !== base || Math.ceil((hw - base) / size) > 2 * n ||
    (size > 1 && Math.ceil((hw - base) / size) < n / 4);
  if (fresh) return { fresh: true, from: start, size: Math.max(1, Math.ceil((hw - start) / n)) };
  const to = buckets.length ? buckets[buckets.length - 1].to : base;
  const settled = Math.min(mapped.lso, to - 1, lso);
  let keep = buckets.length;
  while (keep > 0 && buckets[keep - 1].to > settled) keep--;
  const from = keep ? buckets[keep - 1].to : base;
  if (to >= hw && lso === mapped.lso) return null;
  return { fresh: false, keep, from, size };
}

/**
 * chunkOffsets is how many offsets one map request covers, a whole number of buckets of size.
 * @param {number} size
 * @param {number} from
 * @param {number} hw
 */
export function chunkOffsets(size, from, hw) {
  return Math.max(1, Math.ceil(CHUNK_OFFSETS / size), Math.ceil((hw - from) / size / MAX_CHUNKS)) * size;
}

/**
 * sizeCanvas fits a canvas's backing store to its CSS box at the screen's
 * pixel ratio and returns its context, scaled to CSS pixels.
 * @param {HTMLCanvasElement} c
 * @param {number} w
 * @param {number} h
 */
export function sizeCanvas(c, w, h) {
  const dpr = window.devicePixelRatio || 1;
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
  }
  const g = c.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return g;
}
