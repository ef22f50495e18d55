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
 * it read something; null otherwise.
 */
export function answerOf(run) {
  if (!run || !run.steps) return null;
  const shown = run.steps.filter((s) => s.status === 'done' || s.status === 'failed');
  const last = shown[shown.length - 1];
  return last && last.status === 'done' && last.answer && last.topic ? last : null;
}

/**
 * plan turns a step's answer into what the stage draws: rings (an offset,
 * on the cell or on a consumer lane, with a label) and one callout at an
 * offset (its words). pointers are the view's, for an answer anchored at
 * one.
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
    if (r.offsets.length) at = r.offsets[0];
    else if (pointers) at = lane === 'rc' ? pointers.lastStableOffset : pointers.highWatermark;
    if (r.group) text = t('lesson.ui.answer.readGroup', { group: r.group, offsets: list(r.offsets), next: fmt(r.next) });
    else if (r.offsets.length) text = t('lesson.ui.answer.read', { name: r.isolation, n: r.offsets.length, offsets: list(r.offsets) });
    else text = t('lesson.ui.answer.readNone', { name: r.isolation });
  } else if (a.log) {
    const l = a.log;
    kind = 'log';
    for (const o of l.markers) rings.push({ offset: o, on: 'cell', label: t('lesson.ui.answer.markerRing') });
    for (const o of l.aborted) rings.push({ offset: o, on: 'cell', label: t('lesson.ui.answer.abortedRing') });
    for (const o of l.open) rings.push({ offset: o, on: 'cell', label: t('lesson.ui.answer.openRing') });
    const ringed = rings.map((r) => r.offset);
    at = ringed.length ? Math.min(...ringed) : l.lastStableOffset;
    text = t('lesson.ui.answer.log', { markers: list(l.markers), aborted: list(l.aborted), lso: fmt(l.lastStableOffset), hw: fmt(l.highWatermark) });
  }
  return { kind, at, text, rings };
}

/**
 * setupStepStage draws the answers over app.view (a LogView). It follows
 * the run the lessons panel shows (its offsetlab:lesson-shown event) and
 * redraws after every render of the view (a scroll, a resize, new data).
 * @param {{view: object}} app
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

  const draw = () => {
    const on = step && view.topic === step.topic && view.partition === step.partition && view.pointers && view.cols && !view.table;
    if (!on) {
      layer.replaceChildren();
      said.textContent = '';
      return;
    }
    const p = plan(step, view.pointers);
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
    const callout = el('div', 'step-answer');
    callout.dataset.testid = 'step-answer';
    callout.dataset.kind = p.kind;
    callout.dataset.step = step.index;
    if (p.at !== null) callout.dataset.offset = p.at;
    if (step.answer.transaction) callout.dataset.state = step.answer.transaction.state;
    if (step.answer.group) callout.dataset.committed = step.answer.group.committed;
    if (step.answer.read) callout.dataset.offsets = step.answer.read.offsets.join(',');
    callout.append(el('span', 'step-answer-step', t('lesson.ui.answer.of', { n: step.index + 1 })), el('span', 'step-answer-text', p.text));
    const anchor = p.at === null ? null : target(p.at, 'cell');
    layer.replaceChildren(...nodes, callout);
    position(callout, anchor && anchor.getBoundingClientRect(), vp);
    if (said.textContent !== p.text) said.textContent = p.text;
  };

  /** target is the element of offset a ring goes round: its cell or one of its lanes. */
  function target(offset, on) {
    const cell = view.cellFor(offset);
    if (!cell) return null;
    if (on === 'cell') return cell;
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
 * position puts the callout under the anchor's slot, where the row leaves
 * room below it (a lesson's log is one row with space under it), else
 * over the top of the view; its left edge at the anchor's, kept inside.
 */
function position(callout, anchor, vp) {
  const w = callout.offsetWidth;
  const h = callout.offsetHeight;
  const slot = anchor ? anchor.closest('.slot')?.getBoundingClientRect() || anchor : null;
  let left = anchor ? anchor.left - vp.left : 8;
  left = Math.max(4, Math.min(left, vp.width - w - 4));
  let top = 4;
  if (slot && slot.bottom - vp.top + 8 + h <= vp.height) top = slot.bottom - vp.top + 8;
  else if (slot && slot.top - vp.top - 8 - h >= 0) top = slot.top - vp.top - 8 - h;
  else if (anchor) top = Math.max(4, Math.min(vp.height - h - 4, anchor.bottom - vp.top + 4));
  callout.style.left = `${left}px`;
  callout.style.top = `${top}px`;
  callout.dataset.side = slot && top > slot.bottom - vp.top ? 'below' : 'above';
}
