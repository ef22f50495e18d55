// strips.js: a topic's partitions side by side, followed live. Each strip
// is one partition's map (GET …/map?buckets=N, N fitting its width: one
// bucket every few pixels) drawn as a heat strip: per bucket, how much of
// it is plain data, committed (✓), aborted (✗, hatched), open (…, dotted),
// COMMIT / ABORT markers and gaps, with the LSO drawn where an open
// transaction holds it. The strips share one offset scale — from the
// lowest log start to the highest high watermark of the topic — so a
// longer partition draws a longer bar, and what is not written yet is
// left blank past its high watermark. Below each, the pointers, the open
// transactions and the counts in words.
//
// Following: every POLL_MS the page reads the partitions' pointers (GET
// /api/topics/{t}?brief=true: one metadata request and three ListOffsets,
// whatever the partition count). A partition whose pointers moved gets a
// fresh map, and the open transactions are recounted (GET /api/topics/{t})
// when any moved. Maps are read one at a time (the server bounds a
// client's expensive reads), and a partition whose map took long is
// mapped again less often, so a million-offset partition never keeps the
// server scanning. A hidden tab polls nothing.

import { api, apiPartition, fmt, showErrorText } from '../common/api.js';
import { onLanguage, span, tr } from '../common/i18n.js';
import { PALETTE, drawBuckets, patterns, sizeCanvas, totals } from '../common/heat.js';

const POLL_MS = 2000;
const PX_PER_BUCKET = 3;
const MAX_BUCKETS = 2000;
const STRIP_HEIGHT = 44;

/**
 * setupStrips follows the strips under root (the topic page's list).
 * @param {HTMLElement} root
 * @param {{live: HTMLElement, error: HTMLElement}} els where the strips say they follow live, and why they cannot
 */
export function setupStrips(root, { live, error }) {
  const topic = root.dataset.topic;
  const strips = new Map();
  const axis = { from: 0, to: 0 };
  for (const li of root.querySelectorAll('[data-testid="strip"]')) {
    const s = new Strip(topic, li, axis);
    strips.set(s.partition, s);
  }
  // rescale sets the shared offset scale; strips redraw when it changed.
  function rescale() {
    let from = Infinity;
    let to = 0;
    for (const s of strips.values()) {
      from = Math.min(from, s.ptrs.logStartOffset);
      to = Math.max(to, s.ptrs.highWatermark);
    }
    if (!Number.isFinite(from)) from = 0;
    if (from === axis.from && to === axis.to) return;
    axis.from = from;
    axis.to = to;
    for (const s of strips.values()) s.resize();
  }
  rescale();
  // denied is the refusal of a map read (403: the user may not READ the
  // topic): said once under the strips, which then follow the pointers
  // alone instead of asking again every tick.
  const state = { recountAt: 0, recountWanted: false, timer: 0, busy: false, denied: null };

  function setLive(s, err) {
    live.dataset.state = s;
    if (s === 'open') tr(live, 'strip.live');
    else if (s === 'paused') tr(live, 'strip.paused');
    else tr(live, 'strip.retrying');
    const shown = err || state.denied;
    error.hidden = !shown;
    error.dataset.denied = String(!err && !!state.denied);
    if (shown) showErrorText(error, shown);
  }

  async function recountOpen() {
    state.recountWanted = false;
    state.recountAt = Date.now();
    /** @type {import('../types/wire.js').TopicDetail} */
    const d = await api('GET', `/api/topics/${encodeURIComponent(topic)}`);
    for (const p of d.partitions || []) strips.get(p.partition)?.setOpen(p.openTransactions);
  }

  async function tick() {
    if (document.hidden) {
      setLive('paused');
      return;
    }
    const t = await api('GET', `/api/topics/${encodeURIComponent(topic)}?brief=true`);
    let moved = false;
    for (const p of t.partitions || []) moved = (strips.get(p.partition)?.setPointers(p) ?? false) || moved;
    if (moved) state.recountWanted = true;
    rescale();
    if (state.recountWanted && Date.now() - state.recountAt >= POLL_MS) await recountOpen();
    for (const s of strips.values()) {
      if (document.hidden || state.denied) break;
      if (!s.due()) continue;
      try {
        await s.refresh();
      } catch (err) {
        if (err.status !== 403) throw err;
        state.denied = err;
      }
    }
    setLive('open');
  }

  async function loop() {
    clearTimeout(state.timer);
    if (state.busy) return;
    state.busy = true;
    try {
      await tick();
    } catch (err) {
      setLive('error', err);
    } finally {
      state.busy = false;
      state.timer = setTimeout(loop, POLL_MS);
    }
  }

  // A strip's width decides its buckets: redraw at once, remap when the
  // bucket count it wants changed by more than a quarter.
  const resized = new ResizeObserver(() => {
    for (const s of strips.values()) s.resize();
  });
  resized.observe(root);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) loop();
  });
  onLanguage(() => {
    for (const s of strips.values()) s.writeCounts();
  });
  loop();
}

