// student.js: the student's exercise page (/exercise). It asks the API
// who this browser is (GET /api/classroom/students/me): a stranger gets
// the join form (the name checked here, then by the API: 400 and 409 say
// why), a student their Kafka identity. Then it follows the class: the
// exercise the teacher started (GET /api/exercises, then
// /api/exercises/{id} for the student's own names and starter code) and
// the student's checklist, long-polled (…/results?after=version), so
// both change without a reload. What is shown is worked out in
// studentview.js; the sentences come from the one catalogue.

import { api, errorText, showErrorText } from '../common/api.js';
import { language, onLanguage, plain, setupI18n, t, tr } from '../common/i18n.js';
import { STATES, checklistRows, checklistSummary, logPath, nameProblem, textIn } from './studentview.js';

// RETRY_MS is how long the page waits before asking again after the
// server did not answer (a restart, a lost Wi-Fi).
const RETRY_MS = 2000;

const $ = (id) => document.getElementById(id);
const byTestID = (id) => document.querySelector(`[data-testid="${id}"]`);
const main = $('app');
const pageStatus = $('page-status');

// state is what the page shows, kept to redraw it in another language.
const state = { me: null, view: null, result: undefined };

await setupI18n();
if (main.dataset.handsOn === 'true') {
  start().finally(() => {
    main.dataset.ready = 'true';
  });
} else {
  main.dataset.ready = 'true';
}

async function start() {
  wireJoin();
  wireCopy();
  wireTabs();
  onLanguage(redraw);
  let me = null;
  try {
    me = await api('GET', '/api/classroom/students/me');
  } catch (err) {
    if (err.status !== 404 || err.code === 'error.studentForgotten') showErrorText(pageStatus, err);
  }
  if (me) joined(me);
  else showJoin();
}

function showJoin() {
  $('student-join').hidden = false;
  $('student-grid').hidden = true;
  $('join-name').focus();
}

