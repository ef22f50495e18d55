// app.js: boots the dashboard. It owns which partition is on show (the
// URL /topics/{topic}/partitions/{p}, plus ?at= and ?sel= for the scroll
// position and the selected offset), connects the live stream to the log
// view and the story, keeps the log of whatever the teacher just did in
// view (show()), and shows the banner when the broker — or the Offset Lab
// server itself — does not answer.

import { api, apiPartition, errorText, partitionPath } from '../common/api.js';
import { LogView } from './logview.js';
import { Stream } from './stream.js';
import { Timeline } from './timeline.js';
import { setupDetails, showDetails } from './details.js';
import { setupDock } from './dock.js';
import { setupPanels } from './panels.js';
import { setupLessons } from './lessons.js';
import { setupStepStage } from './stepstage.js';
import { ShareLanes } from './sharelane.js';
import { setupClassroom } from './classroom.js';
import { setupBrokers } from './brokers.js';
import { setupReplay } from './replay.js';
import { setupSave } from './save.js';
import { HeatStrip } from './partmap.js';
import { setupExplore } from './explore.js';
import { setupInspectFollow } from './inspectfollow.js';
import { reportEpoch, setProducers } from './producers.js';
import { has, plain, setupI18n, span, t, tr } from '../common/i18n.js';
import { UnreadableNotice } from './unreadable.js';
import { showBudget } from '../common/budget.js';

await setupI18n();

const $ = (id) => document.getElementById(id);
const main = $('app');
const state = {
  topic: main.dataset.topic || '',
  partition: Number(main.dataset.partition) || 0,
  hasTopic: main.dataset.hasTopic === 'true',
};
const current = () => ({ ...state });
const dock = setupDock();

// ---- banner -----------------------------------------------------------------

const banner = $('broker-banner');
const bannerTitle = $('broker-banner-title');
const bannerText = $('broker-banner-text');
// server: does the Offset Lab server answer; cluster and stream: does the
// broker (as the API and the stream see it).
const reach = { server: true, cluster: banner.hidden, stream: true, why: '' };

function setBanner() {
  const serverDown = !reach.server;
  const down = serverDown || !reach.cluster || !reach.stream;
  banner.hidden = !down;
  banner.dataset.cause = serverDown ? 'server' : 'broker';
  if (serverDown) {
    tr(bannerTitle, 'banner.serverTitle');
    tr(bannerText, 'banner.serverText');
  } else if (down) {
    tr(bannerTitle, 'banner.title');
    tr(bannerText, reach.why ? 'banner.textWhy' : 'banner.text', reach.why ? { why: reach.why } : undefined);
  }
  document.body.classList.toggle('broker-down', down);
}

/** brokerWhy is why the brokers do not answer, in the viewer's language when the server names its sentence. */
function brokerWhy(m) {
  const why = m.errorCode ? t(m.errorCode, m.errorArgs || {}) : m.error;
  return why ? `(${why})` : '';
}

// The data budget: shown now, then with every poll of the cluster.
if ($('cluster-budget')) api('GET', '/api/cluster').then((c) => showBudget(c.budget), () => {});

async function pollCluster() {
  try {
    /** @type {import('../types/wire.js').ClusterStatus} */
    const c = await api('GET', '/api/cluster');
    showBudget(c.budget);
    reach.server = true;
    reach.cluster = c.reachable;
    if (c.reachable) reach.stream = true;
    reach.why = brokerWhy(c);
  } catch (err) {
    if (err.status === 0) {
      reach.server = false;
    } else {
      reach.server = true;
      reach.cluster = false;
      reach.why = errorText(err);
    }
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
  } else if (err && err.status === 0) {
    reach.server = false;
    setBanner();
  }
}

// ---- log, story, stream ---------------------------------------------------------

const view = new LogView({
  onDetails: (offset, entry, transient) =>
    showDetails(offset, entry, view.pointers, transient, offset === null ? null : view.copyOf(offset), offset === null ? null : view.epochRise(offset)),
  onPick: () => dock.show('details', { remember: false }),
  onError: apiFailed,
  onView: saveViewSoon,
});
const shareLanes = new ShareLanes(view);
setupDetails((offset) => {
  view.follow = false;
  view.updateFollow();
  view.jumpTo(offset, true);
  view.select(offset);
});

// The minimap's heat strip: the whole partition's map, streamed.
const heat = new HeatStrip({ onError: apiFailed });

