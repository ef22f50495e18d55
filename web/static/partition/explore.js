// explore.js: the dock's Explore tab on the partition page — the tools a
// Kafka engineer reaches for in a long partition, each moving the log on
// the left to the offset it finds and selecting it (the focus stays on
// the control, so Next can be pressed again):
//   - jumps to the next or previous aborted or open record, tombstone,
//     COMMIT or ABORT marker, or gap (GET …/jump, going on where its byte
//     budget ended), from the selected offset or else the first on screen;
//   - going to an offset, or to the first record at or after a time
//     (GET …/offset?timestamp=, ListOffsets by time);
//   - a search of keys, values, headers or a JSON path over a range
//     (GET …/search), read in slices of the range one after another so its
//     progress shows (offsets searched of the range, matches so far), Stop
//     aborts the request in flight, and More goes on after the first
//     MAX_RESULTS matches; a result opens its offset;
//   - a download of the offsets on screen or of a range as JSON Lines,
//     built in the page from GET …/log, at most the panel's data-max
//     offsets a file;
//   - Map again for the minimap's heat strip (partmap.js).
// Errors are the API's sentences (code and args: the catalogue), in the
// page's language.

import { api, apiPartition, fmt, patiently, showErrorText } from '../common/api.js';
import { dateTime } from '../common/catalog.js';
import { onLanguage, plain, t, tr } from '../common/i18n.js';

const $ = (id) => document.getElementById(id);

// Search: how many matches are listed before More; each request asks for
// at most PAGE_MATCHES, over a slice of the range that grows while
// requests are quick and shrinks when one is slow.
const MAX_RESULTS = 500;
const PAGE_MATCHES = 100;
const FIRST_SLICE = 50_000;
const MAX_SLICE = 4_000_000;
// Download: offsets per …/log request.
const LOG_PAGE = 2000;

/** utf8Bytes is how many bytes a string takes in UTF-8 (the API's measure of a query). */
function utf8Bytes(s) {
  return new TextEncoder().encode(s).length;
}

/** showError puts an error's sentence in node (hidden when err is null). */
function showError(node, err) {
  node.hidden = !err;
  if (err) showErrorText(node, err);
  else plain(node, '');
}

/**
 * localInput writes ms as a datetime-local value in the browser's time zone.
 * @param {number} ms
 */
