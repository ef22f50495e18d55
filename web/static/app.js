// app.js: boots the dashboard. It owns which partition is on show (the
// URL /topics/{topic}/partitions/{p}, plus ?at= and ?sel= for the scroll
// position and the selected offset), connects the live stream to the log
// view and the timeline, and shows the broker banner.

import { api, errorText, partitionPath } from './api.js';
import { LogView } from './logview.js';
import { Stream } from './stream.js';
import { Timeline } from './timeline.js';
import { showDetails } from './details.js';
import { setupPanels } from './panels.js';
import { setupLessons } from './lessons.js';
import { setupClassroom } from './classroom.js';
import { setupBrokers } from './brokers.js';
import { has, plain, setupI18n, t, tr } from './i18n.js';

setupI18n();

const $ = (id) => document.getElementById(id);
const main = $('app');
const state = {
  topic: main.dataset.topic || '',
  partition: Number(main.dataset.partition) || 0,
  hasTopic: main.dataset.hasTopic === 'true',
};

// ---- broker banner ------------------------------------------------------

const banner = $('broker-banner');
const bannerText = $('broker-banner-text');
const reach = { cluster: banner.hidden, stream: true, why: '' };

function setBanner() {
  const down = !reach.cluster || !reach.stream;
  banner.hidden = !down;
  if (down) tr(bannerText, reach.why ? 'banner.textWhy' : 'banner.text', reach.why ? { why: reach.why } : undefined);
  document.body.classList.toggle('broker-down', down);
}

async function pollCluster() {
  try {
    const c = await api('GET', '/api/cluster');
    reach.cluster = c.reachable;
    if (c.reachable) reach.stream = true;
    reach.why = c.error ? `(${c.error})` : '';
  } catch (err) {
    reach.cluster = false;
    reach.why = errorText(err);
  }
  setBanner();
}
setInterval(() => {
  if (!document.hidden) pollCluster();
}, 4000);

function apiFailed(err) {
  if (err && err.status === 503) {
    reach.cluster = false;
    reach.why = '';
    setBanner();
  }
}

// ---- log, timeline, stream ----------------------------------------------

const view = new LogView({
  onDetails: (offset, entry, transient) => showDetails(offset, entry, view.pointers, transient),
  onError: apiFailed,
  onView: saveViewSoon,
});
const timeline = new Timeline($('timeline'), (offset) => {
  view.follow = false;
  view.updateFollow();
  view.jumpTo(offset, true);
  view.select(offset);
});

const streamStatus = $('stream-status');
const stream = new Stream(onMessage, (s, why, delay) => {
  streamStatus.dataset.state = s;
  const secs = delay ? Math.max(1, Math.round(delay / 1000)) : 0;
  const key = s === 'reconnecting' ? (secs ? 'stream.reconnectingIn' : 'stream.reconnecting') : 'stream.' + s;
  tr(streamStatus, key, { seconds: secs, why: why ? ' (' + why + ')' : '' });
  if (s === 'reconnecting' && state.hasTopic) checkTopic();
});

function onMessage(m) {
  if (m.type !== 'event' && (m.topic !== state.topic || m.partition !== state.partition)) return;
  switch (m.type) {
    case 'snapshot':
      view.applySnapshot(m);
      labelPicked(m.pointers);
      timeline.reset(m.events);
      reach.stream = m.reachable !== false;
      setBanner();
      break;
    case 'entries':
      view.applyEntries(m.entries || []);
      break;
    case 'pointers':
      view.applyPointers(m.pointers);
      labelPicked(m.pointers);
      break;
    case 'groups':
      view.applyGroups(m.groups || []);
      break;
    case 'event':
      if (m.event) timeline.add(m.event);
      break;
    case 'broker':
      reach.stream = !!m.reachable;
      if (!m.reachable) reach.why = m.error ? `(${m.error})` : '';
      setBanner();
      pollCluster();
      break;
  }
}

/** checkTopic stops reconnecting to a partition that does not exist. */
async function checkTopic() {
  const { topic, partition } = state;
  let t0 = null;
  try {
    const t = await api('GET', `/api/topics/${encodeURIComponent(topic)}`);
    if (partition >= t.partitions.length) {
      t0 = { topic, count: t.partitions.length, partition };
      throw Object.assign(new Error(`Topic ${topic} has ${t.partitions.length} partition(s); partition ${partition} does not exist.`), { status: 404 });
    }
  } catch (err) {
    if (err.status !== 404 || topic !== state.topic) return;
    stream.close();
    const problem = $('problem');
    if (err.message.startsWith('Topic ') && t0) tr(problem, 'problem.partitionMissing', t0);
    else {
      delete problem.dataset.i18n;
      problem.textContent = errorText(err) + ' ' + t('problem.createHint');
    }
    problem.hidden = false;
  }
}

