// replay.js: the scrubber under the log. It replays the open partition's
// recorded story — what the server's live feed saw from the moment it
// first watched the partition (GET …/history: a snapshot, then entries,
// pointer moves, group offsets and narrated events, in order) — so that a
// teacher can rewind to "the crash: LSO held at 2" and play it forward
// again. The arrow keys move it a step when it has the focus; Live goes
// back to the log as it is now. Nothing here is reconstructed by guessing:
// each position is the state after the recorded steps up to it.

import { api, apiPartition, fmt } from '../common/api.js';
import { onLanguage, t, tr } from '../common/i18n.js';

/**
 * stateAt folds the recorded steps 0..k into the log as it was: entries by
 * offset, the pointers, the groups' offsets and the events told so far.
 * changed lists the offsets step k wrote or resolved.
 * @param {import('../types/wire.js').Step[]} steps
 * @param {number} k
 */
export function stateAt(steps, k) {
  const entries = new Map();
  let pointers = null;
  let groups = [];
  const events = [];
  let changed = [];
  for (let i = 0; i <= k && i < steps.length; i++) {
    const s = steps[i];
    changed = [];
    if (s.type === 'snapshot') entries.clear();
    for (const e of s.entries || []) {
      entries.set(e.offset, e);
      changed.push(e.offset);
    }
    if (s.pointers) pointers = s.pointers;
    if (s.groups) groups = s.groups;
    if (s.type === 'snapshot') changed = [];
    if (s.event) events.push(s.event);
    for (const e of s.events || []) events.push(e);
  }
  return { entries: [...entries.values()].sort((a, b) => a.offset - b.offset), pointers, groups, events, changed };
}

/**
 * setupReplay wires the scrubber.
 * @param {import('./app.js').App} app the page (current, view, timeline)
 */
export function setupReplay(app) {
  const box = document.getElementById('replay');
  const range = document.getElementById('replay-scrubber');
  const text = document.getElementById('replay-text');
  const liveButton = document.getElementById('replay-live');
  const panel = document.getElementById('log-panel');
  let steps = [];
  let loaded = false;
  let loading = null;
  let replaying = false;
  let gen = 0;
  let at = -1;

  function describe() {
    if (!replaying || at < 0 || !steps[at]) {
      text.textContent = '';
      return;
    }
    const s = steps[at];
    const ts = new Date(s.time);
    const when = Number.isNaN(ts.getTime()) ? '' : ts.toLocaleTimeString('en-GB');
    const what = s.event ? t('timeline.' + s.event.kind) : t('replay.type.' + s.type);
    tr(text, 'replay.step', { n: fmt(at + 1), total: fmt(steps.length), time: when, what });
  }
  onLanguage(describe);

  function setState(name) {
    box.dataset.state = name;
    panel.dataset.replay = String(name === 'replay');
    liveButton.setAttribute('aria-pressed', String(name !== 'replay'));
  }

  async function load() {
    if (loaded || loading) return loading;
    const cur = app.current();
    if (!cur.hasTopic) return null;
    const mine = gen;
    loading = (async () => {
      try {
        const h = await api('GET', `${apiPartition(cur.topic, cur.partition)}/history`);
        if (mine !== gen) return;
        steps = h.steps || [];
        loaded = true;
        range.max = String(Math.max(0, steps.length - 1));
        range.value = range.max;
        box.dataset.steps = String(steps.length);
        range.removeAttribute('title');
        delete box.dataset.unavailable;
      } catch (err) {
        if (mine !== gen) return;
        box.dataset.unavailable = 'true';
        range.disabled = true;
        range.title = err.status === 404 ? t('replay.unavailable') : err.message;
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  /** go shows the state after step k. */
  function go(k) {
    if (!steps.length) return;
    at = Math.max(0, Math.min(steps.length - 1, k));
    replaying = true;
    setState('replay');
    const past = stateAt(steps, at);
    app.view.showPast(past);
    app.heat?.showPast(past);
    app.timeline.showPast(past.events);
    const s = steps[at];
    box.dataset.step = String(at);
    box.dataset.type = s.type;
    if (s.event) box.dataset.eventKind = s.event.kind;
    else delete box.dataset.eventKind;
    describe();
  }

  function live() {
    if (!replaying) return;
    replaying = false;
    at = -1;
    setState('live');
    delete box.dataset.step;
    delete box.dataset.type;
    delete box.dataset.eventKind;
    range.value = range.max;
    app.view.showLive();
    app.heat?.showLive();
    app.timeline.showPast(null);
    describe();
  }

  range.addEventListener('focus', load);
  range.addEventListener('pointerdown', load);
  range.addEventListener('input', async () => {
    const k = Number(range.value);
    if (!loaded) {
      await load();
      if (!steps.length) return; // a live message may mark it stale meanwhile
    }
    go(k);
  });
  range.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') live();
    else if (!loaded) load();
  });
  liveButton.addEventListener('click', live);
  // A presenter's ← steps the replay back one step, when the focus is not
  // in a field, a list of tabs, the log or a control that answers arrows.
  document.addEventListener('keydown', async (ev) => {
    if (ev.key !== 'ArrowLeft' || ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    const at = ev.target instanceof Element ? ev.target : null;
    if (at && at.closest('input, textarea, select, [contenteditable], [role="tablist"], [role="slider"], .log-viewport, .minimap')) return;
    if (range.disabled) return;
    ev.preventDefault();
    if (!loaded) {
      await load();
      if (!steps.length) return; // a live message may mark it stale meanwhile
    }
    const k = Number(range.value) - 1;
    if (k < 0) return;
    range.value = String(k);
    go(k);
  });

  return {
    active: () => replaying,
    live,
    /** reset forgets the recording: another partition is on show. */
    reset() {
      gen++;
      if (replaying) {
        replaying = false;
        app.timeline.showPast(null);
        app.heat?.showLive();
      }
      at = -1;
      steps = [];
      loaded = false;
      loading = null;
      range.max = '0';
      range.value = '0';
      range.disabled = true;
      delete box.dataset.unavailable;
      delete box.dataset.steps;
      setState('live');
      describe();
    },
    /** onLive hears the live stream: the recording has grown, fetch it again on next use. */
    onLive(m) {
      if (m.type === 'snapshot') range.disabled = false;
      if (!replaying) loaded = false;
    },
  };
}
