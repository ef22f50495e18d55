// lessons.js: the guided lessons panel (the dock's Lesson tab). The server
// renders the panel with every label in English and Korean (the panel's
// lang attribute, which follows the page's one language switch, shows
// one); this module drives the lesson API (start, next, run to end, reset,
// clean up), draws the run's progress and step bar (at the top of the tab)
// and its steps — narration, the command on real Kafka, and the checks with
// ✓ or ✗ — in the chosen language, and opens the log each step concerns:
// the step's partition while it runs, the lesson's focus when it ends. The
// run lives on the server: any tab or browser resumes the current one.

import { api, errorText } from '../common/api.js';
import { has, initialLanguage, onLanguage, plain, t, tr, words } from '../common/i18n.js';
import { setupStepPlace } from './stepplace.js';

const LANGS = ['en', 'ko'];
const POLL_MS = 3000;

const $ = (id) => document.getElementById(id);

/** el builds an element with attributes and children (strings or nodes). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('data-') || k === 'lang' || k === 'role' || k.startsWith('aria-') || k === 'title') node.setAttribute(k, v === true ? 'true' : String(v));
    else node[k] = v;
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

/** value translates the words the checks observe (yes, no, none, ...). */
// WORDED_FACTS are the facts whose values are words the catalogue
// translates ("0:aborted 1:ABORT"), as Go's wordedFacts (narrate.go); the
// others hold record values and names, translated only as a whole ("yes").
const WORDED_FACTS = new Set(['shape', 'gaps', 'ended', 'markers']);
const value = (v, fact) => (WORDED_FACTS.has(fact) ? words('lesson.ui.value.', v) : has('lesson.ui.value.' + v) ? t('lesson.ui.value.' + v) : v);

/**
 * CROWDED is how many steps a bar numbers: a longer lesson's bar (lesson 7
 * has 17) shows each step's mark and numbers only the step up next.
 */
const CROWDED = 10;

/** stepList is the run's step bar: a mark per step (✓ done, ✗ failed, ▶ next). */
function stepList(run, tx) {
  const list = el('ol', { class: 'lesson-steps' + (run.steps.length >= CROWDED ? ' crowded' : ''), 'data-testid': 'lesson-steps' });
  for (const s of run.steps) {
    const failedChecks = s.expectations.some((c) => s.status === 'done' && !c.ok);
    const mark = s.status === 'failed' || failedChecks ? '✗' : s.status === 'done' ? '✓' : s.index === run.cursor ? '▶' : '';
    const title = t('lesson.ui.stepOf', { n: s.index + 1, total: run.steps.length }) + ' — ' + tx(s.title);
    list.append(el('li', { 'data-status': s.status, 'aria-current': s.index === run.cursor ? 'step' : null, title },
      el('span', { class: 'mark', 'aria-hidden': 'true' }, mark), el('span', { class: 'n' }, String(s.index + 1)),
      el('span', { class: 'sr-only' }, ' ' + tx(s.title))));
  }
  return list;
}

/**
 * stepCard is one step: its title, narration and the command on real
 * Kafka beside its checks (one line each where they fit: ✓, what, the
 * expected and the observed value), then its output. A note the broker
 * adds to several checks is told once, folded under them.
 */
