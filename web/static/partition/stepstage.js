// stepstage.js: the answer of a lesson step that only reads, drawn on the
// stage at the cells it concerns. A describe, a consumer's read or a read
// of the log changes nothing in the log, so without this the class sees a
// step button turn ✓ and nothing else. The lesson API sends each such
// step's answer in structured fields (a step's `answer`: the coordinator's
// state and the cell of the open transaction's first record or of the
// producer's last marker; a group's committed offset; the offsets a
// consumer received; a log's markers and pointers); this module rings
// those cells and lanes, each ring labelled, and writes the answer in a
// callout next to them, over the log view (logview.js), for as long as the
// step is the one just done and the view shows its log — the next step, a
// reset or another log takes it away. The teacher's page and a student's
// (whose lessons panel follows the teacher's run) draw it the same way.

import { fmt } from '../common/api.js';
import { onLanguage, t } from '../common/i18n.js';

const LANE_NAMES = { read_committed: 'rc', read_uncommitted: 'ru' };

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const list = (offsets) => (offsets && offsets.length ? offsets.map(fmt).join(', ') : t('lesson.ui.value.none'));

/**
 * answerOf is the step a run's stage answers for: the step just done, when
 * it read something; null otherwise, and while a step runs.
 * @param {import('../types/wire.js').RunState|null|undefined} run
 */
export function answerOf(run) {
  if (!run || !run.steps || run.status === 'running') return null;
  const shown = run.steps.filter((s) => s.status === 'done' || s.status === 'failed');
  const last = shown[shown.length - 1];
  return last && last.status === 'done' && last.answer && last.topic ? last : null;
}

/**
 * plan turns a step's answer into what the stage draws: rings (an offset,
 * on the cell or on a consumer lane, with a label) and one callout at an
 * offset (its words). pointers are the view's, for an answer anchored at
 * one.
 * @param {import('../types/wire.js').StepState|null} step
 * @param {import('../types/wire.js').Pointers|null} pointers
 */
export function plan(step, pointers) {
  const a = step.answer;
  const rings = [];
  let at = null;
  let kind = '';
  let text = '';
  if (a.transaction) {
    const x = a.transaction;
    kind = 'transaction';
    const args = { state: x.state, id: x.transactionalId, offset: fmt(x.offset), epoch: x.producerEpoch };
    if (x.anchor) {
      at = x.offset;
      rings.push({ offset: x.offset, on: 'cell', label: t(x.anchor === 'open' ? 'lesson.ui.answer.openMark' : 'lesson.ui.answer.markerMark') });
      text = t(x.anchor === 'open' ? 'lesson.ui.answer.txnOpen' : 'lesson.ui.answer.txnMarker', args);
    } else {
      at = pointers ? pointers.lastStableOffset : null;
      text = t('lesson.ui.answer.txnNowhere', args);
    }
  } else if (a.group) {
    const g = a.group;
    kind = 'group';
    at = g.committed;
    rings.push({ offset: g.committed, on: 'cell', label: t('lesson.ui.answer.committedMark', { committed: fmt(g.committed) }) });
    text = t('lesson.ui.answer.group', { group: g.group, committed: fmt(g.committed), logEnd: fmt(g.logEnd), lag: fmt(g.lag) });
  } else if (a.read) {
    const r = a.read;
    kind = 'read';
    const lane = LANE_NAMES[r.isolation] || 'rc';
    r.offsets.forEach((o, i) => rings.push({ offset: o, on: lane, label: t('lesson.ui.answer.nth', { n: i + 1 }) }));
    const g = r.resume;
    if (g && (g.outOfRange || g.committed < 0) && !r.offsets.includes(g.start)) {
      rings.push({ offset: g.start, on: 'cell', label: t('lesson.ui.answer.startMark') });
    }
    if (r.offsets.length) at = r.offsets[0];
    else if (g) at = g.start;
    else if (pointers) at = lane === 'rc' ? pointers.lastStableOffset : pointers.highWatermark;
    const args = { name: r.isolation, offsets: list(r.offsets) };
    if (g) {
      Object.assign(args, { group: g.group, committed: fmt(g.committed), start: fmt(g.start), lost: fmt(g.lost), next: fmt(g.next) });
      const key = g.outOfRange ? 'readGroupReset' : g.committed < 0 ? 'readGroupFresh' : r.offsets.length ? 'readGroup' : 'readGroupNone';
      text = t('lesson.ui.answer.' + key, args);
    } else {
      text = t(r.offsets.length ? 'lesson.ui.answer.read' : 'lesson.ui.answer.readNone', args);
    }
  } else if (a.log) {
    const l = a.log;
    kind = 'log';
    for (const o of l.markers) rings.push({ offset: o, on: 'cell', label: t('lesson.ui.answer.markerRing') });
    for (const o of l.aborted) rings.push({ offset: o, on: 'cell', label: t('lesson.ui.answer.abortedRing') });
    for (const o of l.open) rings.push({ offset: o, on: 'cell', label: t('lesson.ui.answer.openRing') });
    const copies = (l.copies || []).filter((c) => c.offsets.length);
    for (const c of copies) c.offsets.forEach((o, i) => rings.push({ offset: o, on: 'cell', label: t('lesson.ui.answer.copyRing', { n: i + 1 }) }));
    const ringed = rings.map((r) => r.offset);
    at = ringed.length ? Math.min(...ringed) : l.lastStableOffset;
    // Only what this log has: a log without transactions says no
    // "markers none".
    const gaps = (l.gaps || []).map((g) => (g.from === g.to ? fmt(g.from) : `${fmt(g.from)}–${fmt(g.to)}`));
    const parts = [];
    if (l.logStartOffset > 0) parts.push(t('lesson.ui.answer.logStart', { offset: fmt(l.logStartOffset) }));
    if (l.markers.length) parts.push(t('lesson.ui.answer.logMarkers', { offsets: list(l.markers) }));
    if (l.aborted.length) parts.push(t('lesson.ui.answer.logAborted', { offsets: list(l.aborted) }));
    if (l.open.length) parts.push(t('lesson.ui.answer.logOpen', { offsets: list(l.open) }));
    if (gaps.length) parts.push(t('lesson.ui.answer.logGaps', { offsets: gaps.join(', ') }));
    for (const c of l.copies || []) parts.push(t('lesson.ui.answer.logCopies', { value: c.value, n: c.offsets.length, offsets: list(c.offsets) }));
    parts.push(t('lesson.ui.answer.logPointers', { lso: fmt(l.lastStableOffset), hw: fmt(l.highWatermark) }));
    text = t('lesson.ui.answer.log', { parts: parts.join(' · ') });
  }
  return { kind, at, text, rings };
}

