// @ts-check
// heat.test.js: how a partition map's buckets become a heat strip — each
// bucket spans its offsets along the strip, its classes share the strip
// across in proportion to their counts, and a rare class (aborted, open,
// ABORT markers, gaps) always shows, however few.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHUNK_OFFSETS, PALETTE, bucketCount, chunkOffsets, drawBuckets, planMap, totals } from '../common/heat.js';

// recorder is a 2D context that only remembers its rectangles.
function recorder() {
  const rects = [];
  return {
    rects,
    fillStyle: null,
    fillRect(x, y, w, h) {
      rects.push({ fill: this.fillStyle, x, y, w, h });
    },
  };
}
const pats = { aborted: 'P-aborted', abortMarker: 'P-abortMarker', open: 'P-open', gap: 'P-gap' };
const bucket = (from, to, counts) => ({ from, to, plain: 0, committed: 0, aborted: 0, open: 0, commitMarkers: 0, abortMarkers: 0, gaps: 0, ...counts });
const near = (a, b) => Math.abs(a - b) < 1e-9;

test('totals adds up the buckets', () => {
  assert.deepEqual(totals([bucket(0, 10, { plain: 4, gaps: 1, gapsCompacted: 1 }), bucket(10, 20, { plain: 1, open: 2 })]),
    { plain: 5, committed: 0, aborted: 0, open: 2, commitMarkers: 0, abortMarkers: 0, gaps: 1, gapsCompacted: 1, gapsBeforeLogStart: 0, gapsUnknown: 0 });
  assert.equal(totals(undefined).plain, 0);
});

test('totals keeps the gaps by reason, which add up to the gaps', () => {
  const t = totals([bucket(0, 4, { gaps: 4, gapsBeforeLogStart: 4 }), bucket(4, 8, { gaps: 3, gapsCompacted: 2, gapsUnknown: 1, plain: 1 })]);
  assert.equal(t.gaps, 7);
  assert.equal(t.gapsBeforeLogStart + t.gapsCompacted + t.gapsUnknown, t.gaps);
  assert.deepEqual([t.gapsBeforeLogStart, t.gapsCompacted, t.gapsUnknown], [4, 2, 1]);
});

test('a horizontal strip stacks a bucket\'s classes from the bottom up, in proportion', () => {
  const g = recorder();
  drawBuckets(/** @type {any} */ (g), [bucket(0, 10, { plain: 6, committed: 4 })], { pos: (o) => o * 2, thick: 20, pats });
  assert.deepEqual(g.rects, [
    { fill: PALETTE.plain, x: 0, y: 8, w: 20, h: 12 },
    { fill: PALETTE.committed, x: 0, y: 0, w: 20, h: 8 },
  ]);
});

test('a vertical strip stacks from the left', () => {
  const g = recorder();
  drawBuckets(/** @type {any} */ (g), [bucket(100, 110, { plain: 5, committed: 5 })], { pos: (o) => o - 100, thick: 10, vertical: true, pats });
  assert.deepEqual(g.rects, [
    { fill: PALETTE.plain, x: 0, y: 0, w: 5, h: 10 },
    { fill: PALETTE.committed, x: 5, y: 0, w: 5, h: 10 },
  ]);
});

test('three aborted records among many still take RARE_SHARE across and 4 px along', () => {
  const g = recorder();
  // 1,000,003 offsets in one bucket drawn 1 px long: the aborted ones are 3.
  drawBuckets(/** @type {any} */ (g), [bucket(0, 1_000_003, { plain: 1_000_000, aborted: 3 })], { pos: (o) => o / 1_000_003, thick: 20, pats });
  const aborted = g.rects.filter((r) => r.fill === 'P-aborted');
  assert.equal(aborted.length, 2, 'drawn once, then again on top');
  const top = aborted[1];
  assert.ok(near(top.h, 8), `across: ${top.h} px, want 40 % of 20`);
  assert.ok(near(top.w, 4) && near(top.x, -1.5), `along: ${top.w} px from ${top.x}, want 4 px centred on the 1 px bucket`);
  const plain = g.rects.find((r) => r.fill === PALETTE.plain);
  assert.ok(near(plain.h, 12), `the common class takes what is left: ${plain.h}`);
});

test('several rare classes in one bucket are scaled to fit the strip', () => {
  const g = recorder();
  drawBuckets(/** @type {any} */ (g), [bucket(0, 4, { aborted: 1, open: 1, abortMarkers: 1, gaps: 1 })], { pos: (o) => o * 10, thick: 20, pats });
  const boosted = g.rects.slice(g.rects.length / 2);
  const across = boosted.reduce((sum, r) => sum + r.h, 0);
  assert.ok(near(across, 20), `the rare classes fill ${across} px of 20`);
});

test('empty buckets and buckets with nothing rare draw once', () => {
  const g = recorder();
  drawBuckets(/** @type {any} */ (g), [bucket(5, 5, { plain: 1 }), bucket(5, 9, { plain: 4 })], { pos: (o) => o, thick: 10, pats });
  assert.equal(g.rects.length, 1);
});

test('a strip is cut into one bucket per pixel, 200 to 1000 of them', () => {
  assert.deepEqual([50, 200, 640.4, 1000, 4000].map(bucketCount), [200, 200, 640, 1000, 1000]);
});

test('planMap maps afresh, only the tail that may change, or nothing', () => {
  const ptrs = (logStartOffset, lastStableOffset, highWatermark) => ({ logStartOffset, lastStableOffset, highWatermark });
  // 1,000 offsets mapped in 200 buckets of 5, under LSO 1,000.
  const cut = Array.from({ length: 200 }, (_, i) => ({ from: i * 5, to: (i + 1) * 5 }));
  const mapped = { base: 0, size: 5, lso: 1000, buckets: cut };
  const tests = [
    { name: 'nothing mapped yet', p: ptrs(0, 1000, 1000), m: { base: 0, size: 0, lso: undefined, buckets: [] }, want: { fresh: true, from: 0, size: 5 } },
    { name: 'the map is current', p: ptrs(0, 1000, 1000), m: mapped, want: null },
    { name: 'the log start moved (retention)', p: ptrs(300, 1000, 1000), m: mapped, want: { fresh: true, from: 300, size: 4 } },
    { name: 'grown past twice the buckets', p: ptrs(0, 2001, 2001), m: mapped, want: { fresh: true, from: 0, size: 11 } },
    { name: 'grown a little: from the last bucket', p: ptrs(0, 1010, 1010), m: mapped, want: { fresh: false, keep: 199, from: 995, size: 5 } },
    { name: 'a transaction opened at 1,003: the buckets from the LSO again', p: ptrs(0, 1003, 1020), m: { ...mapped, lso: 1003, buckets: [...cut, { from: 1000, to: 1005 }, { from: 1005, to: 1010 }] }, want: { fresh: false, keep: 200, from: 1000, size: 5 } },
  ];
  for (const tt of tests) assert.deepEqual(planMap(tt.p, tt.m, 200), tt.want, tt.name);
});

test('one map request covers whole buckets, at least CHUNK_OFFSETS, at most 20 requests', () => {
  assert.equal(chunkOffsets(1, 0, 1000), CHUNK_OFFSETS);
  assert.equal(chunkOffsets(7, 0, 1000) % 7, 0);
  assert.equal(chunkOffsets(1_000_000, 0, 5_000_000), 1_000_000, 'a bucket bigger than a chunk: one bucket');
  const offsets = 10_000_000;
  assert.ok(Math.ceil(offsets / chunkOffsets(10_000, 0, offsets)) <= 20);
});