function stepCard(run, s, upNext, tx) {
  const card = el('article', {
    class: 'lesson-step' + (upNext ? ' up-next' : ''),
    'data-testid': upNext ? 'lesson-upnext' : 'lesson-current',
    'data-index': s.index,
    'data-status': s.status,
  });
  // The step bar counts the steps: the card's heading is the step's number and title.
  const heading = (upNext ? t('lesson.ui.upNext') + ' · ' : '') + t('lesson.ui.stepN', { n: s.index + 1 }) + ' — ' + tx(s.title);
  card.append(el('h3', {}, heading));
  const stepWords = el('div', { class: 'step-words' },
    el('p', { class: 'narration', 'data-testid': upNext ? 'lesson-next-narration' : 'lesson-narration' }, tx(s.narration)));
  if (s.command) {
    stepWords.append(el('div', { class: 'step-command' },
      el('h4', {}, t('lesson.ui.command')),
      el('pre', { class: 'command', 'data-testid': upNext ? 'lesson-next-command' : 'lesson-command', lang: 'en' }, s.command)));
  }
  const body = el('div', { class: 'step-body' }, stepWords);
  if (s.expectations.length) {
    const list = el('ul', { class: 'lesson-checks', 'data-testid': upNext ? 'lesson-next-checks' : 'lesson-checks', 'aria-label': t('lesson.ui.checks') });
    // data-n keeps the checks' order when some stand apart (stepplace.js).
    s.expectations.forEach((c, n) => {
      const row = checkRow(c, s.status === 'done', tx);
      row.dataset.n = String(n);
      list.append(row);
    });
    const checks = el('div', { class: 'step-checks' }, list);
    const notes = [...new Set(s.expectations.filter((c) => c.note).map((c) => tx(c.note)))];
    if (notes.length && !upNext) {
      checks.append(el('details', { class: 'check-notes' }, el('summary', {}, t('lesson.ui.checkNotes')),
        ...notes.map((n) => el('p', { class: 'check-note', 'data-testid': 'check-note' }, n))));
    }
    body.append(checks);
  }
  card.append(body);
  if (s.error) card.append(el('p', { class: 'error', 'data-testid': 'lesson-step-error' }, s.errorText ? tx(s.errorText) : s.error));
  if (!upNext && s.output.length) {
    // A consumer's effects are the point of their step: show them open.
    card.append(el('details', { class: 'output', open: s.action === 'apply-payments' },
      el('summary', {}, t('lesson.ui.output')),
      el('div', { class: 'output-lines', 'data-testid': 'lesson-output' }, ...outputBlocks(s, tx))));
  }
  return card;
}

/**
 * outputBlocks are a step's output lines as the page shows them: the
 * catalogue's sentences in the viewer's language, and each run of verbatim
 * tool output in a block of its own, labelled as such and left in English.
 * A server without lines sends only the English output.
 */
function outputBlocks(s, tx) {
  if (!s.lines || !s.lines.length) return [el('pre', { lang: 'en' }, s.output.join('\n'))];
  const blocks = [];
  let tool = null;
  for (const line of s.lines) {
    if (line.text) {
      tool = null;
      blocks.push(el('p', { class: 'output-line', 'data-testid': 'lesson-output-line' }, tx(line.text)));
      continue;
    }
    if (!tool) {
      tool = el('pre', { class: 'tool-output', 'data-testid': 'lesson-tool-output', lang: 'en', 'aria-label': t('lesson.ui.toolOutput'), title: t('lesson.ui.toolOutput') });
      blocks.push(el('span', { class: 'output-label' }, t('lesson.ui.toolOutput')), tool);
    }
    tool.append((tool.childNodes.length ? '\n' : '') + line.tool);
  }
  return blocks;
}

/**
 * checkRow is one check of a step: what it expects and, once checked, what
 * it observed. A check that holds with the value it expected says the value
 * once ("as expected"): one element is both the expected and the observed
 * value (data-expected="same"); a check that fails says both.
 */
function checkRow(c, checked, tx) {
  const state = checked ? (c.ok ? 'true' : 'false') : 'pending';
  const mark = state === 'true' ? '✓' : state === 'false' ? '✗' : '…';
  const word = state === 'true' ? t('lesson.ui.holds') : state === 'false' ? t('lesson.ui.fails') : t('lesson.ui.notYet');
  const expected = value(c.expected, c.fact);
  const observed = checked ? value(c.observed, c.fact) : '';
  const same = checked && c.ok && observed === expected;
  const values = same
    ? [el('strong', { 'data-testid': 'check-observed', 'data-expected': 'same' }, observed), ' ', el('span', { class: 'as-expected' }, t('lesson.ui.asExpected'))]
    : [t('lesson.ui.expected') + ' ', el('strong', { 'data-testid': 'check-expected' }, expected),
      checked ? ' — ' + t('lesson.ui.observed') + ' ' : '',
      checked ? el('strong', { 'data-testid': 'check-observed' }, observed) : ''];
  return el('li', { 'data-testid': 'lesson-check', 'data-ok': state, 'data-fact': c.fact },
    el('span', { class: 'mark', 'aria-hidden': 'true' }, mark),
    el('span', { class: 'sr-only' }, word + ': '),
    el('span', { class: 'check-text' },
      el('span', { class: 'what' }, tx(c.text)), same ? ': ' : ' ',
      el('span', { class: 'values' }, ...values)));
}