const timeline = new Timeline($('timeline'), {
  current,
  onPick: async ({ topic, partition, offsets, primary }) => {
    if (topic && (topic !== state.topic || partition !== state.partition)) {
      await navigate(topic, partition, { sel: primary ?? undefined, at: primary ?? undefined });
      return;
    }
    view.mark(offsets);
    if (primary !== null) {
      view.follow = false;
      view.updateFollow();
      view.jumpTo(primary, false);
      view.select(primary);
    }
    view.reveal(offsets.length ? offsets : [primary]);
  },
});
heat.onState = (s) => timeline.setMap(s);

/** heard learns what an event says about our producers: retries and reported epochs. */
function heard(e) {
  const a = e.args || {};
  if (e.key === 'narration.retry' && e.topic === state.topic && e.partition === state.partition) view.noteRetry(Number(a.offset), Number(a.of));
  if (a.producer !== undefined && a.epoch !== undefined && /^narration\.(txn|fence|acklost)/.test(e.key || '')) reportEpoch(a.producer, Number(a.epoch));
}

const streamStatus = $('stream-status');
const unreadable = new UnreadableNotice(
  { box: $('problem'), frame: $('log-frame'), status: streamStatus },
  { span, tr, has, text: (s) => plain(document.createElement('span'), s) },
);
const stream = new Stream(onMessage, (s, why, delay) => {
  if (s === 'idle' && unreadable.reason === 'refused') return; // it says why it stopped
  if (s === 'open' && unreadable.reason === 'problem') return; // live, but it says the partition cannot be read
  const shown = s === 'idle' && !state.hasTopic ? 'none' : s;
  streamStatus.dataset.state = shown;
  const secs = delay ? Math.max(1, Math.round(delay / 1000)) : 0;
  const key = shown === 'reconnecting' ? (secs ? 'stream.reconnectingIn' : 'stream.reconnecting') : 'stream.' + shown;
  tr(streamStatus, key, { seconds: secs, why: why ? ' (' + why + ')' : '' });
  if (s === 'reconnecting' && state.hasTopic) {
    checkTopic();
    pollCluster();
  }
});

/**
 * onMessage takes in one message of the live stream. Its switch covers
 * every message type the server sends (MessageType, generated from
 * internal/live): a type without a case fails the page's type check.
 * @param {import('../types/wire.js').Message} m
 */
function onMessage(m) {
  if (m.type !== 'event' && (m.topic !== state.topic || m.partition !== state.partition)) return;
  switch (m.type) {
    case 'snapshot':
      setProducers(m.topic, m.partition, m.producers);
      view.applySnapshot(m);
      shareLanes.set(m.shares);
      unreadable.problem(m.problem, { empty: view.cache.pages.size === 0 });
      heat.setPointers(m.pointers);
      timeline.setPointers(m.pointers);
      labelPicked(m.pointers);
      follow.groups(m.groups || []);
      follow.pointers(m.pointers);
      for (const e of m.events || []) heard(e);
      timeline.reset(m.events);
      reach.stream = m.reachable !== false;
      reach.server = true;
      setBanner();
      replay.onLive(m);
      break;
    case 'entries':
      view.applyEntries(m.entries || []);
      replay.onLive(m);
      break;
    case 'pointers':
      view.applyPointers(m.pointers);
      heat.setPointers(m.pointers);
      timeline.setPointers(m.pointers);
      labelPicked(m.pointers);
      follow.pointers(m.pointers);
      replay.onLive(m);
      break;
    case 'groups':
      view.applyGroups(m.groups || []);
      follow.groups(m.groups || []);
      break;
    case 'producers':
      setProducers(m.topic, m.partition, m.producers);
      break;
    case 'share':
      shareLanes.set(m.shares);
      break;
    case 'event':
      if (m.event) {
        heard(m.event);
        timeline.add(m.event);
        if (m.event.key === 'narration.compacted' && m.event.topic === state.topic && m.event.partition === state.partition) {
          view.cleaned();
          heat.remap();
        }
      }
      break;
    case 'broker':
      reach.stream = !!m.reachable;
      if (!m.reachable) reach.why = brokerWhy(m);
      setBanner();
      pollCluster();
      break;
    case 'problem':
      unreadable.problem(m.problem, { empty: view.cache.pages.size === 0 });
      break;
    default: {
      /** @type {never} */
      const unhandled = m.type;
      console.warn('live stream: no case for message type', unhandled);
    }
  }
}

/**
 * checkTopic stops reconnecting to a partition that does not exist or
 * that this user may not read: a refused websocket tells the browser no
 * status, so the API says why.
 */