// ---- navigation -----------------------------------------------------------

function readQuery() {
  const q = new URLSearchParams(location.search);
  const num = (k) => (q.has(k) && /^\d+$/.test(q.get(k)) ? Number(q.get(k)) : undefined);
  return { at: num('at'), sel: num('sel') };
}

let saveTimer = 0;
function saveViewSoon() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    if (!state.hasTopic) return;
    const q = new URLSearchParams();
    if (!view.follow) {
      const first = view.firstVisibleOffset();
      if (first !== null) q.set('at', String(first));
    }
    if (view.selected !== null) q.set('sel', String(view.selected));
    const s = q.toString();
    history.replaceState(null, '', partitionPath(state.topic, state.partition) + (s ? '?' + s : ''));
  }, 300);
}

async function navigate(topic, partition, opts = {}) {
  if (!opts.force && state.hasTopic && topic === state.topic && partition === state.partition) return;
  Object.assign(state, { topic, partition, hasTopic: true });
  if (opts.push !== false) history.pushState(null, '', partitionPath(topic, partition));
  document.title = `${topic}-${partition} · Offset Lab`;
  plain($('log-name'), `${topic}-${partition}`);
  $('problem').hidden = true;
  document.querySelector('.empty')?.remove();
  $('log-frame').hidden = false;
  $('goto-form').hidden = false;
  main.dataset.topic = topic;
  main.dataset.partition = String(partition);
  main.dataset.hasTopic = 'true';
  panels.onTopic(topic);
  syncPicker();
  timeline.reset([]);
  view.reset(topic, partition, opts.at, opts.sel);
  stream.open(topic, partition);
}

window.addEventListener('popstate', () => {
  const m = location.pathname.match(/^\/topics\/([^/]+)\/partitions\/(\d+)$/);
  if (!m) {
    location.reload();
    return;
  }
  navigate(decodeURIComponent(m[1]), Number(m[2]), { push: false, force: true, ...readQuery() });
});

// ---- topic picker -----------------------------------------------------------

const picker = $('topic-select');

function syncPicker() {
  const want = `${state.topic}/${state.partition}`;
  if (![...picker.options].some((o) => o.value === want)) {
    picker.append(tr(new Option('', want), 'picker.partition', { topic: state.topic, partition: state.partition }));
  }
  picker.value = want;
  picker.querySelector('option[value=""]')?.remove();
}

/** labelPicked keeps the picked partition's offset count current. */
function labelPicked(pointers) {
  const option = picker.selectedOptions[0];
  if (!pointers || !option || option.value !== `${state.topic}/${state.partition}`) return;
  const n = Math.max(0, pointers.highWatermark - pointers.logStartOffset);
  tr(option, 'picker.partitionOffsets', { topic: state.topic, partition: state.partition, offsets: n });
}

async function refreshTopics() {
  try {
    const { topics } = await api('GET', '/api/topics');
    const options = [];
    for (const t of topics) {
      if (t.internal || t.name.startsWith('__')) continue;
      for (const p of t.partitions) {
        const n = Math.max(0, p.highWatermark - p.logStartOffset);
        options.push(tr(new Option('', `${t.name}/${p.partition}`), 'picker.partitionOffsets', { topic: t.name, partition: p.partition, offsets: n }));
      }
    }
    const keep = picker.value;
    picker.replaceChildren(...options);
    if (!state.hasTopic) {
      picker.prepend(tr(new Option('', ''), 'picker.choose'));
      picker.value = '';
    } else {
      picker.value = keep;
      syncPicker();
    }
  } catch (err) {
    apiFailed(err);
  }
}

function openPicked() {
  const v = picker.value;
  const cut = v.lastIndexOf('/');
  if (cut <= 0) return;
  navigate(v.slice(0, cut), Number(v.slice(cut + 1)));
}
picker.addEventListener('change', openPicked);
picker.addEventListener('focus', refreshTopics);
$('topic-picker').addEventListener('submit', (ev) => {
  ev.preventDefault();
  openPicked();
});

$('goto-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const n = parseInt($('goto-offset').value, 10);
  if (Number.isNaN(n)) return;
  view.follow = false;
  view.updateFollow();
  view.jumpTo(n, true);
  view.select(view.active);
});

// ---- boot ---------------------------------------------------------------------

const panels = setupPanels({ current: () => ({ ...state }), navigate, refreshTopics, apiFailed });

if (state.hasTopic) {
  navigate(state.topic, state.partition, { push: false, force: true, ...readQuery() });
} else {
  timeline.reset([]);
}
pollCluster();
setupClassroom({ current: () => ({ ...state }), navigate });
setupLessons({ current: () => ({ ...state }), navigate });
setupBrokers({ current: () => ({ ...state }) });
main.dataset.ready = 'true';
