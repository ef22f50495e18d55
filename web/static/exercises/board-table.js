// board-table.js: the scoreboard's table — one row per student, one cell
// per check of the exercise on show, and a Done column — and the evidence
// panel beside it. Rows are kept by student and updated in place, so a
// live update never moves the focus or the selection. Each cell says its
// state by a mark (✓ ✗ …) and a word as well as by colour; pointing at a
// cell, focusing it or selecting it (click, Enter) shows what the broker
// showed its check. A student's name is a link to their log: board.js
// puts it on the stage first.

import { partitionPath } from '../common/api.js';
import { plain, span, tr, trAttr } from '../common/i18n.js';
import { STATES, cellState, evidenceLines, rowState, topicOf } from './board-model.js';

/** stateNode is a mark and its word: the state of a cell without colour. */
function stateNode(state, tag = 'span') {
  const node = document.createElement(tag);
  node.className = 'verdict';
  const mark = document.createElement('span');
  mark.className = 'verdict-mark';
  mark.setAttribute('aria-hidden', 'true');
  mark.textContent = STATES[state].mark;
  node.append(mark, ' ', span(STATES[state].key, undefined));
  /** @type {HTMLElement} */ (node.lastChild).className = 'verdict-word';
  return node;
}

/**
 * createBoard draws the board into the table's head and body.
 * @param {object} els
 * @param {HTMLTableRowElement} els.head
 * @param {HTMLElement} els.rows the tbody
 * @param {HTMLElement} els.empty said when no student has joined
 * @param {HTMLElement} els.evidence the evidence panel
 * @param {HTMLElement} els.evidenceBody where the evidence goes
 */