/** wireJoin checks the name as the student types it and joins on submit. */
function wireJoin() {
  const form = $('join-form');
  const input = $('join-name');
  const error = $('join-error');
  const button = form.querySelector('button[type="submit"]');
  const say = (problem) => {
    if (!problem) {
      error.hidden = true;
      input.removeAttribute('aria-invalid');
      return;
    }
    if (problem instanceof Error) showErrorText(error, problem);
    else tr(error, problem.key, problem.args);
    error.hidden = false;
    input.setAttribute('aria-invalid', 'true');
  };
  input.addEventListener('input', () => {
    // Say what is wrong once there is something to judge; clear it as soon as it is right.
    if (!error.hidden || input.value.trim().length >= 2) say(input.value.trim() ? nameProblem(input.value) : null);
  });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const name = input.value.trim();
    const problem = nameProblem(name);
    if (problem) {
      say(problem);
      input.focus();
      return;
    }
    say(null);
    button.disabled = true;
    delete pageStatus.dataset.announce;
    tr(pageStatus, 'student.join.joining');
    try {
      const me = await api('POST', '/api/classroom/students', { name });
      plain(pageStatus, '');
      joined(me);
      // The form is gone: the keyboard goes on from the exercise's title.
      $('exercise-title').tabIndex = -1;
      $('exercise-title').focus();
    } catch (err) {
      plain(pageStatus, '');
      say(err);
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
}

/** joined shows the student's identity and starts following the class. */
function joined(me) {
  state.me = me;
  $('student-join').hidden = true;
  $('student-grid').hidden = false;
  drawIdentity();
  follow();
}

function drawIdentity() {
  const k = state.me.kafka || {};
  for (const row of document.querySelectorAll('.identity-row')) {
    const field = row.dataset.field;
    const value = k[field];
    const code = row.querySelector('code');
    if (value) plain(code, value);
    else tr(code, 'student.id.none');
    const copy = row.querySelector('button.copy');
    if (copy) copy.hidden = !value;
  }
  byTestID('identity-unmanaged').hidden = k.managed !== false;
  tr(byTestID('identity-name'), 'student.id.joinedAs', { name: state.me.name });
}

/**
 * follow keeps the exercise and the checklist live: each round reads which
 * exercise is current, loads it when it changed, then waits on the results
 * for a version past the last one. Starting an exercise bumps the version
 * too, so the wait also ends when the teacher starts another (before any is
 * current, it waits on the first exercise's results for that).
 */
async function follow() {
  let version = -1;
  for (;;) {
    try {
      const list = await api('GET', '/api/exercises');
      const current = list.current || null;
      if ((state.view?.id || null) !== current) {
        const before = state.view;
        state.view = current ? await api('GET', `/api/exercises/${encodeURIComponent(current)}`) : null;
        state.result = undefined;
        if (before || version >= 0) announceExercise();
        drawExercise();
      }
      const waitOn = current || list.exercises?.[0]?.id;
      if (!waitOn) return;
      const res = await api('GET', `/api/exercises/${encodeURIComponent(waitOn)}/results` + (version >= 0 ? `?after=${version}` : ''));
      version = res.version;
      drawShare(res.share);
      if (current && res.exercise === state.view?.id) {
        state.result = res.students?.[0];
        drawChecklist();
      }
      if (pageStatus.dataset.offline === 'true') {
        delete pageStatus.dataset.offline;
        plain(pageStatus, '');
      }
    } catch (err) {
      if (err.status === 403 || err.status === 404) {
        // The class forgot this browser (the server restarted): join again.
        state.me = null;
        showErrorText(pageStatus, err);
        showJoin();
        return;
      }
      pageStatus.dataset.offline = 'true';
      delete pageStatus.dataset.announce;
      showErrorText(pageStatus, err);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/** announceExercise says in the status line that the teacher started another exercise. */
function announceExercise() {
  if (!state.view) return;
  plain(pageStatus, t('student.exercise.changed', { title: textIn(state.view.title, language()) }));
  pageStatus.dataset.announce = 'exercise';
}

function redraw() {
  if (!state.me) return;
  drawIdentity();
  drawExercise();
  if (pageStatus.dataset.announce === 'exercise') announceExercise();
}

/** drawExercise shows the current exercise: what to build, the names, the starter code. */
function drawExercise() {
  const v = state.view;
  const title = $('exercise-title');
  const body = byTestID('exercise-body');
  byTestID('exercise-none').hidden = !!v;
  body.hidden = !v;
  $('student-starters').hidden = !v;
  main.dataset.exercise = v?.id || '';
  if (!v) {
    tr(title, 'student.exercise.none');
    drawChecklist();
    return;
  }
  const lang = language();
  plain(title, textIn(v.title, lang));
  plain(byTestID('exercise-goal'), textIn(v.goal, lang));
  plain(byTestID('names-topic'), v.names.topic);
  plain(byTestID('names-transactionalId'), v.names.transactionalId);
  plain(byTestID('names-group'), v.names.group);
  const steps = byTestID('exercise-steps');
  steps.replaceChildren(...(v.steps || []).map((s) => plain(document.createElement('li'), textIn(s, lang))));
  for (const panel of document.querySelectorAll('.starter')) {
    const starter = (v.starters || []).find((s) => s.client === panel.dataset.client);
    plain(panel.querySelector('pre code'), starter ? starter.code : '');
    $('starter-tab-' + panel.dataset.client).hidden = !starter;
  }
  // An exercise without the chosen client's starter (the share exercise
  // has no Python one) shows its first client's instead.
  const tabs = [...document.querySelectorAll('.starter-tabs [role="tab"]')];
  if (tabs.find((t) => t.getAttribute('aria-selected') === 'true')?.hidden) tabs.find((t) => !t.hidden)?.click();
  const link = byTestID('log-link');
  link.href = logPath(v.names.topic);
  tr(link, 'student.logLink', { topic: v.names.topic });
  link.parentElement.hidden = false;
  drawChecklist();
}

/** drawChecklist shows one row per check: mark and word, title, evidence, hint. */
function drawChecklist() {
  const list = byTestID('checklist');
  const status = byTestID('checks-status');
  const v = state.view;
  if (!v) {
    list.replaceChildren();
    plain(status, '');
    main.dataset.done = 'false';
    return;
  }
  const lang = language();
  const rows = checklistRows(v.checks, state.result);
  const summary = checklistSummary(rows, state.result);
  const sentence = t(summary.key, summary.args);
  const checked = state.result?.checkedAt ? ' ' + t('student.checks.checkedAt', { time: new Date(state.result.checkedAt).toLocaleTimeString(lang) }) : '';
  plain(status, sentence + checked);
  main.dataset.done = String(!!state.result?.done);
  list.replaceChildren(...rows.map((row) => checkItem(row, lang)));
}

function checkItem(row, lang) {
  const li = document.createElement('li');
  li.className = 'check ' + row.state;
  li.dataset.testid = 'check';
  li.dataset.check = row.key;
  li.dataset.state = row.state;
  const mark = document.createElement('span');
  mark.className = 'check-mark';
  mark.setAttribute('aria-hidden', 'true');
  mark.textContent = STATES[row.state].mark;
  const word = document.createElement('span');
  word.className = 'check-state';
  word.dataset.testid = 'check-state';
  word.textContent = t(STATES[row.state].key);
  const title = document.createElement('span');
  title.className = 'check-title';
  title.textContent = textIn(row.title, lang);
  const head = document.createElement('p');
  head.className = 'check-head';
  head.append(mark, word, title);
  li.append(head);
  if (row.evidence.length) {
    const ev = document.createElement('p');
    ev.className = 'check-evidence';
    ev.dataset.testid = 'check-evidence';
    ev.textContent = row.evidence.map((e) => t(e.key, e.args)).join(' · ');
    li.append(ev);
  }
  if (row.hint) {
    const hint = document.createElement('p');
    hint.className = 'check-hint';
    hint.dataset.testid = 'check-hint';
    hint.dataset.hintCode = row.hint.code;
    const label = document.createElement('strong');
    label.textContent = t('student.hintLabel') + ' ';
    const text = row.hint.code ? errorText({ code: row.hint.code, args: row.hint.args, message: row.hint.text }) : row.hint.text;
    hint.append(label, text);
    li.append(hint);
  }
  return li;
}

/** wireTabs makes the starter code's clients an ARIA tablist (arrows, Home, End). */
function wireTabs() {
  const tabs = [...document.querySelectorAll('.starter-tabs [role="tab"]')];
  const choose = (tab, focus) => {
    for (const other of tabs) {
      const on = other === tab;
      other.setAttribute('aria-selected', String(on));
      other.tabIndex = on ? 0 : -1;
      $(other.getAttribute('aria-controls')).hidden = !on;
    }
    if (focus) tab.focus();
  };
  for (const tab of tabs) {
    tab.addEventListener('click', () => choose(tab, false));
    tab.addEventListener('keydown', (ev) => {
      const shown = tabs.filter((x) => !x.hidden);
      const i = shown.indexOf(tab);
      const next = { ArrowRight: shown[(i + 1) % shown.length], ArrowLeft: shown[(i - 1 + shown.length) % shown.length], Home: shown[0], End: shown[shown.length - 1] }[ev.key];
      if (next) {
        ev.preventDefault();
        choose(next, true);
      }
    });
  }
}

/** wireCopy gives every Copy button its text: an identity field or a client's starter code. */
function wireCopy() {
  main.addEventListener('click', async (ev) => {
    const button = ev.target.closest('button.copy');
    if (!button) return;
    const source = button.dataset.copyField
      ? document.querySelector(`[data-testid="identity-${button.dataset.copyField}"]`)
      : document.querySelector(`[data-testid="starter-code-${button.dataset.copyStarter}"]`);
    const ok = await copyText(source.textContent, source);
    delete pageStatus.dataset.announce;
    tr(pageStatus, ok ? 'student.copied' : 'student.copyByHand');
    button.dataset.copied = String(ok);
  });
}

/**
 * copyText puts text on the clipboard. A page served over plain http to
 * another machine (a classroom's LAN address) has no navigator.clipboard,
 * so it falls back to a selection and execCommand; when that fails too,
 * the text stays selected for Ctrl+C.
 */
async function copyText(text, node) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back to the selection
  }
  const range = document.createRange();
  range.selectNodeContents(node);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  return ok;
}

/** drawShare says when the student's share of the broker (data, topics, partitions, producer ids) is used up, and what to do. */
function drawShare(share) {
  const el = $('student-share');
  if (!el) return;
  el.hidden = !share?.full && !share?.producerIDsFull;
  if (el.hidden) return;
  if (!share.full) {
    tr(el, 'student.producerIDsFull', { ids: String(share.producerIDs), max: String(share.maxProducerIDs) });
    return;
  }
  const mib = (n) => (n / 1048576).toFixed(1) + ' MiB';
  tr(el, 'student.shareFull', {
    used: mib(share.usedBytes || 0), max: mib(share.maxBytes || 0),
    topics: String(share.topics), maxTopics: String(share.maxTopics),
    partitions: String(share.partitions), maxPartitions: String(share.maxPartitions),
  });
}