/** namesList is the run's actual topic and group names behind the lesson's logical ones. */
function namesList(run) {
  const names = Object.entries(run.names || {});
  if (!names.length) return '';
  const dl = el('dl', { class: 'facts lesson-names', lang: 'en' });
  for (const [logical, actual] of names) dl.append(el('dt', {}, logical), el('dd', {}, el('code', {}, actual)));
  return el('details', { class: 'output' }, el('summary', {}, t('lesson.ui.names')), dl);
}

/**
 * @typedef {object} LessonNodes the lessons panel's elements (web/pages/partition_lessons.templ)
 * @property {HTMLElement} panel the panel
 * @property {HTMLFormElement} form the lesson list's form (its submit starts a run)
 * @property {HTMLSelectElement} picker the lesson list
 * @property {{start: HTMLButtonElement, next: HTMLButtonElement, finish: HTMLButtonElement, reset: HTMLButtonElement, cleanup: HTMLButtonElement}} buttons
 * @property {HTMLElement} out the run's cards
 * @property {HTMLElement} bar the step bar and progress
 * @property {HTMLElement} error
 * @property {HTMLElement} status
 * @property {HTMLElement} unavailable why the picked lesson cannot run here
 * @property {{box: HTMLElement|null, where: HTMLElement|null, next: HTMLButtonElement|null}} mini
 *   the masthead's copy of the run's place and Next, for a page that stacks
 * @property {{box: HTMLElement, list: HTMLElement, text: HTMLElement, go: HTMLButtonElement, cancel: HTMLButtonElement}} confirm
 *   Clean up's list of the topics it would delete, to confirm
 */

/**
 * @typedef {object} LessonHost what the panel asks of the page
 * @property {(topic: string, partition: number) => Promise<void>} show opens a partition's log
 * @property {() => boolean} hasTopic whether the page has a log of its own open
 * @property {() => void} showTab brings the Lesson tab forward
 * @property {() => void} refreshTopics reads the topic list again
 * @property {(method: string, path: string, body?: any) => Promise<any>} api the lesson API (common/api.js)
 */

/**
 * LessonPanel drives one page's lessons panel: the run it shows, the
 * requests of its buttons and the poll that follows the server's run.
 * A student's panel (classroom mode) has no buttons: it shows the run the
 * teacher drives, which classroom.js passes on as an event.
 */
export class LessonPanel {
  /**
   * @param {LessonNodes} nodes
   * @param {LessonHost} host
   * @param {object} opts
   * @param {boolean} opts.student whether this is a student's page
   * @param {(moved: () => void) => {place: (card: Element|null) => void}} opts.placer where the step's card stands
   *   (stepplace.js), told when it has moved it
   */
  constructor(nodes, host, opts) {
    this.nodes = nodes;
    this.host = host;
    this.student = opts.student;
    /** the run on show, as the server last said it */
    this.run = null;
    this.busy = false;
    // Each request of this page's buttons counts here: a poll that began
    // before one does not draw what it read (an older run, a step behind).
    this.acted = 0;
    /** the run on show as JSON ('' none): a poll that reads the same draws nothing */
    this.shown = '';
    // One language for the whole page: i18n.js remembers it and tells this
    // panel when the masthead's switch changes it.
    this.lang = initialLanguage();
    // The card of the step just done stands under the log when it leaves
    // the room, else here in the Lesson tab.
    this.placer = opts.placer(() => this.showCurrent());
  }

  /** onShow: the run is the picked lesson's (a student always sees the teacher's). */
  onShow() {
    return !!this.run && (this.student || this.nodes.picker.value === this.run.lesson);
  }

  /** tx picks the current language of a {en, ko} text from the API. */
  tx(text) {
    return text ? text[this.lang] || text.en || '' : '';
  }