/** Strip is one partition's strip: its pointers, map and canvas. */
class Strip {
  /**
   * @param {string} topic
   * @param {HTMLElement} li
   * @param {{from: number, to: number}} axis the offsets every strip of the topic spreads over
   */
  constructor(topic, li, axis) {
    this.topic = topic;
    this.li = li;
    this.axis = axis;
    this.partition = Number(li.dataset.partition);
    this.canvas = li.querySelector('canvas');
    this.counts = li.querySelector('[data-testid="strip-counts"]');
    this.open = li.querySelector('[data-testid="strip-open"]');
    this.ptrs = {
      logStartOffset: Number(li.dataset.logStart),
      lastStableOffset: Number(li.dataset.lso),
      highWatermark: Number(li.dataset.hw),
    };
    this.map = null;
    this.stale = true;
    this.nextAt = 0;
    this.buckets = 0;
  }

  /** setPointers takes the partition's pointers; true when they moved. */
  setPointers(p) {
    const moved = p.logStartOffset !== this.ptrs.logStartOffset || p.lastStableOffset !== this.ptrs.lastStableOffset ||
      p.highWatermark !== this.ptrs.highWatermark;
    if (!moved) return false;
    this.ptrs = { logStartOffset: p.logStartOffset, lastStableOffset: p.lastStableOffset, highWatermark: p.highWatermark };
    this.writePointers();
    this.stale = true;
    return true;
  }

  writePointers() {
    const { logStartOffset, lastStableOffset, highWatermark } = this.ptrs;
    this.li.dataset.logStart = String(logStartOffset);
    this.li.dataset.lso = String(lastStableOffset);
    this.li.dataset.hw = String(highWatermark);
    this.li.querySelector('[data-testid="strip-logstart"]').textContent = fmt(logStartOffset);
    this.li.querySelector('[data-testid="strip-lso"]').textContent = fmt(lastStableOffset);
    this.li.querySelector('[data-testid="strip-hw"]').textContent = fmt(highWatermark);
    this.li.dataset.held = String(lastStableOffset < highWatermark);
  }

  /** setOpen shows how many transactions are open (-1: not described). */
  setOpen(n) {
    const count = n < 0 ? '?' : String(n);
    this.li.dataset.open = count;
    this.open.dataset.open = String(n > 0);
    const label = this.open.querySelector('[data-i18n]') || this.open;
    if (n === 0) tr(label, 'strip.noOpen');
    else tr(label, 'strip.open', { count });
  }

  /** wanted is the bucket count that fits the partition's share of the width. */
  wanted() {
    const w = this.canvas.clientWidth || 300;
    const all = this.axis.to - this.axis.from;
    const share = all > 0 ? (this.ptrs.highWatermark - this.ptrs.logStartOffset) / all : 1;
    return Math.max(1, Math.min(MAX_BUCKETS, Math.floor((w * share) / PX_PER_BUCKET)));
  }