/**
 * setupStepStage draws the answers over app.view (a LogView). It follows
 * the run the lessons panel shows (its offsetlab:lesson-shown event) and
 * redraws after every render of the view (a scroll, a resize, new data).
 * @param {import('./app.js').App} app
 */
export function setupStepStage(app) {
  const view = app.view;
  const layer = el('div', 'step-answer-layer');
  layer.setAttribute('aria-hidden', 'true');
  view.viewport.append(layer);
  // The callout is also said once, politely, for screen readers: the
  // rings are drawing only.
  const said = el('p', 'sr-only');
  said.setAttribute('role', 'status');
  said.dataset.testid = 'step-answer-said';
  view.viewport.after(said);

  let step = null;
  let revealed = '';

  // While the panel asks the server (Next pressed, the step running) the
  // answer of the step before is gone; the new one comes with the run.
  const panel = document.getElementById('lessons-panel');
  const busy = () => panel?.getAttribute('aria-busy') === 'true';
  if (panel) new MutationObserver(() => draw()).observe(panel, { attributes: true, attributeFilter: ['aria-busy'] });

  const draw = () => {
    if (!step || busy() || view.topic !== step.topic || view.partition !== step.partition || !view.pointers || !view.cols) {
      layer.replaceChildren();
      said.textContent = '';
      view.askRoom(0);
      return;
    }
    const p = plan(step, view.pointers);
    // A replay shows the past: the answer is drawn there only once the
    // log holds every cell it names.
    const named = [...p.rings.map((r) => r.offset), ...(p.at === null ? [] : [p.at])];
    if (view.replaying && named.some((o) => o > view.hw)) {
      layer.replaceChildren();
      return;
    }
    const key = `${step.index}|${step.topic}|${step.partition}`;
    if (revealed !== key && p.at !== null) {
      revealed = key;
      if (!visible(p.at)) view.scrollToOffset(p.at, 'nearest');
    }
    const vp = view.viewport.getBoundingClientRect();
    const nodes = [];
    for (const r of p.rings) {
      const box = target(r.offset, r.on);
      if (!box) continue;
      const ring = el('div', 'step-answer-ring');
      ring.dataset.testid = 'step-answer-ring';
      ring.dataset.offset = r.offset;
      ring.dataset.on = r.on === 'cell' ? 'cell' : 'lane';
      place(ring, box, vp);
      ring.append(el('span', 'step-answer-ring-label', r.label));
      nodes.push(ring);
    }
    const callout = calloutOf(step, p, p.text);
    const anchor = p.at === null ? null : target(p.at, 'cell');
    // Scrolled off, the cell takes its answer with it.
    if (p.at !== null && !anchor) {
      layer.replaceChildren(...nodes);
      return;
    }
    layer.replaceChildren(...nodes, callout);
    // Room for the callout under the rows, where the page has it to give
    // (stepplace.js sizes the log to what it needs).
    view.askRoom(callout.offsetHeight + 8);
    position(callout, anchor, layer, vp);
    if (said.textContent !== p.text) said.textContent = p.text;
  };

  /** calloutOf is the answer's box: the step's number, then its words. */
  function calloutOf(step, p, text) {
    const callout = el('div', 'step-answer');
    callout.dataset.testid = 'step-answer';
    callout.dataset.kind = p.kind;
    callout.dataset.step = step.index;
    if (p.at !== null) callout.dataset.offset = p.at;
    if (step.answer.transaction) callout.dataset.state = step.answer.transaction.state;
    if (step.answer.group) callout.dataset.committed = step.answer.group.committed;
    if (step.answer.read) callout.dataset.offsets = step.answer.read.offsets.join(',');
    callout.append(el('span', 'step-answer-step', t('lesson.ui.answer.of', { n: step.index + 1 })), el('span', 'step-answer-text', text));
    return callout;
  }

  /**
   * target is the element of offset a ring goes round: its cell or one of
   * its lanes — in the table, its row or the row's RC or RU column.
   */
  function target(offset, on) {
    const cell = view.cellFor(offset);
    if (!cell || on === 'cell') return cell;
    if (view.table) return cell.querySelector(on === 'rc' ? '.t-rc' : '.t-ru');
    return cell.parentElement.querySelector(`.lane[data-lane="${on}"]`);
  }

  function visible(offset) {
    const cell = view.cellFor(offset);
    if (!cell) return false;
    const r = cell.getBoundingClientRect();
    const vp = view.viewport.getBoundingClientRect();
    return r.top >= vp.top && r.bottom <= vp.bottom;
  }

  view.onRender(draw);
  document.addEventListener('offsetlab:lesson-shown', (ev) => {
    step = answerOf(ev.detail);
    draw();
  });
  onLanguage(draw);
}