export function localInput(ms) {
  const d = new Date(ms);
  const p = (n, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** zoneText is the browser's offset from UTC, as +09:00. */
function zoneText() {
  const m = -new Date().getTimezoneOffset();
  const sign = m >= 0 ? '+' : '−';
  const a = Math.abs(m);
  return `UTC${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/**
 * A Task is one cancellable activity of a section (a search, a download,
 * a jump): starting one aborts the one before.
 */
class Task {
  /**
   * @param {HTMLButtonElement} stopButton shown while the task runs
   */
  constructor(stopButton) {
    this.ctrl = null;
    this.stopButton = stopButton;
    stopButton?.addEventListener('click', () => this.stop());
  }

  start() {
    this.ctrl?.abort();
    this.ctrl = new AbortController();
    if (this.stopButton) this.stopButton.hidden = false;
    return this.ctrl.signal;
  }

  done(signal) {
    if (this.ctrl && this.ctrl.signal === signal) {
      this.ctrl = null;
      if (this.stopButton) this.stopButton.hidden = true;
    }
  }

  stop() {
    this.ctrl?.abort();
  }
}

/**
 * @typedef {object} ExploreTab the Explore tab's shared state
 * @property {import('./app.js').App} app
 * @property {import('./logview.js').LogView} view
 * @property {() => string} path the open partition's API prefix
 * @property {() => import('../types/wire.js').Pointers|null} pointers the live pointers (kept aside while replaying)
 * @property {(err: any) => void} failed tells the page of an unreachable broker or server
 */

/**
 * setupExplore wires the Explore tab.
 * @param {import('./app.js').App} app the page: current(), view (the LogView), heat (the HeatStrip), dock, apiFailed
 */
export function setupExplore(app) {
  const view = app.view;
  const path = () => {
    const { topic, partition } = app.current();
    return apiPartition(topic, partition);
  };
  const pointers = () => view.replaying ? view.stash?.pointers : view.pointers;
  const failed = (err) => {
    if (err && (err.status === 503 || err.status === 0)) app.apiFailed(err);
  };

  const tab = { app, view, path, pointers, failed };
  const parts = [setupJumps(tab), setupSeek(tab), setupSearch(tab), setupDownload(tab)];

  // The heat strip's Map again.
  $('map-remap').addEventListener('click', () => app.heat.remap());

  /** reset forgets what the tab found: another partition is on show. */
  return {
    reset() {
      for (const part of parts) part.reset();
    },
  };
}

/**
 * setupJumps wires the jumps to the next or previous offset of a kind (…/jump), going on past each scan's byte budget.
 * @param {ExploreTab} tab the Explore tab's shared state (see setupExplore)
 * @returns {{reset: () => void}} forgets what it found
 */
function setupJumps({ app, view, path, pointers, failed }) {
  const jumpStatus = $('jump-status');
  const jumpError = $('jump-error');
  const jumpTask = new Task(null);

  async function jump(kind, backward) {
    const p = pointers();
    if (!app.current().hasTopic || !p) return;
    const signal = jumpTask.start();
    showError(jumpError, null);
    const sel = view.selected;
    const ref = sel ?? view.firstVisibleOffset() ?? p.logStartOffset;
    // Next: after the selected offset (from the first on screen when none
    // is selected); previous: before it.
    let at = backward ? ref : (sel !== null ? ref + 1 : ref);
    const args = { kindKey: 'jump.kind.' + kind };
    try {
      for (;;) {
        const q = backward ? `to=${at}&backward=true` : `from=${at}`;
        const r = await patiently(() => api('GET', `${path()}/jump?kind=${kind}&${q}`, undefined, signal), signal);
        if (r.offset !== null && r.offset !== undefined) {
          view.goTo(r.offset);
          tr(jumpStatus, 'jump.found', { ...args, offset: fmt(r.offset) });
          jumpStatus.dataset.offset = r.offset;
          return;
        }
        if (r.next === null || r.next === undefined) {
          const key = backward ? 'jump.noneBefore' : sel !== null ? 'jump.noneAfter' : 'jump.noneFrom';
          tr(jumpStatus, key, { ...args, offset: fmt(ref) });
          jumpStatus.dataset.offset = '';
          return;
        }
        // The byte budget ended the scan: go on from where it stopped.
        at = r.next;
        tr(jumpStatus, 'jump.looking', { ...args, offset: fmt(at) });
      }
    } catch (err) {
      if (err.name === 'AbortError') return;
      showError(jumpError, err);
      failed(err);
    } finally {
      jumpTask.done(signal);
    }
  }

  for (const b of document.querySelectorAll('button[data-jump]')) {
    b.addEventListener('click', () => jump(b.dataset.jump, b.dataset.backward === 'true'));
  }

  return {
    reset() {
      jumpTask.stop();
      plain(jumpStatus, '');
      showError(jumpError, null);
    },
  };
}

/**
 * setupSeek wires going to an offset or a time (…/offset), the time in the viewer's zone.
 * @param {ExploreTab} tab the Explore tab's shared state (see setupExplore)
 * @returns {{reset: () => void}} forgets what it found
 */
function setupSeek({ app, view, path, pointers, failed }) {
  const seekStatus = $('seek-status');
  const seekError = $('seek-error');
  const zone = $('seek-zone');
  const writeZone = () => tr(zone, 'seek.zone', { zone: zoneText() });
  writeZone();

  $('seek-offset-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    showError(seekError, null);
    const n = parseInt($('seek-offset').value, 10);
    if (Number.isNaN(n) || n < 0) {
      tr(seekStatus, 'seek.needOffset');
      return;
    }
    view.goTo(n);
    const p = pointers();
    tr(seekStatus, p && n >= p.highWatermark ? 'seek.pastEnd' : 'seek.atOffset', { offset: fmt(p && n >= p.highWatermark ? p.highWatermark : n) });
  });

  $('seek-time-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(seekError, null);
    const raw = $('seek-time').value;
    const ms = raw ? new Date(raw).getTime() : NaN;
    if (!Number.isFinite(ms)) {
      tr(seekStatus, 'seek.needTime');
      return;
    }
    try {
      const r = await patiently(() => api('GET', `${path()}/offset?timestamp=${ms}`));
      const p = pointers();
      const hw = p ? Math.max(p.highWatermark, r.offset) : r.offset;
      view.goTo(r.offset);
      seekStatus.dataset.offset = r.offset;
      if (r.offset >= hw || r.timestamp < 0) {
        tr(seekStatus, 'seek.noneAfter', { time: dateTime(ms), offset: fmt(r.offset) });
      } else {
        tr(seekStatus, 'seek.foundTime', { offset: fmt(r.offset), time: dateTime(r.timestamp), utc: new Date(r.timestamp).toISOString() });
      }
    } catch (err) {
      showError(seekError, err);
      failed(err);
    }
  });

  onLanguage(writeZone);

  return {
    reset() {
      plain(seekStatus, '');
      showError(seekError, null);
    },
  };
}

/**
 * setupSearch wires the search of keys, values, headers or a JSON path (…/search) with its progress, Stop and More.
 * @param {ExploreTab} tab the Explore tab's shared state (see setupExplore)
 * @returns {{reset: () => void}} forgets what it found
 */
function setupSearch({ app, view, path, pointers, failed }) {
  const form = $('search-form');
  const maxQuery = Number(form.dataset.maxQuery) || 4096;
  const searchStatus = $('search-status');
  const searchError = $('search-error');
  const progressLine = $('search-progress-line');
  const progress = $('search-progress');
  const results = $('search-results');
  const more = $('search-more');
  const searchTask = new Task($('search-stop'));
  let search = null; // {query, from, to, at, count, slice}

  function writeSearch(state) {
    if (!search) return;
    const span = Math.max(1, search.to - search.from);
    const done = Math.min(span, Math.max(0, search.at - search.from));
    progress.max = span;
    progress.value = done;
    progressLine.hidden = false;
    const args = { done: fmt(done), all: fmt(search.to - search.from), from: fmt(search.from), to: fmt(Math.max(search.from, search.to - 1)), count: fmt(search.count), at: fmt(search.at) };
    const key = state === 'done' && search.count === 0 ? 'search.none'
      : { running: 'search.running', done: 'search.done', stopped: 'search.stopped', full: 'search.full' }[state];
    tr(searchStatus, key, args);
    searchStatus.dataset.state = state;
    searchStatus.dataset.count = search.count;
    searchStatus.dataset.scanned = done;
    results.dataset.count = search.count;
  }

  function resultItem(e) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.testid = 'search-result';
    b.dataset.offset = e.offset;
    b.dataset.txn = e.txn;
    const off = document.createElement('span');
    off.className = 'r-off';
    off.textContent = fmt(e.offset);
    const text = document.createElement('span');
    text.className = 'r-text';
    const key = e.key === null || e.key === undefined ? '' : (e.keyEncoding === 'base64' ? t('cell.binary', { value: e.key }) : e.key) + ' · ';
    const value = e.value === null || e.value === undefined ? t('cell.nullValue') : e.valueEncoding === 'base64' ? t('cell.binary', { value: e.value }) : e.value;
    text.textContent = key + value;
    const out = document.createElement('span');
    out.className = 'r-out';
    out.dataset.outcome = e.txn;
    tr(out, { committed: 'table.out.committed', aborted: 'table.out.aborted', open: 'table.out.open' }[e.txn] || 'table.out.none');
    b.append(off, text, out);
    b.addEventListener('click', () => {
      for (const x of results.querySelectorAll('[aria-current]')) x.removeAttribute('aria-current');
      b.setAttribute('aria-current', 'true');
      view.goTo(e.offset);
    });
    li.append(b);
    return li;
  }

  async function runSearch() {
    const signal = searchTask.start();
    more.hidden = true;
    showError(searchError, null);
    const s = search;
    const q = new URLSearchParams({ q: s.query, in: s.in });
    if (s.path) q.set('path', s.path);
    if (s.path && s.match) q.set('match', s.match);
    writeSearch('running');
    let state = 'done';
    try {
      while (s.at < s.to) {
        if (s.count >= s.cap) {
          state = 'full';
          break;
        }
        const end = Math.min(s.to, s.at + s.slice);
        q.set('from', String(s.at));
        q.set('to', String(end));
        q.set('limit', String(Math.min(PAGE_MATCHES, s.cap - s.count)));
        const began = performance.now();
        const r = await patiently(() => api('GET', `${path()}/search?${q}`, undefined, signal), signal);
        if (search !== s) return;
        const took = performance.now() - began;
        for (const e of r.matches) results.append(resultItem(e));
        s.count += r.matches.length;
        s.at = r.next ?? Math.max(end, r.scannedTo);
        if (took < 400) s.slice = Math.min(MAX_SLICE, s.slice * 2);
        else if (took > 2000) s.slice = Math.max(1000, Math.floor(s.slice / 2));
        writeSearch('running');
      }
      if (s.at >= s.to) state = 'done';
    } catch (err) {
      if (search !== s) return;
      if (err.name === 'AbortError') state = 'stopped';
      else {
        state = 'stopped';
        showError(searchError, err);
        failed(err);
      }
    } finally {
      searchTask.done(signal);
    }
    writeSearch(state);
    more.hidden = !(s.at < s.to);
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    searchTask.stop();
    const p = pointers();
    if (!app.current().hasTopic || !p) return;
    results.replaceChildren();
    progressLine.hidden = true;
    plain(searchStatus, '');
    more.hidden = true;
    search = null;
    const query = $('search-q').value;
    // A query longer than the API takes is refused here, with the API's
    // own sentence: megabytes would not even fit in the request's URL.
    const size = utf8Bytes(query);
    if (size > maxQuery) {
      showError(searchError, { code: 'error.queryTooLong', args: { size: String(size), max: String(maxQuery) }, message: `the search query is ${size} bytes long; at most ${maxQuery} are searched` });
      return;
    }
    const num = (id, def) => {
      const v = $(id).value.trim();
      return /^\d+$/.test(v) ? Number(v) : def;
    };
    // Both ends are included, as a person reads a range; the API's to is the offset after.
    const from = Math.max(p.logStartOffset, num('search-from', p.logStartOffset));
    const to = Math.min(p.highWatermark, num('search-to', p.highWatermark - 1) + 1);
    search = {
      query, in: $('search-in').value, path: $('search-path').value.trim(), match: $('search-match').value,
      from, to: Math.max(from, to), at: from, count: 0, cap: MAX_RESULTS, slice: FIRST_SLICE,
    };
    runSearch();
  });

  more.addEventListener('click', () => {
    if (!search || search.at >= search.to) return;
    search.cap = search.count + MAX_RESULTS;
    runSearch();
  });

  return {
    reset() {
      searchTask.stop();
      search = null;
      results.replaceChildren();
      progressLine.hidden = true;
      more.hidden = true;
      plain(searchStatus, '');
      showError(searchError, null);
    },
  };
}

/**
 * setupDownload wires the download of offsets as JSON Lines (…/log, at most the panel's data-max offsets).
 * @param {ExploreTab} tab the Explore tab's shared state (see setupExplore)
 * @returns {{reset: () => void}} forgets what it found
 */
function setupDownload({ app, view, path, pointers, failed }) {
  const dlPanel = $('download-panel');
  const dlMax = Number(dlPanel.dataset.max) || 20000;
  const dlStatus = $('download-status');
  const dlError = $('download-error');
  const dlTask = new Task($('download-stop'));

  async function download(from, to) {
    const p = pointers();
    const { topic, partition, hasTopic } = app.current();
    if (!hasTopic || !p) return;
    // A new download says only its own outcome: the last one's "Saved …"
    // goes before a refusal or an error is shown.
    showError(dlError, null);
    plain(dlStatus, '');
    from = Math.max(p.logStartOffset, from);
    to = Math.min(p.highWatermark, to);
    if (!(to > from)) {
      tr(dlStatus, 'download.empty', { from: fmt(from), to: fmt(to) });
      return;
    }
    if (to - from > dlMax) {
      showError(dlError, { code: 'download.tooMany', args: { count: fmt(to - from), max: fmt(dlMax) }, message: '' });
      return;
    }
    const signal = dlTask.start();
    const lines = [];
    let at = from;
    try {
      while (at < to) {
        const limit = Math.min(LOG_PAGE, to - at);
        const log = await patiently(() => api('GET', `${path()}/log?from=${at}&limit=${limit}&scan=1`, undefined, signal), signal);
        const entries = (log.entries || []).filter((e) => e.offset >= at && e.offset < to);
        for (const e of entries) lines.push(JSON.stringify({ topic, partition, ...e }));
        if (!entries.length) break;
        at = entries[entries.length - 1].offset + 1;
        tr(dlStatus, 'download.reading', { done: fmt(at - from), all: fmt(to - from) });
      }
    } catch (err) {
      if (err.name !== 'AbortError') {
        plain(dlStatus, '');
        showError(dlError, err);
        failed(err);
      } else {
        tr(dlStatus, 'download.stopped', { done: fmt(at - from), all: fmt(to - from) });
      }
      return;
    } finally {
      dlTask.done(signal);
    }
    const name = `${topic}-${partition}-${from}-${at - 1}.jsonl`;
    const blob = new Blob([lines.join('\n') + '\n'], { type: 'application/x-ndjson' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    a.hidden = true;
    a.dataset.testid = 'download-link';
    a.dataset.lines = String(lines.length);
    document.querySelector('[data-testid="download-link"]')?.remove();
    dlPanel.append(a);
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    tr(dlStatus, 'download.done', { count: fmt(lines.length), name });
  }

  $('download-window').addEventListener('click', () => {
    const first = view.firstVisibleOffset();
    const last = view.lastVisibleOffset();
    if (first === null || last === null) return;
    download(first, last + 1);
  });
  $('download-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = pointers();
    if (!p) return;
    const v = (id, def) => (/^\d+$/.test($(id).value.trim()) ? Number($(id).value.trim()) : def);
    const from = v('download-from', p.logStartOffset);
    const last = v('download-to', p.highWatermark - 1);
    download(from, last + 1);
  });

  return {
    reset() {
      dlTask.stop();
      plain(dlStatus, '');
      showError(dlError, null);
    },
  };
}
