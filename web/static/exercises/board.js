// board.js: the teacher's Exercises page (web/pages/exercise_board.templ).
// Pick an exercise, Start it, Reset it after a confirmation, download its
// results; the scoreboard (board-table.js) fills in live from the results
// API, long-polled with ?after=<version> so that each change arrives
// without a reload and nothing is asked while nothing changes. A
// student's name puts their log on the stage (POST /api/classroom/stage,
// which the students' pages follow) and opens it; "Show join code" shows
// the join address and its QR code full screen, Esc closes it.

import { ApiError, api, showErrorText } from '../common/api.js';
import { onLanguage, plain, setupI18n, t, tr } from '../common/i18n.js';
import { watchBudget } from '../common/budget.js';
import { countDone } from './board-model.js';
import { createBoard } from './board-table.js';

await setupI18n();
watchBudget();

const $ = (id) => document.getElementById(id);
const main = $('app');
const status = $('board-status');
const select = $('exercise-select');

/** RETRY_MS is how long the board waits before asking again after the server did not answer. */
const RETRY_MS = 2000;
/** STAGE_MS bounds how often the board asks which log is on the stage. */
const STAGE_MS = 2000;
/** IDLE_MS is how often the board of an exercise that is not running asks again (for students who join). */
const IDLE_MS = 3000;

/** pause waits ms, or rejects when signal aborts first. */
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('aborted', 'AbortError'));
    }, { once: true });
  });
}

if (select) await setup();
main.dataset.ready = 'true';