export function createBoard(els) {
  let exercise = null; // {id, checks: [{key}]}
  let running = true; // whether the exercise on show runs (setRunning)
  let names = null;
  let students = [];
  const rows = new Map(); // student name -> {tr, cells: Map(key -> button), done, result}
  let selected = null; // {student, check}
  let pointed = null;
  let stageTopic = '';

  const checkKey = (key) => `exercise.${exercise.id}.check.${key}`;

  function drawHead() {
    els.head.replaceChildren();
    const th = (node, cls) => {
      const cell = document.createElement('th');
      cell.scope = 'col';
      if (cls) cell.className = cls;
      cell.append(node);
      els.head.append(cell);
    };
    th(span('board.student'), 'col-student');
    for (const c of exercise.checks) {
      const node = span(checkKey(c.key));
      th(node, 'col-check');
      node.parentElement.dataset.check = c.key;
    }
    th(span('board.done'), 'col-done');
  }

  function newRow(name) {
    const row = document.createElement('tr');
    row.dataset.testid = 'board-row';
    row.dataset.student = name;
    const head = document.createElement('th');
    head.scope = 'row';
    const link = document.createElement('a');
    link.className = 'stage-link';
    link.dataset.testid = 'stage-student';
    link.dataset.student = name;
    link.textContent = name;
    const badge = span('board.onStage');
    badge.className = 'on-stage';
    badge.dataset.testid = 'on-stage';
    badge.hidden = true;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'remove-student';
    remove.dataset.testid = 'remove-student';
    remove.dataset.student = name;
    remove.append(span('board.remove'));
    trAttr(remove, 'aria-label', 'board.removeLabel', { student: name });
    head.append(link, badge, remove);
    row.append(head);
    const cells = new Map();
    for (const c of exercise.checks) {
      const td = document.createElement('td');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'board-cell';
      b.dataset.testid = 'board-cell';
      b.dataset.student = name;
      b.dataset.check = c.key;
      b.setAttribute('aria-pressed', 'false');
      td.append(b);
      row.append(td);
      cells.set(c.key, b);
    }
    const done = document.createElement('td');
    done.className = 'row-done';
    done.dataset.testid = 'row-done';
    row.append(done);
    return { tr: row, link, badge, cells, done, result: null, states: {} };
  }

  function updateRow(r, result) {
    r.result = result;
    const topic = topicOf(names, result.name);
    r.link.href = partitionPath(topic, 0);
    r.link.dataset.topic = topic;
    trAttr(r.link, 'aria-label', 'board.stageLabel', { student: result.name });
    r.badge.hidden = topic !== stageTopic;
    for (const c of result.checks) {
      const b = r.cells.get(c.key);
      if (!b) continue;
      const state = cellState(result, c, running);
      if (r.states[c.key] !== state) {
        r.states[c.key] = state;
        b.dataset.state = state;
        b.replaceChildren(stateNode(state));
        trAttr(b, 'aria-label', 'board.cellLabel', { student: result.name, checkKey: checkKey(c.key), stateKey: STATES[state].key });
      }
    }
    const state = rowState(result, running);
    if (r.states.$done !== state) {
      r.states.$done = state;
      r.tr.dataset.state = state;
      r.done.dataset.state = state;
      r.done.replaceChildren(stateNode(state));
    }
  }

  function resultOf(student) {
    return rows.get(student)?.result || null;
  }

  /** drawEvidence shows the evidence of the cell pointed at, else the selected one. */
  function drawEvidence() {
    const at = pointed || selected;
    const result = at && resultOf(at.student);
    const check = result?.checks.find((c) => c.key === at.check);
    els.evidence.dataset.student = check ? at.student : '';
    els.evidence.dataset.check = check ? at.check : '';
    if (!check) {
      els.evidenceBody.replaceChildren(span('board.evidenceHint', undefined, 'p'));
      /** @type {HTMLElement} */ (els.evidenceBody.firstChild).className = 'hint';
      return;
    }
    const state = cellState(result, check, running);
    const out = [];
    const title = document.createElement('h3');
    title.append(plain(document.createElement('span'), at.student), ' · ', span(checkKey(check.key)));
    out.push(title);
    const st = stateNode(state, 'p');
    st.dataset.testid = 'evidence-state';
    st.dataset.state = state;
    out.push(st);
    const lead = state === 'none' ? 'board.evidenceNotRunning' : state === 'ok' ? 'board.evidenceOk' : !result.checkedAt ? 'board.evidenceNotChecked' : state === 'fail' ? 'board.evidenceFail' : 'board.evidenceWaiting';
    out.push(span(lead, { topic: topicOf(names, at.student) }, 'p'));
    if (check.hintCode) {
      const hint = span(check.hintCode, check.hintArgs || {}, 'p');
      hint.className = 'evidence-hint';
      hint.dataset.testid = 'evidence-hint';
      hint.dataset.code = check.hintCode;
      out.push(hint);
    }
    const facts = evidenceLines(check.evidence);
    if (facts.length) {
      const ul = document.createElement('ul');
      ul.className = 'evidence-facts';
      for (const f of facts) {
        const li = span(f.key, f.args, 'li');
        li.dataset.testid = 'evidence-line';
        ul.append(li);
      }
      out.push(ul);
    } else if (result.checkedAt) {
      out.push(span('board.evidenceNone', undefined, 'p'));
    }
    out.push(span('board.ev.topic', { topic: topicOf(names, at.student) }, 'p'));
    out.at(-1).className = 'evidence-topic';
    els.evidenceBody.replaceChildren(...out);
  }

  function cellAt(node) {
    const b = node instanceof Element ? /** @type {HTMLElement|null} */ (node.closest('button.board-cell')) : null;
    return b ? { student: b.dataset.student, check: b.dataset.check } : null;
  }
  els.rows.addEventListener('mouseover', (ev) => {
    const at = cellAt(ev.target);
    if (at && (at.student !== pointed?.student || at.check !== pointed?.check)) {
      pointed = at;
      drawEvidence();
    }
  });
  els.rows.addEventListener('mouseleave', () => {
    pointed = null;
    drawEvidence();
  });
  els.rows.addEventListener('focusin', (ev) => {
    const at = cellAt(ev.target);
    if (at) {
      pointed = at;
      drawEvidence();
    }
  });
  els.rows.addEventListener('focusout', () => {
    pointed = null;
    drawEvidence();
  });
  els.rows.addEventListener('click', (ev) => {
    const at = cellAt(ev.target);
    if (!at) return;
    const same = selected && selected.student === at.student && selected.check === at.check;
    selected = same ? null : at;
    for (const b of els.rows.querySelectorAll('button.board-cell[aria-pressed="true"]')) b.setAttribute('aria-pressed', 'false');
    if (selected) rows.get(at.student)?.cells.get(at.check)?.setAttribute('aria-pressed', 'true');
    pointed = same ? null : pointed;
    drawEvidence();
  });

  return {
    /** setExercise shows another exercise: new columns, the rows again. */
    setExercise(summary, exerciseNames) {
      exercise = summary;
      names = exerciseNames;
      rows.clear();
      els.rows.replaceChildren();
      selected = pointed = null;
      drawHead();
      drawEvidence();
    },
    /** update draws the students' results: new students get a row, in the order they joined. */
    update(results) {
      if (!exercise) return;
      students = results;
      const present = new Set(results.map((res) => res.name));
      for (const [name, r] of rows) {
        if (present.has(name)) continue; // a removed student leaves the board
        r.tr.remove();
        rows.delete(name);
        if (selected?.student === name) selected = null;
        if (pointed?.student === name) pointed = null;
      }
      let before = null;
      for (let i = results.length - 1; i >= 0; i--) {
        const res = results[i];
        let r = rows.get(res.name);
        if (!r) {
          r = newRow(res.name);
          rows.set(res.name, r);
          els.rows.insertBefore(r.tr, before);
        }
        updateRow(r, res);
        before = r.tr;
      }
      els.empty.hidden = results.length > 0;
      drawEvidence();
    },
    /**
     * setRunning says whether the exercise on show runs: while it does
     * not, nothing grades it and every cell says "not started".
     */
    setRunning(on) {
      if (running === on) return;
      running = on;
      for (const r of rows.values()) if (r.result) updateRow(r, r.result);
      drawEvidence();
    },
    /** setStage marks the student whose log is on the stage. */
    setStage(topic) {
      stageTopic = topic || '';
      for (const r of rows.values()) r.badge.hidden = !r.link.dataset.topic || r.link.dataset.topic !== stageTopic;
    },
    /** redraw re-renders what the language switch cannot reach (the evidence). */
    redraw() {
      drawEvidence();
    },
    students: () => students,
  };
}
