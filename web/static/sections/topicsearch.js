// topicsearch.js: the topic page's "Search every partition" card. A
// search asks GET /api/topics/{t}/search for a streamed answer
// (application/x-ndjson): each partition's progress as it moves on, then
// the matches, each with its partition; Stop aborts the request (the
// server stops with it); More resumes each partition where it stopped
// (the answer's next). "Go there" asks GET …/offsets?timestamp= for every
// partition's first offset at or after a time. Every match and offset
// opens the partition's log there.

import { ApiError, api, fmt, partitionPath, patiently, showErrorText } from '../common/api.js';
import { plain, tr } from '../common/i18n.js';

const VALUE_CHARS = 160;

/**
 * readLines calls onLine with each JSON object of an NDJSON body.
 * @param {ReadableStream<Uint8Array>} body
 * @param {(v: any) => void} onLine
 */
export async function readLines(body, onLine) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onLine(JSON.parse(line));
    }
    if (done) break;
  }
  if (buf.trim()) onLine(JSON.parse(buf));
}

/** cellText is a key or value as the log shows it: text, else hex. */
export function cellText(v, encoding) {
  if (v === null || v === undefined) return 'null';
  if (encoding !== 'base64') return v.length > VALUE_CHARS ? v.slice(0, VALUE_CHARS) + '…' : v;
  const bin = atob(v);
  let hex = '';
  for (let i = 0; i < Math.min(bin.length, VALUE_CHARS / 2); i++) hex += bin.charCodeAt(i).toString(16).padStart(2, '0');
  return '0x' + hex + (bin.length > VALUE_CHARS / 2 ? '…' : '');
}