  /** start listens to the page and the panel and shows the server's run (polled on a teacher's page). */
  start() {
    const { panel, picker, status } = this.nodes;
    onLanguage((l) => this.setLang(LANGS.includes(l) ? l : 'en'));
    picker.addEventListener('change', () => {
      // Another lesson picked: the last run (lesson 3, finished) is not
      // shown under its name; picking the run's lesson again shows it.
      if (!this.student) plain(status, '');
      this.showAvailability();
      this.draw();
    });
    this.nodes.form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (this.student) return;
      delete panel.dataset.picking;
      const st = await this.call('POST', `/api/lessons/${encodeURIComponent(picker.value)}/runs`);
      if (st) this.nodes.buttons.next.focus({ preventScroll: true });
    });
    if (this.student) {
      document.addEventListener('offsetlab:lesson-run', (ev) => this.setRun(ev.detail));
    } else {
      this.bindButtons();
      this.bindCleanup();
    }
    this.setLang(this.lang);
    if (!this.student) {
      this.resume().finally(() => { panel.dataset.ready = 'true'; });
      setInterval(() => this.resume(), POLL_MS);
    } else {
      panel.dataset.ready = 'true';
    }
  }

  setLang(l) {
    const { panel, picker } = this.nodes;
    this.lang = l;
    panel.lang = l;
    for (const o of picker.options) o.textContent = o.dataset[l] || o.dataset.en;
    this.showAvailability();
    this.draw();
  }

  showAvailability() {
    const { picker, unavailable } = this.nodes;
    const o = picker.selectedOptions[0];
    const why = o && o.dataset.available === 'false' ? o.dataset['unavailable' + (this.lang === 'ko' ? 'Ko' : 'En')] : '';
    unavailable.textContent = why || '';
    unavailable.hidden = !why;
    this.enable();
  }

  enable() {
    if (this.student) return;
    const { picker, buttons, mini } = this.nodes;
    const o = picker.selectedOptions[0];
    buttons.start.disabled = this.busy || !o || o.dataset.available === 'false';
    const ready = this.onShow() && this.run.status === 'ready';
    buttons.next.disabled = this.busy || !ready;
    buttons.finish.disabled = this.busy || !ready;
    buttons.reset.disabled = this.busy || !this.onShow();
    buttons.cleanup.disabled = this.busy;
    if (mini.next) mini.next.disabled = buttons.next.disabled;
  }

  /** drawMini writes the masthead's copy of where the run is (hidden without one). */
  drawMini() {
    const { mini } = this.nodes;
    if (!mini.box) return;
    mini.box.hidden = !this.onShow();
    if (!this.onShow()) return;
    const run = this.run;
    const total = run.steps.length;
    const n = Math.min(run.cursor + 1, total);
    // Short on screen (the masthead keeps two rows at 150 %), whole for
    // screen readers and as the tooltip.
    const whole = this.tx(run.title) + ' · ' + t('lesson.ui.stepOf', { n, total }) + (run.checked ? ' · ' + t('lesson.ui.passedShort', { passed: run.passed, checked: run.checked }) : '');
    mini.where.title = whole;
    mini.where.replaceChildren(el('span', { 'aria-hidden': 'true' }, `${n}/${total}`), el('span', { class: 'sr-only' }, whole));
  }

  showError(err) {
    const { error } = this.nodes;
    error.textContent = err ? errorText(err) : '';
    error.hidden = !err;
  }

  /**
   * call sends one lesson request, keeping the panel busy meanwhile.
   * keep says the answer is not a run (the clean-up's), to be drawn by the caller.
   * @param {string} method
   * @param {string} path
   * @param {boolean} [keep]
   * @param {any} [body]
   */
  async call(method, path, keep, body) {
    const { panel, out, status } = this.nodes;
    this.busy = true;
    this.acted++;
    panel.setAttribute('aria-busy', 'true');
    out.dataset.busy = 'true';
    this.enable();
    this.showError(null);
    // A run's request (start, next, finish, start over) says only its own
    // news: the last one's "Started over: …" goes.
    if (!keep) plain(status, '');
    try {
      const st = await this.host.api(method, path, body);
      if (!keep) this.setRun(st);
      return st;
    } catch (err) {
      this.showError(err);
      if (err.status === 404 && this.run && path.includes(this.run.id)) this.setRun(null);
      return null;
    } finally {
      this.busy = false;
      panel.removeAttribute('aria-busy');
      delete out.dataset.busy;
      this.enable();
    }
  }

  setRun(st) {
    const { picker } = this.nodes;
    this.run = st;
    this.shown = st ? JSON.stringify(st) : '';
    if (st && [...picker.options].some((o) => o.value === st.lesson)) picker.value = st.lesson;
    this.draw();
    this.enable();
    // The stage draws a step's answer at its cells (stepstage.js).
    document.dispatchEvent(new CustomEvent('offsetlab:lesson-shown', { detail: st }));
  }

  /**
   * openStep shows the log a finished step concerns — or, once the lesson
   * is over, the log that carries its point (the run's focus).
   */
  async openStep(st) {
    if (st.status === 'finished' && st.focus) {
      await this.host.show(st.focus.topic, st.focus.partition);
      return;
    }
    const done = st.steps.filter((s) => s.status !== 'pending' && s.status !== 'running');
    const last = done[done.length - 1];
    if (!last || !last.topic) return;
    await this.host.show(last.topic, last.partition);
  }

  /**
   * next runs the step up next. Focus stays on the control that acted:
   * Next itself (disabled while the step runs), or wherever it was when
   * a presenter's key asked.
   */
  async next() {
    const { buttons } = this.nodes;
    const before = /** @type {HTMLElement|null} */ (document.activeElement);
    this.host.showTab();
    const st = await this.call('POST', `/api/lessons/runs/${this.run.id}/next`);
    if (st) await this.openStep(st);
    const fallen = !document.activeElement || document.activeElement === document.body;
    if (before === buttons.next && st && st.status === 'ready') buttons.next.focus({ preventScroll: true });
    else if (fallen && before && before !== document.body && before.isConnected) before.focus({ preventScroll: true });
  }

  /** bindButtons wires Next (and the masthead's), a presenter's keys, Run to end and Start over. */
  bindButtons() {
    const { buttons, mini, status } = this.nodes;
    const next = () => this.next();
    buttons.next.addEventListener('click', next);
    mini.next?.addEventListener('click', next);
    // A presenter's clicker: → / PageDown / Space run the next step when
    // the focus is not in a field, a list of tabs, the log or a control
    // that answers the key itself.
    document.addEventListener('keydown', (ev) => {
      if (!['ArrowRight', 'PageDown', ' '].includes(ev.key) || ev.defaultPrevented) return;
      if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
      const at = ev.target instanceof Element ? ev.target : null;
      if (at && at.closest('input, textarea, select, [contenteditable], [role="tablist"], [role="slider"], .log-viewport, .minimap, details > summary')) return;
      if (at && ev.key === ' ' && at.closest('button, a, [role="button"], [tabindex]:not(.dock-panel)')) return;
      if (!this.run || this.run.status !== 'ready' || this.busy || buttons.next.disabled) return;
      ev.preventDefault();
      next();
    });
    buttons.finish.addEventListener('click', async () => {
      const st = await this.call('POST', `/api/lessons/runs/${this.run.id}/finish`);
      if (st) await this.openStep(st);
    });
    buttons.reset.addEventListener('click', async () => {
      // Starting over leaves nothing behind: cleanup deletes the run's
      // topics, ends its transactions and resets it under fresh names.
      const st = await this.call('POST', `/api/lessons/runs/${this.run.id}/cleanup`);
      if (st) tr(status, 'lesson.ui.resetCleaned');
      else plain(status, '');
      if (st) this.host.refreshTopics();
    });
  }

  /**
   * bindCleanup wires Clean up. It lists first, as Delete asks for the
   * name: the server answers the topics this dashboard's runs created, the
   * teacher sees them, and only the list confirmed is deleted.
   */
  bindCleanup() {
    const { buttons, status, confirm } = this.nodes;
    let listed = [];
    const hideConfirm = () => {
      confirm.box.hidden = true;
      listed = [];
    };
    buttons.cleanup.addEventListener('click', async () => {
      hideConfirm();
      plain(status, '');
      const plan = await this.call('GET', '/api/lessons/cleanup', true);
      if (!plan) return;
      listed = plan.topics || [];
      if (!listed.length) {
        tr(status, 'lesson.ui.cleanedNone');
        return;
      }
      tr(confirm.text, 'lesson.ui.cleanupList', { count: listed.length });
      confirm.list.replaceChildren(...listed.map((name) => el('li', {}, el('code', {}, name))));
      confirm.box.hidden = false;
      confirm.go.focus();
    });
    confirm.cancel.addEventListener('click', () => {
      hideConfirm();
      buttons.cleanup.focus();
    });
    confirm.go.addEventListener('click', async () => {
      const names = listed;
      hideConfirm();
      const res = await this.call('POST', '/api/lessons/cleanup', true, { confirm: names });
      if (!res) return;
      const deleted = res.deleted || [];
      if (deleted.length) tr(status, 'lesson.ui.cleaned', { count: deleted.length, topics: deleted.join(', ') });
      else tr(status, 'lesson.ui.cleanedNone');
      this.host.refreshTopics();
    });
  }

  // ---- drawing ----------------------------------------------------------------

  draw() {
    const { panel, out, bar, buttons, picker } = this.nodes;
    const student = this.student;
    const tx = (text) => this.tx(text);
    this.drawMini();
    if (!this.onShow()) {
      bar.replaceChildren();
      buttons.next?.parentElement.querySelector('.lesson-title')?.remove();
      delete panel.dataset.run;
      delete panel.dataset.picking;
      out.replaceChildren(el('p', { class: 'hint' }, t(student ? 'lesson.ui.notStartedStudent' : 'lesson.ui.notStarted')));
      this.placer.place(null);
      delete out.dataset.status;
      delete out.dataset.run;
      return;
    }
    const run = this.run;
    out.dataset.run = run.id;
    out.dataset.status = run.status;
    out.dataset.cursor = String(run.cursor);
    out.dataset.passed = String(run.passed);
    out.dataset.checked = String(run.checked);
    const total = run.steps.length;
    // While a run is on show the lesson list folds into its title (a
    // button that opens the list again): the buttons, the step bar and
    // the progress make one bar, and the step's words have the room.
    panel.dataset.run = run.status;
    // The bar names the lesson short ("Lesson 2"); its whole title is the
    // button's tooltip and what a screen reader says.
    const titleButton = el('button', {
      type: 'button', class: 'lesson-title', 'data-testid': 'lesson-title',
      'aria-expanded': String(panel.dataset.picking === 'true'), 'aria-controls': 'lesson-form', title: tx(run.title), 'aria-label': tx(run.title),
    }, student ? tx(run.title) : run.lesson);
    titleButton.addEventListener('click', () => {
      const open = panel.dataset.picking !== 'true';
      if (open) panel.dataset.picking = 'true';
      else delete panel.dataset.picking;
      titleButton.setAttribute('aria-expanded', String(open));
      if (open) picker.focus();
    });
    // The lesson's own buttons and the title (the list's fold) make one
    // row; the steps' marks and the checks' count the other.
    // A student's page has no buttons: the lesson's whole title is its first row.
    buttons.next?.parentElement.querySelector('.lesson-title')?.remove();
    buttons.next?.parentElement.append(titleButton);
    bar.replaceChildren(
      ...(student ? [titleButton] : []),
      el('div', { class: 'lesson-where' }, stepList(run, tx),
        el('p', { class: 'lesson-progress', 'data-testid': 'lesson-progress', title: tx(run.title) },
          // The step bar shows where the run is; once checks count, the
          // words say it to screen readers, the bar says it short.
          el('span', { class: run.checked ? 'sr-only' : null }, t('lesson.ui.stepOf', { n: Math.min(run.cursor + 1, total), total }) + (run.checked ? ' · ' : '')),
          run.checked ? el('span', { class: 'sr-only' }, t('lesson.ui.passed', { passed: run.passed, checked: run.checked })) : '',
          run.checked ? el('span', { 'aria-hidden': 'true' }, t('lesson.ui.passedShort', { passed: run.passed, checked: run.checked })) : '')));
    // The lesson's summary opens and closes it; in between, the cards of
    // the step just done and the one up next have the room.
    const parts = [];
    if (run.cursor === 0 || run.status === 'finished') parts.push(el('p', { class: 'lesson-summary', 'data-testid': 'lesson-summary' }, tx(run.summary)));
    const shownSteps = run.steps.filter((s) => s.status === 'done' || s.status === 'failed');
    const last = shownSteps[shownSteps.length - 1];
    if (run.status === 'finished') parts.unshift(el('p', { class: 'status lesson-end', 'data-testid': 'lesson-end', role: 'status' }, t('lesson.ui.finished')));
    if (run.status === 'failed') parts.unshift(el('p', { class: 'error', 'data-testid': 'lesson-failed' }, t('lesson.ui.failed')));
    // The step just done comes first, under the bar: its words are what
    // the class reads; "Lesson finished." follows it at once (the tab
    // scrolls the card to the bar, so anything above it would hide under
    // the bar), then the lesson's closing summary.
    if (last) parts.unshift(stepCard(run, last, false, tx));
    const next = run.steps[run.cursor];
    if (next && run.status !== 'failed') parts.push(stepCard(run, next, true, tx));
    parts.push(namesList(run));
    out.replaceChildren(...parts);
    this.placer.place(out.querySelector('[data-testid="lesson-current"]'));
    this.showCurrent();
  }

  /**
   * showCurrent scrolls the Lesson tab (only it, never the page) so the
   * step just done starts right under the bar.
   */
  showCurrent() {
    const { panel, out } = this.nodes;
    const card = out.querySelector('[data-testid="lesson-current"]');
    const scroller = /** @type {HTMLElement|null} */ (panel.closest('.dock-panel'));
    if (!scroller || scroller.hidden) return;
    if (!card) {
      // The card stands under the log: the tab shows the bar and what comes next.
      scroller.scrollTop = 0;
      return;
    }
    const top = card.getBoundingClientRect().top - panel.querySelector('.lesson-sticky').getBoundingClientRect().bottom - 4;
    scroller.scrollTop += top;
  }

  /**
   * moved tells whether a run read by a poll went on from the one this
   * page showed (another run, step or status); a page that showed none
   * follows it only when it has no log of its own open.
   */
  moved(before, st) {
    if (!before) return !this.host.hasTopic();
    return before.id !== st.id || before.cursor !== st.cursor || before.status !== st.status;
  }

  /** resume shows the run the server has (started or stepped last, in any tab). */
  async resume() {
    if (this.busy || document.hidden) return;
    const asked = this.acted;
    try {
      const { current } = await this.host.api('GET', '/api/lessons');
      if (!current) {
        if (this.run && !this.busy && asked === this.acted) this.setRun(null);
        return;
      }
      const st = await this.host.api('GET', `/api/lessons/runs/${encodeURIComponent(current)}`);
      if (this.busy || asked !== this.acted || JSON.stringify(st) === this.shown) return;
      const before = this.run;
      this.setRun(st);
      // A page that follows the run follows its log: a step taken in
      // another tab (or by curl) opens the log it concerns here too, even
      // when this page opened before that log existed.
      if (this.moved(before, st)) await this.openStep(st);
    } catch {
      // The banner tells an unreachable server; the panel keeps what it shows.
    }
  }
}