async function checkTopic() {
  const { topic, partition } = state;
  try {
    // The log's answer names the right a reader needs (READ on the topic).
    await api('GET', `${apiPartition(topic, partition)}/log?limit=1`);
  } catch (err) {
    if (err.status === 403 && topic === state.topic && partition === state.partition) {
      stream.close();
      unreadable.refused(err);
      return;
    }
  }
  let t0 = null;
  try {
    /** @type {import('../types/wire.js').TopicDetail} */
    const info = await api('GET', `/api/topics/${encodeURIComponent(topic)}`);
    if (partition >= info.partitions.length) {
      t0 = { topic, count: info.partitions.length, partition };
      throw Object.assign(new Error(`Topic ${topic} has no partition ${partition}.`), { status: 404 });
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
    const at = view.anchorOffset();
    if (at !== null) q.set('at', String(at));
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
  unreadable.clear();
  document.querySelector('.empty')?.remove();
  $('log-frame').hidden = false;
  $('log-foot').hidden = false;
  main.dataset.topic = topic;
  main.dataset.partition = String(partition);
  main.dataset.hasTopic = 'true';
  panels.onTopic(topic);
  follow.reset(topic, partition);
  syncPicker();
  replay.reset();
  timeline.unpick();
  view.reset(topic, partition, opts.at, opts.sel);
  heat.reset(topic, partition);
  explore.reset();
  timeline.setPointers(null);
  timeline.reset([]);
  stream.open(topic, partition);
}

/**
 * show keeps in view the log an action concerns: it opens the partition if
 * another is on show and scrolls to the offsets the action wrote (the end
 * of the log when it does not know them).
 */
async function show(topic, partition, offsets) {
  if (!topic) return;
  if (replay.active()) replay.live();
  if (!state.hasTopic || topic !== state.topic || partition !== state.partition) {
    await navigate(topic, partition);
  }
  view.expect(offsets || []);
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
  const args = { ...JSON.parse(option.dataset.i18nArgs || '{}'), topic: state.topic, partition: state.partition, offsets: n };
  tr(option, option.dataset.i18n === 'picker.partitionOf' ? 'picker.partitionOf' : 'picker.partitionOffsets', args);
}

let refreshing = null;
async function refreshTopics() {
  if (refreshing) return refreshing;
  refreshing = (async () => {
    try {
      /** @type {{topics: import('../types/wire.js').TopicInfo[]}} */
      const { topics } = await api('GET', '/api/topics');
      const options = [];
      for (const tp of topics) {
        if (tp.internal || tp.name.startsWith('__')) continue;
        const count = tp.partitions.length;
        for (const p of tp.partitions) {
          const n = Math.max(0, p.highWatermark - p.logStartOffset);
          const key = count > 1 ? 'picker.partitionOf' : 'picker.partitionOffsets';
          options.push(tr(new Option('', `${tp.name}/${p.partition}`), key, { topic: tp.name, partition: p.partition, count, offsets: n }));
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
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

function openPicked() {
  const v = picker.value;
  const cut = v.lastIndexOf('/');
  if (cut <= 0) return;
  navigate(v.slice(0, cut), Number(v.slice(cut + 1)));
}
picker.addEventListener('change', openPicked);
picker.addEventListener('focus', refreshTopics);
picker.addEventListener('pointerdown', refreshTopics);
$('topic-picker').addEventListener('submit', (ev) => {
  ev.preventDefault();
  openPicked();
});
// The counts of partitions not on show change too (another tab, a lesson).
setInterval(() => {
  if (!document.hidden && document.activeElement !== picker) refreshTopics();
}, 10000);

// The legend, behind a button on a short presenter screen.
const legend = $('legend');
const legendToggle = $('legend-toggle');
const openLegend = (open) => {
  legend.classList.toggle('open', open);
  legendToggle.setAttribute('aria-expanded', String(open));
};
legendToggle.addEventListener('click', () => openLegend(!legend.classList.contains('open')));
document.addEventListener('keydown', (ev) => {
  if (ev.key === 'Escape' && legend.classList.contains('open')) openLegend(false);
});
legend.addEventListener('click', () => openLegend(false));

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

/**
 * @typedef {typeof app} App the page as its panels are given it: which
 *   partition is on show (current), navigate() and show(), the topic
 *   picker's refresh, the API failure handler, the dock, the log view, the
 *   story and the heat strip
 */
const app = { current, navigate, show, refreshTopics, apiFailed, dock, view, timeline, heat };
const replay = setupReplay(app);
const explore = setupExplore(app);
const panels = setupPanels(app);
const follow = setupInspectFollow({ readHold: (topic, partition) => api('GET', `${apiPartition(topic, partition)}/lso`) });
setupSave(app);

if (state.hasTopic) {
  navigate(state.topic, state.partition, { push: false, force: true, ...readQuery() });
} else {
  timeline.reset([]);
}
pollCluster();
refreshTopics();
setupClassroom(app);
setupStepStage(app);
setupLessons(app);
setupBrokers(app);
main.dataset.ready = 'true';