/** timeText is a record timestamp with its date, in UTC. */
export function timeText(ms) {
  if (typeof ms !== 'number' || ms < 0) return '—';
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

/**
 * setupTopicSearch wires the card.
 * @param {HTMLElement} card the #topic-search section
 */
export function setupTopicSearch(card) {
  const topic = card.dataset.topic;
  const q = (id) => /** @type {any} */ (card.querySelector(`#${id}`));
  const form = q('tsearch-form');
  const stop = q('tsearch-stop');
  const more = q('tsearch-more');
  const status = q('tsearch-status');
  const progress = q('tsearch-progress');
  const error = q('tsearch-error');
  const table = q('tsearch-results');
  const rows = table.querySelector('tbody');
  let running = null; // the AbortController of the search under way
  let next = null; // where More goes on
  let found = 0;

  function showError(err) {
    error.hidden = !err;
    if (err) showErrorText(error, err);
  }

  function progressRow(partition) {
    let li = progress.querySelector(`[data-partition="${partition}"]`);
    if (!li) {
      li = document.createElement('li');
      li.dataset.partition = String(partition);
      li.dataset.testid = 'tsearch-partition';
      li.setAttribute('data-testid', 'tsearch-partition');
      progress.append(li);
    }
    return li;
  }

  function addMatch(m) {
    const tr0 = document.createElement('tr');
    tr0.dataset.testid = 'tsearch-match';
    tr0.setAttribute('data-testid', 'tsearch-match');
    tr0.dataset.partition = String(m.partition);
    tr0.dataset.offset = String(m.offset);
    const link = document.createElement('a');
    link.href = `${partitionPath(topic, m.partition)}?at=${m.offset}&sel=${m.offset}`;
    link.textContent = fmt(m.offset);
    const cells = [String(m.partition), link, timeText(m.timestamp), cellText(m.key, m.keyEncoding), cellText(m.value, m.valueEncoding)];
    for (const [i, c] of cells.entries()) {
      const td = document.createElement(i === 0 ? 'th' : 'td');
      if (i === 0) td.scope = 'row';
      if (typeof c === 'string') td.textContent = c;
      else td.append(c);
      if (i >= 3) td.className = 'mono';
      tr0.append(td);
    }
    rows.append(tr0);
  }

  async function search(resume) {
    running?.abort();
    const controller = new AbortController();
    running = controller;
    showError(null);
    if (!resume) {
      rows.replaceChildren();
      progress.replaceChildren();
      found = 0;
    }
    const params = new URLSearchParams({ q: q('tsearch-q').value });
    if (q('tsearch-in').value) params.set('in', q('tsearch-in').value);
    if (q('tsearch-path').value.trim()) params.set('path', q('tsearch-path').value.trim());
    if (resume) params.set('next', resume);
    stop.hidden = false;
    more.hidden = true;
    tr(status, 'topicSearch.running', { partitions: progress.children.length || '…' });
    card.dataset.state = 'running';
    let result = null;
    try {
      // The scans' line may be full (the strips map too): wait as the
      // server asks and try again, as every expensive read does.
      const resp = await patiently(async () => {
        const r = await fetch(`/api/topics/${encodeURIComponent(topic)}/search?${params}`, {
          headers: { Accept: 'application/x-ndjson' }, signal: controller.signal,
        });
        if (!r.ok || !r.body) {
          const body = await r.json().catch(() => ({}));
          const err = /** @type {ApiError & {retryAfter?: string | null}} */ (new ApiError(r.status, body.error || r.statusText, body.code, body.args));
          err.retryAfter = r.headers.get('Retry-After');
          throw err;
        }
        return r;
      }, controller.signal);
      await readLines(resp.body, (line) => {
        if (line.progress) {
          const p = line.progress;
          tr(progressRow(p.partition), p.done ? 'topicSearch.partitionDone' : 'topicSearch.partition',
            { partition: p.partition, at: fmt(p.scannedTo), count: fmt(p.matches) });
          tr(status, 'topicSearch.running', { partitions: progress.children.length });
        } else if (line.result) {
          result = line.result;
        } else if (line.error) {
          throw new ApiError(line.error.status || 500, line.error.error, line.error.code, line.error.args);
        }
      });
      if (!result) throw new ApiError(0, 'the search ended without an answer');
      for (const m of result.matches) addMatch(m);
      found += result.matches.length;
      table.hidden = found === 0;
      next = result.next;
      more.hidden = !next;
      const partitions = result.partitions.length;
      if (next) tr(status, 'topicSearch.more', { count: found });
      else if (found === 0) tr(status, 'topicSearch.none', { partitions });
      else tr(status, 'topicSearch.done', { count: found, partitions });
      card.dataset.state = next ? 'more' : 'done';
    } catch (err) {
      if (controller.signal.aborted) {
        tr(status, 'topicSearch.stopped', { count: found });
        card.dataset.state = 'stopped';
      } else {
        showError(err);
        plain(status, '');
        card.dataset.state = 'error';
      }
    } finally {
      if (running === controller) running = null;
      stop.hidden = true;
    }
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    next = null;
    search(null);
  });
  stop.addEventListener('click', () => running?.abort());
  more.addEventListener('click', () => {
    if (next) search(next);
  });

  const seekForm = q('tseek-form');
  const seekList = q('tseek-results');
  const seekError = q('tseek-error');
  seekForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    seekError.hidden = true;
    const ms = new Date(q('tseek-time').value).getTime();
    if (!Number.isFinite(ms)) return;
    try {
      const r = await api('GET', `/api/topics/${encodeURIComponent(topic)}/offsets?timestamp=${ms}`);
      seekList.replaceChildren(...r.partitions.map((p) => {
        const li = document.createElement('li');
        li.setAttribute('data-testid', 'tseek-partition');
        li.dataset.partition = String(p.partition);
        li.dataset.offset = String(p.offset);
        const a = document.createElement('a');
        a.href = `${partitionPath(topic, p.partition)}?at=${p.offset}&sel=${p.offset}`;
        tr(a, p.timestamp < 0 ? 'topicSearch.seekEnd' : 'topicSearch.seekRow', { partition: p.partition, offset: fmt(p.offset) });
        li.append(a);
        if (p.timestamp >= 0) li.append(' · ', timeText(p.timestamp));
        return li;
      }));
    } catch (err) {
      seekError.hidden = false;
      showErrorText(seekError, err);
    }
  });
}