async function setup() {
  const board = createBoard({ head: $('board-head'), rows: $('board-rows'), empty: $('board-empty'), evidence: $('board-evidence'), evidenceBody: $('evidence-body') });
  const startButton = $('exercise-start');
  const resetButton = $('exercise-reset');
  const csv = $('exercise-csv');
  const running = $('exercise-running');
  const count = $('board-count');
  const joinCount = document.querySelector('[data-testid="join-full-count"]');
  let current = main.dataset.current || '';
  let viewed = '';
  let poll = null; // AbortController of the viewed exercise's long poll
  let stageAsked = 0;

  const titleArgs = (id) => ({ exerciseKey: `exercise.${id}.title` });

  function showRunning() {
    const key = viewed === current ? 'board.running' : current ? 'board.notRunning' : 'board.noneRunning';
    tr(running, key);
    running.dataset.running = String(viewed === current);
    startButton.disabled = viewed === current;
    board.setRunning(viewed === current);
    showCount();
  }

  function showCount() {
    const { done, total } = countDone(board.students());
    // "0 of 1 done" of an exercise nobody runs says nothing true: the
    // count stands only while the exercise on show runs.
    if (viewed === current) tr(count, 'board.count', { done: String(done), total: String(total) });
    else plain(count, '');
    count.dataset.done = String(done);
    count.dataset.total = String(total);
    if (joinCount) tr(joinCount, 'board.joinCount', { count: String(total) });
  }

  async function refreshStage(force) {
    if (!force && Date.now() - stageAsked < STAGE_MS) return;
    stageAsked = Date.now();
    try {
      const c = await api('GET', '/api/classroom');
      board.setStage(c.teacherPartition?.partition === 0 ? c.teacherPartition.topic : '');
    } catch {
      // the status line says when the server is gone
    }
  }

  async function refreshCurrent() {
    try {
      const list = await api('GET', '/api/exercises');
      if ((list.current || '') !== current) {
        current = list.current || '';
        showRunning();
      }
    } catch {
      // said by the long poll
    }
  }

  /**
   * follow long-polls the viewed exercise's results until signal aborts.
   * While it is not the running one nothing grades it, and a student
   * joining changes no version: it is asked every few seconds instead.
   */
  async function follow(id, signal) {
    let after = -1;
    while (!signal.aborted) {
      try {
        if (after >= 0 && id !== current) await pause(IDLE_MS, signal);
        const wait = after >= 0 && id === current ? `?after=${after}` : '';
        const res = await api('GET', `/api/exercises/${encodeURIComponent(id)}/results` + wait, undefined, signal);
        if (signal.aborted) return;
        if (status.dataset.i18n === 'board.reconnecting') tr(status, 'board.live');
        if (res.version === after) refreshCurrent(); // quiet for a while: did another tab start another exercise?
        after = res.version;
        board.update(res.students);
        main.dataset.version = String(after);
        showCount();
        refreshStage(false);
      } catch (err) {
        if (signal.aborted || err.name === 'AbortError') return;
        if (err instanceof ApiError && err.status !== 0 && err.status < 500) {
          showErrorText(status, err);
          return;
        }
        tr(status, 'board.reconnecting');
        await pause(RETRY_MS, signal).catch(() => {});
      }
    }
  }

  async function view(id) {
    poll?.abort();
    poll = new AbortController();
    const signal = poll.signal;
    viewed = id;
    main.dataset.selected = id;
    csv.href = `/api/exercises/${encodeURIComponent(id)}/results.csv`;
    showRunning();
    let ex;
    try {
      ex = await api('GET', `/api/exercises/${encodeURIComponent(id)}`, undefined, signal);
    } catch (err) {
      if (!signal.aborted) showErrorText(status, err);
      return;
    }
    if (signal.aborted) return;
    board.setExercise(ex, ex.names);
    await refreshStage(true);
    follow(id, signal);
  }

  select.addEventListener('change', () => view(select.value));

  startButton.addEventListener('click', async () => {
    const id = viewed;
    startButton.disabled = true;
    try {
      await api('POST', `/api/exercises/${encodeURIComponent(id)}/start`);
      current = id;
      tr(status, 'board.started', titleArgs(id));
    } catch (err) {
      showErrorText(status, err);
    }
    showRunning();
  });

  // Reset…: a confirmation names the exercise and what a reset does.
  const dialog = $('reset-dialog');
  const resetError = $('reset-error');
  const confirm = dialog.querySelector('[data-testid="reset-confirm"]');
  dialog.querySelector('[data-close]').addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => resetButton.focus());
  resetButton.addEventListener('click', () => {
    tr($('reset-text'), 'board.resetText', titleArgs(viewed));
    resetError.hidden = true;
    dialog.showModal();
    confirm.focus();
  });
  $('reset-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const id = viewed;
    confirm.disabled = true;
    try {
      await api('POST', `/api/exercises/${encodeURIComponent(id)}/reset`);
      dialog.close();
      tr(status, 'board.wasReset', titleArgs(id));
    } catch (err) {
      resetError.hidden = false;
      showErrorText(resetError, err);
    } finally {
      confirm.disabled = false;
    }
  });

  // A student's name: their log on the stage, then open it here. A
  // click that opens a new tab (Ctrl, middle button) stages it too.
  $('board-rows').addEventListener('click', async (ev) => {
    const remove = ev.target instanceof Element ? ev.target.closest('button.remove-student') : null;
    if (remove) {
      await removeStudent(remove.dataset.student);
      return;
    }
    const link = ev.target instanceof Element ? ev.target.closest('a.stage-link') : null;
    if (!link) return;
    const newTab = ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0;
    if (!newTab) ev.preventDefault();
    const { student, topic } = link.dataset;
    tr(status, 'board.staging', { student });
    try {
      await api('POST', '/api/classroom/stage', { topic, partition: 0 });
      board.setStage(topic);
      if (!newTab) location.assign(link.href);
    } catch (err) {
      if (err.code === 'error.unknownTopic') tr(status, 'board.stageNoTopic', { student, topic });
      else showErrorText(status, err);
    }
  });

  /** removeStudent asks twice — remove? delete their topics too? — then removes. */
  async function removeStudent(student) {
    if (!window.confirm(t('board.removeConfirm', { student }))) return;
    const topics = window.confirm(t('board.removeTopics', { student })) ? 'delete' : 'keep';
    try {
      await api('DELETE', `/api/classroom/students/${encodeURIComponent(student)}?topics=${topics}`);
      tr(status, topics === 'delete' ? 'board.removedDeleted' : 'board.removedKept', { student });
    } catch (err) {
      showErrorText(status, err);
    }
  }

  setupJoinCode();
  onLanguage(() => board.redraw());
  await view(select.value || main.dataset.selected);
}

/** setupJoinCode wires "Show join code": the join address and QR code full screen; Esc or Close ends it. */
function setupJoinCode() {
  const dialog = $('join-dialog');
  const open = $('show-join');
  if (!dialog || !open) return;
  open.addEventListener('click', () => dialog.showModal());
  dialog.querySelector('[data-close]').addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => open.focus());
  if (location.hash === '#join') dialog.showModal();
}