/**
 * setupLessons wires the lessons panel (none on a page without one).
 * @param {import('./app.js').App} app
 */
export function setupLessons(app) {
  const panel = $('lessons-panel');
  if (!panel) return;
  const nodes = {
    panel,
    form: $('lesson-form'),
    picker: $('lesson-select'),
    buttons: { start: $('lesson-start'), next: $('lesson-next'), finish: $('lesson-finish'), reset: $('lesson-reset'), cleanup: $('lesson-cleanup') },
    out: $('lesson-run'),
    bar: $('lesson-bar'),
    error: $('lesson-error'),
    status: $('lesson-status'),
    unavailable: $('lesson-unavailable'),
    mini: { box: $('lesson-mini'), where: $('lesson-mini-where'), next: $('lesson-mini-next') },
    confirm: { box: $('lesson-cleanup-confirm'), list: $('lesson-cleanup-list'), text: $('lesson-cleanup-list-text'), go: $('lesson-cleanup-go'), cancel: $('lesson-cleanup-cancel') },
  };
  const host = {
    show: (topic, partition) => app.show(topic, partition),
    hasTopic: () => app.current().hasTopic,
    showTab: () => app.dock.show('lesson', { remember: false }),
    refreshTopics: () => app.refreshTopics(),
    api,
  };
  const student = $('app')?.dataset.role === 'student';
  new LessonPanel(nodes, host, { student, placer: (moved) => setupStepPlace(app.view, moved) }).start();
}
