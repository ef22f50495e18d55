// stepplace.js: where the card of a lesson's step just done stands, so that
// a class reads all of it, beside the cells it speaks of, without
// scrolling. On a presenter's screen (1000 px wide and more) the log often
// needs one or two rows of cells and leaves height unused under them: the
// card moves there, into the log panel's width, and the log keeps just the
// height its rows need. A card too long for one place is cut in two: its
// head (title, narration, the first of its command and checks) stands in
// one place, the rest in the other — under the log and in the dock's
// Lesson tab, under the lesson's bar. When that is still short the story
// folds away for the step; the log's own controls (its replay bar, Table
// toggle, lane counts and group pointers) always stay. The first arrangement that
// shows every word and every row of the log wins (the log panel's
// data-arrangement says which; -1 when none does: then every row still
// shows and the card stands whole in the tab, the rest a scroll away). On a
// narrow screen the card stays in the tab.

const WIDE = '(min-width: 1000px) and (min-height: 540px)';

/**
 * arrangements lists, in order of preference, where the card's head goes
 * ('log' or 'dock'), how many of its n movable pieces (its command, then
 * its checks) stay with it — the rest stand in the other place — and what
 * folds away meanwhile: nothing or the story. The command comes first of the pieces, or last when it is
 * the one that stands apart.
 */
function arrangements(n) {
  const out = [];
  for (const fold of ['', 'story']) {
    for (const commandLast of [false, true]) {
      if (!commandLast) out.push({ head: 'log', keep: n, fold }, { head: 'dock', keep: n, fold });
      for (let k = n - 1; k >= 0; k--) out.push({ head: 'dock', keep: k, fold, commandLast });
      for (let k = n - 1; k >= 0; k--) out.push({ head: 'log', keep: k, fold, commandLast });
    }
  }
  return out;
}

/**
 * setupStepPlace places the step cards lessons.js draws.
 * @param {{neededHeight: (withAnswer?: boolean) => number}} view the log view
 * @param {() => void} moved called once the card has found its place
 * @returns {{place: (card: Element | null) => void}}
 */
