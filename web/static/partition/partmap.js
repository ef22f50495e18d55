// partmap.js: the heat strip in the partition page's minimap — the whole
// partition, log start at the top, high watermark at the bottom, drawn from
// its map (GET …/map: per bucket, plain, committed, aborted and open
// records, COMMIT and ABORT markers and gaps, counted from batch headers)
// in heat.js's colours and shapes.
//
// Streaming: a partition is mapped in sub-ranges, one request at a time,
// top to bottom, each drawn as it arrives, with its progress written next
// to the log (a progress bar, "412,000 of 1,000,000 offsets") and a Stop
// button that aborts the request in flight (AbortController); Map the rest
// goes on from where it stopped. The buckets keep a fixed size
// (⌈offsets ÷ N⌉, N following the minimap's height, 200–1000), so when the
// partition grows only its tail is mapped again: from the bucket holding
// the last stable offset (below it every transaction is decided, so those
// buckets never change) to the new high watermark — throttled to the
// time the last map took, so a million-offset partition never keeps the
// server scanning. A new log start, or a partition grown past twice the
// buckets it was cut in, is mapped afresh. A hidden tab maps nothing.
//
// While the replay shows a past moment, the strip shows that moment
// (pastmap.js): its range, and its records as the recording says they
// were; the live map goes on underneath and comes back with Live.

import { api, apiPartition, fmt, patiently, showErrorText } from '../common/api.js';
import { onLanguage, t, tr } from '../common/i18n.js';
import { minimapScale } from './loggeometry.js';
import { pastBuckets } from './pastmap.js';
import { CHUNK_OFFSETS, COUNTS, PALETTE, bucketCount, chunkOffsets, drawBuckets, patterns, planMap, sizeCanvas, totals } from '../common/heat.js';

const MIN_GAP_MS = 1000;