/** place puts node over box, in the coordinates of the viewport (vp). */
function place(node, box, vp) {
  const r = box.getBoundingClientRect();
  node.style.left = `${r.left - vp.left - 3}px`;
  node.style.top = `${r.top - vp.top - 3}px`;
  node.style.width = `${r.width + 6}px`;
  node.style.height = `${r.height + 6}px`;
}

/**
 * position puts the callout next to the anchor cell where it hides the
 * least: it tries every height in the view and weighs what it would
 * cover — labels (pointers, batches, the rings') most, then a ringed cell
 * or lane, then the other cells and lanes — and takes the cheapest, the
 * nearest the anchor among equals.
 * A lesson's log of one row leaves room under it; a log of two rows at
 * 1280×720 leaves the band of a row's second lane and the next row's
 * pointers.
 */
function position(callout, cell, layer, vp) {
  // One line where it can: the card beside the log names the step, so the
  // callout's "Step n:" gives way before its words wrap.
  const line = parseFloat(getComputedStyle(callout).lineHeight) || 24;
  if (callout.offsetHeight > line * 1.6 + 16) callout.dataset.short = 'true';
  const w = callout.offsetWidth;
  const h = callout.offsetHeight;
  const anchor = cell ? cell.getBoundingClientRect() : null;
  let left = anchor ? anchor.left - vp.left : 8;
  left = Math.max(4, Math.min(left, vp.width - w - 4));
  const weighed = [];
  const weigh = (sel, weight, root = layer.parentElement) => {
    for (const n of root.querySelectorAll(sel)) {
      if (n.closest('.slot[hidden]')) continue;
      const r = n.getBoundingClientRect();
      if (r.width && r.height) weighed.push({ r, weight });
    }
  };
  weigh('.step-answer-ring', 8, layer);
  // Labels are never covered: a ring's, a pointer's (the group's committed
  // offset among them), a batch's.
  weigh('.step-answer-ring-label', 1000, layer);
  weigh('.row .cell, .trow', 3);
  weigh('.row .flag, .row .batch-label', 1000);
  // The lanes stay in view as the cells do: what each consumer received.
  weigh('.row .lane', 3);
  const cost = (top) => {
    const y0 = vp.top + top;
    const x0 = vp.left + left;
    let c = 0;
    for (const { r, weight } of weighed) {
      const dx = Math.min(x0 + w, r.right) - Math.max(x0, r.left);
      const dy = Math.min(y0 + h, r.bottom) - Math.max(y0, r.top);
      if (dx > 0 && dy > 0) c += dx * dy * weight;
    }
    return c;
  };
  const near = anchor ? anchor.bottom - vp.top : 0;
  let best = 4;
  let bestCost = Infinity;
  for (let top = 4; top + h <= vp.height - 2; top += 4) {
    const c = cost(top) + Math.abs(top - near) * 0.01;
    if (c < bestCost) {
      best = top;
      bestCost = c;
    }
  }
  callout.style.left = `${left}px`;
  callout.style.top = `${best}px`;
  callout.dataset.side = anchor && best > anchor.top - vp.top ? 'below' : 'above';
}