export function setupStepPlace(view, moved) {
  const slot = document.getElementById('log-step');
  const panel = document.getElementById('log-panel');
  const frame = document.getElementById('log-frame');
  const dock = document.getElementById('dock');
  const lessonTab = document.getElementById('dock-lesson');
  if (!slot || !panel || !frame || !dock || !lessonTab) return { place() {} };
  const wide = window.matchMedia(WIDE);
  let card = null;
  // home is where the card stands in the dock: its parent and the node after it.
  let home = null;
  // part holds the pieces that stand apart from the card's head.
  let part = null;

  // pieces are the parts of the card that may stand apart from its head:
  // the command, each check, then the output.
  // A long command may stand apart alone: then the checks come first.
  const pieces = (commandLast) => {
    const command = card.querySelector('.step-command');
    const checks = [...card.querySelectorAll('[data-testid="lesson-check"]')];
    return [...(commandLast ? [...checks, command] : [command, ...checks]), card.querySelector(':scope > details.output')].filter(Boolean);
  };
  const toHome = (node) => home.parent.insertBefore(node, home.next && home.next.parentElement === home.parent ? home.next : null);

  /** reset puts everything back in the dock: the card whole, nothing folded. */
  function reset() {
    if (card && part) {
      const command = part.querySelector('.step-command');
      if (command) card.querySelector('.step-words')?.append(command);
      card.querySelector('.lesson-checks')?.append(...part.querySelectorAll('[data-testid="lesson-check"]'));
      const output = part.querySelector('details.output');
      if (output) card.append(output);
    }
    part?.remove();
    part = null;
    card?.removeAttribute('aria-owns');
    if (card && home && card.parentElement !== home.parent) toHome(card);
    slot.replaceChildren();
    slot.hidden = true;
    delete panel.dataset.stepPlace;
    panel.style.removeProperty('--log-need');
    delete dock.dataset.story;
  }

  /** arrange stands the card as a says and tells whether every word shows. */
  function arrange(a, need, roomy) {
    reset();
    if (a.fold) dock.dataset.story = 'folded';
    const moving = pieces(a.commandLast).slice(a.keep);
    if (moving.length) {
      // The pieces after the cut, in a card of their own with the same
      // test id and step: every check of the step is still found under
      // [data-testid="lesson-current"].
      part = document.createElement('article');
      part.className = 'lesson-step step-part';
      for (const k of ['testid', 'index', 'status']) part.dataset[k] = card.dataset[k];
      const body = document.createElement('div');
      body.className = 'step-body';
      const checks = moving.filter((node) => node.dataset.testid === 'lesson-check');
      const command = moving.find((node) => node.classList.contains('step-command'));
      if (command) body.append(command);
      if (checks.length) {
        const list = document.createElement('ul');
        list.className = 'lesson-checks';
        list.dataset.testid = 'lesson-checks-more';
        list.setAttribute('aria-label', card.querySelector('.lesson-checks')?.getAttribute('aria-label') || '');
        list.append(...checks);
        const box = document.createElement('div');
        box.className = 'step-checks';
        box.append(list);
        body.append(box);
      }
      part.append(body);
      const output = moving.find((node) => node.matches('details.output'));
      if (output) part.append(output);
    }
    const other = a.head === 'log' ? 'dock' : 'log';
    const inLog = [a.head === 'log' ? card : null, part && other === 'log' ? part : null].filter(Boolean);
    const inDock = [a.head === 'dock' ? card : null, part && other === 'dock' ? part : null].filter(Boolean);
    if (inLog.length) {
      panel.style.setProperty('--log-need', Math.ceil(need) + 'px');
      panel.dataset.stepPlace = 'log';
      slot.hidden = false;
      slot.append(...inLog);
    }
    for (const node of inDock) toHome(node);
    // The log comes before the dock in the document: checks standing
    // under the log are still read after the card's head they belong to.
    if (part && a.head === 'dock' && other === 'log') {
      part.id = 'lesson-step-part';
      card.setAttribute('aria-owns', part.id);
    }
    return fits(inLog.length > 0, inDock, need, roomy);
  }

  /**
   * fits tells whether the slot under the log and the Lesson tab show all
   * they hold, and the log all its rows when it can (roomy: the height the
   * log has with everything folded).
   */
  function fits(useLog, inDock, need, roomy) {
    if (useLog && (slot.scrollHeight > slot.clientHeight + 1 || slot.scrollWidth > slot.clientWidth + 1)) return false;
    if ((useLog || need <= roomy) && frame.getBoundingClientRect().height < need - 1) return false;
    if (!inDock.length) return true;
    const bar = lessonTab.querySelector('.lesson-sticky');
    let height = 0;
    for (const node of inDock) height += node.getBoundingClientRect().height + 4;
    return height <= lessonTab.clientHeight - (bar ? bar.offsetHeight : 0) - 8;
  }

  function fit() {
    const need = view.neededHeight();
    if (!card || !home || !home.parent.isConnected || !wide.matches || lessonTab.hidden || frame.hidden || !need) {
      reset();
      delete panel.dataset.arrangement;
    } else {
      // The height the log has for its rows with everything folded.
      arrange({ head: 'dock', keep: Infinity, fold: 'story' }, need, 0);
      const roomy = frame.getBoundingClientRect().height;
      const all = arrangements(pieces(false).length);
      let i = all.findIndex((a) => arrange(a, need, roomy));
      // The room a step's answer asked for under the rows gives way
      // before the step's words do: the callout then finds a place over
      // the cells that covers no label (stepstage.js).
      const bare = view.neededHeight(false);
      if (i < 0 && bare < need) i = all.findIndex((a) => arrange(a, bare, roomy));
      // Too long for the screen: every cell still shows, and the card
      // whole in the Lesson tab with the most room, the rest a scroll away.
      if (i < 0) arrange({ head: 'dock', keep: Infinity, fold: 'story' }, bare, roomy);
      panel.dataset.arrangement = String(i);
    }
    moved();
  }

  let pending = 0;
  const fitSoon = () => {
    if (pending) return;
    pending = requestAnimationFrame(() => {
      pending = 0;
      fit();
    });
  };
  document.addEventListener('offsetlab:log-height', fitSoon);
  document.addEventListener('offsetlab:tab', fitSoon);
  wide.addEventListener('change', fitSoon);
  window.addEventListener('resize', fitSoon);
  // The log's head (its pointers, the LSO's sentence, the lanes' counts)
  // takes more or less height as the log changes.
  const watch = new ResizeObserver(fitSoon);
  for (const id of ['pointer-summary', 'lso-why', 'problem']) {
    const node = document.getElementById(id);
    if (node) watch.observe(node);
  }
  watch.observe(panel.querySelector('.lane-counts') || panel);
  // So does the lesson's bar (a status line, an error), and the tab itself.
  watch.observe(lessonTab);
  const bar = lessonTab.querySelector('.lesson-sticky');
  if (bar) watch.observe(bar);

  return {
    /** place takes the card just drawn in the dock (null when there is none) and finds it its place. */
    place(c) {
      part?.remove();
      part = null;
      slot.replaceChildren();
      slot.hidden = true;
      card = c;
      home = c ? { parent: c.parentElement, next: c.nextSibling } : null;
      fit();
    },
  };
}