export class HeatStrip {
  /**
   * @param {object} opts
   * @param {(err: Error) => void} opts.onError broker or server trouble (the banner)
   */
  constructor(opts) {
    this.opts = opts;
    this.minimap = document.getElementById('minimap');
    this.canvas = document.getElementById('minimap-heat');
    this.status = document.getElementById('map-status');
    this.bar = document.getElementById('map-progress');
    this.text = document.getElementById('map-text');
    this.stopButton = document.getElementById('map-stop');
    this.resumeButton = document.getElementById('map-resume');
    this.error = document.getElementById('map-error');
    this.summary = document.getElementById('map-summary');
    this.gen = 0;
    /** onState, when set, is told what the strip has mapped after every change (the story's summary) */
    this.onState = null;
    this.reset(null, 0);
    this.stopButton.addEventListener('click', () => this.stop());
    this.resumeButton.addEventListener('click', () => this.resume());
    new ResizeObserver(() => this.draw()).observe(this.minimap);
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden) this.kick();
    });
    onLanguage(() => this.writeStatus());
  }

  /** reset forgets the map: a new partition (or none) is on show. */
  reset(topic, partition) {
    this.gen++;
    this.ctrl?.abort();
    this.ctrl = null;
    this.topic = topic;
    this.partition = partition;
    this.ptrs = null; // the partition's pointers as the page knows them
    this.pastState = null; // the replayed moment on show (replay.js's stateAt), null when live
    this.past = null; // its strip: {pointers, buckets}
    this.buckets = []; // mapped buckets, in offset order, contiguous from base
    this.base = 0; // the log start the buckets were cut from
    this.size = 0; // offsets per bucket
    this.lso = 0; // the LSO when the tail was last mapped
    this.firstWrite = ''; // the earliest batch timestamp mapped (ISO), '' when none
    this.lastWrite = ''; // the latest
    this.state = 'idle'; // idle | mapping | done | stopped | failed
    this.began = 0;
    this.runFrom = 0;
    this.tookMs = 0;
    this.lastEnd = 0;
    this.timer = 0;
    this.err = null;
    clearTimeout(this.timer);
    this.draw();
    this.writeStatus();
  }

  /** mappedTo is the offset the mapped buckets reach. */
  get mappedTo() {
    return this.buckets.length ? this.buckets[this.buckets.length - 1].to : this.base;
  }

  /** setPointers takes the partition's pointers; a move maps what changed, soon. */
  setPointers(p) {
    if (!p || !this.topic) return;
    const old = this.ptrs;
    this.ptrs = { logStartOffset: p.logStartOffset, lastStableOffset: p.lastStableOffset, highWatermark: p.highWatermark };
    if (old && old.logStartOffset === p.logStartOffset && old.lastStableOffset === p.lastStableOffset && old.highWatermark === p.highWatermark) return;
    this.draw();
    this.kick();
  }

  /** kick starts mapping what is not mapped yet, unless a person stopped it; soon rather than at once while it is busy. */
  kick() {
    if (!this.ptrs || this.state === 'mapping' || this.state === 'stopped' || document.hidden) return;
    clearTimeout(this.timer);
    const wait = this.lastEnd ? Math.max(0, this.lastEnd + Math.max(MIN_GAP_MS, this.tookMs * 4) - Date.now()) : 0;
    this.timer = setTimeout(() => this.run(), wait);
  }

  /** wanted is the bucket count for the minimap's height. */
  wanted() {
    return bucketCount(this.canvas.clientHeight || 400);
  }

  /**
   * plan decides what to map: [from, hw) and whether the buckets are cut
   * afresh. null when the map is current.
   */
  plan() {
    return planMap(this.ptrs, { base: this.base, size: this.size, lso: this.lso, buckets: this.buckets }, this.wanted());
  }

  async run(resume = false) {
    if (!this.ptrs || !this.topic) return;
    const p = resume ? { fresh: false, keep: this.buckets.length, from: this.mappedTo, size: this.size } : this.plan();
    if (!p) {
      if (this.state !== 'stopped') this.state = 'done';
      this.writeStatus();
      return;
    }
    const gen = this.gen;
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    if (p.fresh) {
      this.base = p.from;
      this.size = p.size;
      this.buckets = [];
      this.firstWrite = this.lastWrite = '';
      this.draw();
    } else {
      this.buckets.length = p.keep;
    }
    this.state = 'mapping';
    this.runFrom = p.from;
    this.err = null;
    this.began = performance.now();
    this.writeStatus();
    const path = apiPartition(this.topic, this.partition);
    const chunk = chunkOffsets(this.size, p.from, this.ptrs.highWatermark);
    // The LSO the buckets were counted under: the lowest any request saw
    // (a record still open when its bucket was mapped stays to be mapped
    // again, even if its marker landed before the last request).
    let lso = Infinity;
    try {
      for (let from = p.from; from < this.ptrs.highWatermark;) {
        const hw = this.ptrs.highWatermark;
        const to = Math.min(hw, from + chunk);
        const n = Math.ceil((to - from) / this.size);
        /** @type {import('../types/wire.js').PartitionMap} */
        const m = await patiently(() => api('GET', `${path}/map?from=${from}&to=${to}&buckets=${n}`, undefined, ctrl.signal), ctrl.signal);
        if (gen !== this.gen) return;
        for (const b of m.buckets) this.buckets.push(b);
        this.noteWrites(m);
        lso = Math.min(lso, m.lastStableOffset);
        this.lso = lso;
        from = m.to > from ? m.to : to;
        this.draw();
        this.writeStatus();
      }
      this.state = 'done';
    } catch (err) {
      if (gen !== this.gen) return;
      if (err.name === 'AbortError') {
        this.state = 'stopped';
      } else {
        this.state = 'failed';
        this.err = err;
        this.opts.onError?.(err);
      }
    } finally {
      if (gen === this.gen) {
        this.ctrl = null;
        this.tookMs = performance.now() - this.began;
        this.lastEnd = Date.now();
        this.writeStatus();
        this.draw();
        if (this.state === 'done') this.kick(); // the partition may have grown meanwhile
      }
    }
  }

  /** noteWrites keeps the earliest and latest write a map answer saw. */
  noteWrites(m) {
    const ms = (s) => (s ? Date.parse(s) : NaN);
    if (m.firstWrite && !(ms(this.firstWrite) <= ms(m.firstWrite))) this.firstWrite = m.firstWrite;
    if (m.lastWrite && !(ms(this.lastWrite) >= ms(m.lastWrite))) this.lastWrite = m.lastWrite;
  }

  /** showPast shows a replayed moment (replay.js's stateAt): its range, its records as they were. */
  showPast(past) {
    this.pastState = past;
    this.draw();
  }

  /** showLive leaves the replay: the live map again. */
  showLive() {
    this.pastState = null;
    this.draw();
  }

  /** stop aborts the map in flight; what is drawn stays. */
  stop() {
    clearTimeout(this.timer);
    if (this.state !== 'mapping') return;
    this.ctrl?.abort();
  }

  /** resume maps the rest after a stop, or again after a failure. */
  resume() {
    if (this.state === 'mapping') return;
    const again = this.state === 'failed' && !this.buckets.length;
    this.state = 'idle';
    this.run(!again && this.size > 0 && this.buckets.length > 0);
  }

  /** remap maps the whole partition afresh. */
  remap() {
    clearTimeout(this.timer);
    this.gen++; // a map in flight is dropped, not reported
    this.ctrl?.abort();
    this.ctrl = null;
    this.size = 0;
    this.state = 'idle';
    this.writeData();
    queueMicrotask(() => this.run());
  }

  // ---- drawing and status -------------------------------------------------

  draw() {
    const c = this.canvas;
    const w = c.clientWidth;
    const h = c.clientHeight;
    if (!w || !h) return;
    const g = sizeCanvas(c, w, h);
    g.fillStyle = PALETTE.empty;
    g.fillRect(0, 0, w, h);
    // A replayed moment follows the live map as it grows (its older part).
    const then = this.pastState;
    this.past = then && then.pointers ? { pointers: then.pointers, buckets: pastBuckets(this.buckets, then, { base: this.base, size: this.size }) } : null;
    this.writeData();
    if (this.past) {
      const pp = this.past.pointers;
      const s = minimapScale(pp.logStartOffset, pp.highWatermark, h);
      drawBuckets(g, this.past.buckets, { pos: s.y, thick: w, vertical: true, pats: patterns(g) });
      return;
    }
    const p = this.ptrs;
    if (!p || !this.buckets.length) return;
    const s = minimapScale(p.logStartOffset, p.highWatermark, h);
    const shown = this.buckets.filter((b) => b.to > p.logStartOffset);
    drawBuckets(g, shown, { pos: s.y, thick: w, vertical: true, pats: patterns(g) });
    // Written but not mapped yet: a light blank.
    const to = this.mappedTo;
    if (to < p.highWatermark) {
      g.fillStyle = PALETTE.unwritten;
      g.fillRect(0, s.y(to), w, s.y(p.highWatermark) - s.y(to));
    }
  }

  /** writeData puts what the strip shows in data attributes (tests, the saved view) and its label. */
  writeData() {
    const mm = this.minimap;
    const sum = totals(this.past ? this.past.buckets : this.buckets);
    for (const k of COUNTS) mm.dataset['heat' + k[0].toUpperCase() + k.slice(1)] = sum[k];
    // Which moment the strip shows, and the high watermark it ends at.
    mm.dataset.heatMoment = this.past ? 'past' : 'live';
    mm.dataset.heatHw = String((this.past ? this.past.pointers : this.ptrs)?.highWatermark ?? '');
    mm.dataset.heat = this.state;
    mm.dataset.heatFrom = String(this.base);
    mm.dataset.heatTo = String(this.mappedTo);
    mm.dataset.heatBuckets = String(this.buckets.length);
    mm.dataset.heatMs = String(Math.round(this.tookMs));
  }

  writeStatus() {
    const p = this.ptrs;
    const done = this.mappedTo - this.base;
    const all = p ? Math.max(0, p.highWatermark - this.base) : 0;
    const pct = all > 0 ? Math.min(100, Math.floor((100 * done) / all)) : 100;
    const s = this.state;
    this.status.dataset.state = s;
    // The status shows while a big map streams, and after a stop or a failure.
    this.status.hidden = !(s === 'stopped' || s === 'failed' || (s === 'mapping' && p && p.highWatermark - this.runFrom > CHUNK_OFFSETS));
    this.bar.max = 100;
    this.bar.value = pct;
    this.stopButton.hidden = s !== 'mapping';
    this.resumeButton.hidden = !(s === 'stopped' || s === 'failed');
    const args = { done: fmt(Math.max(0, done)), all: fmt(all), pct };
    if (s === 'stopped') tr(this.text, 'map.stopped', args);
    else if (s === 'failed') tr(this.text, 'map.failed', args);
    else tr(this.text, 'map.mapping', args);
    this.error.hidden = s !== 'failed' || !this.err;
    if (s === 'failed' && this.err) showErrorText(this.error, this.err);
    this.bar.setAttribute('aria-valuetext', t('map.mapping', args));
    this.writeSummary(pct);
    this.onState?.({ state: s, totals: totals(this.buckets), firstWrite: this.firstWrite, lastWrite: this.lastWrite, from: this.base, to: this.mappedTo });
  }

  /** writeSummary says in the Explore tab what the strip shows, in words. */
  writeSummary(pct) {
    if (!this.summary) return;
    const sum = totals(this.buckets);
    const parts = [];
    const each = [
      ['plain', 'strip.plain'], ['committed', 'strip.committed'], ['aborted', 'strip.aborted'], ['open', 'strip.openRecords'],
      ['commitMarkers', 'strip.commitMarkers'], ['abortMarkers', 'strip.abortMarkers'],
      // Gaps by why they are empty (the map's per-reason counts); an
      // older server's map has only the total.
      ...(sum.gaps > sum.gapsCompacted + sum.gapsBeforeLogStart + sum.gapsUnknown
        ? [['gaps', 'strip.gaps']]
        : [['gapsCompacted', 'strip.gapsCompacted'], ['gapsBeforeLogStart', 'strip.gapsDeleted'], ['gapsUnknown', 'strip.gaps']]),
    ];
    for (const [k, key] of each) if (sum[k] > 0) parts.push(t(key, { count: fmt(sum[k]) }));
    const range = { from: fmt(this.base), to: fmt(this.mappedTo), secs: (this.tookMs / 1000).toFixed(1), pct };
    let head;
    if (!this.ptrs) head = '';
    else if (this.state === 'done') head = t('map.summaryDone', range);
    else head = t('map.summaryPartial', range);
    this.summary.textContent = head + (parts.length ? ' ' + parts.join(' · ') : '');
  }
}