  due() {
    return this.stale && Date.now() >= this.nextAt;
  }

  /** refresh reads the map; a slow map is read again less often. */
  async refresh() {
    const n = this.wanted();
    const began = performance.now();
    /** @type {import('../types/wire.js').PartitionMap} */
    const m = await api('GET', `${apiPartition(this.topic, this.partition)}/map?buckets=${n}`);
    const took = performance.now() - began;
    this.nextAt = Date.now() + Math.min(30000, took * 4);
    this.stale = false;
    this.buckets = n;
    this.map = m;
    this.setPointers(m);
    this.stale = false;
    this.draw();
    this.writeCounts();
  }

  resize() {
    this.draw();
    const n = this.wanted();
    if (this.buckets && Math.abs(n - this.buckets) > this.buckets / 4) this.stale = true;
  }

  /** totals adds up the map's buckets. */
  totals() {
    return totals(this.map?.buckets);
  }

  writeCounts() {
    if (!this.map) return;
    const t = this.totals();
    const records = t.plain + t.committed + t.aborted + t.open;
    for (const [k, v] of Object.entries(t)) this.li.dataset[k] = String(v);
    this.li.dataset.records = String(records);
    this.li.dataset.mapped = 'true';
    const parts = [];
    if (this.map.to <= this.map.from) {
      parts.push(span('strip.empty'));
    } else {
      parts.push(span('strip.records', { count: fmt(records) }));
      const each = [
        ['plain', 'strip.plain'], ['committed', 'strip.committed'], ['aborted', 'strip.aborted'], ['open', 'strip.openRecords'],
        ['commitMarkers', 'strip.commitMarkers'], ['abortMarkers', 'strip.abortMarkers'], ['gaps', 'strip.gaps'],
      ];
      for (const [k, key] of each) if (t[k] > 0) parts.push(span(key, { count: fmt(t[k]) }));
    }
    const items = [];
    parts.forEach((p, i) => {
      if (i > 0) items.push(document.createTextNode(i === 1 ? ': ' : ' · '));
      items.push(p);
    });
    this.counts.replaceChildren(...items);
  }

  /** draw paints the map: one column per bucket, classes stacked. */
  draw() {
    const c = this.canvas;
    const w = c.clientWidth;
    if (!w) return;
    const g = sizeCanvas(c, w, STRIP_HEIGHT);
    g.fillStyle = PALETTE.empty;
    g.fillRect(0, 0, w, STRIP_HEIGHT);
    const m = this.map;
    const from = Math.min(this.axis.from, m ? m.from : Infinity);
    const offsets = Math.max(this.axis.to, m ? m.to : 0) - from;
    if (!m || m.to <= m.from || offsets <= 0) return;
    const x = (o) => ((o - from) / offsets) * w;
    // Past the high watermark: nothing written yet, a light blank.
    g.fillStyle = PALETTE.unwritten;
    g.fillRect(x(m.to), 0, w - x(m.to), STRIP_HEIGHT);
    drawBuckets(g, m.buckets, { pos: x, thick: STRIP_HEIGHT, pats: patterns(g) });
    if (m.to < from + offsets) {
      g.fillStyle = PALETTE.hw;
      g.fillRect(Math.max(0, x(m.to) - 1.5), 0, 3, STRIP_HEIGHT);
    }
    const lso = m.lastStableOffset;
    if (lso >= m.from && lso < m.to) {
      const lx = Math.min(w - 2, Math.max(0, x(lso)));
      g.fillStyle = PALETTE.lso;
      g.fillRect(lx - 1.5, 0, 3, STRIP_HEIGHT);
      g.beginPath();
      g.moveTo(lx - 6, 0);
      g.lineTo(lx + 6, 0);
      g.lineTo(lx, 8);
      g.closePath();
      g.fill();
    }
  }
}
