// @ts-check
// loginput.test.js: the keys that move the log's active cell, alone —
// where each key goes, and what a key pressed on a cell asks of the view
// (a fake that records it), no DOM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyMove, LogInput } from '../partition/loginput.js';

test('keyMove', () => {
  const g = { start: 10, hw: 100, cols: 5, rows: 3 };
  const tests = [
    { key: 'ArrowRight', want: 21 },
    { key: 'ArrowLeft', want: 19 },
    { key: 'ArrowDown', want: 25 },
    { key: 'ArrowUp', want: 15 },
    { key: 'PageDown', want: 35 },
    { key: 'PageUp', want: 5 },
    { key: 'Home', want: 10 },
    { key: 'End', want: 100 },
    { key: 'Enter', want: undefined },
    { key: 'toString', want: undefined },
  ];
  for (const tt of tests) assert.equal(keyMove(tt.key, 20, g), tt.want, tt.key);
});

/** fakeView is the little of a log view the keys read, recording what they ask. */
function fakeView() {
  /** @type {string[]} */
  const calls = [];
  /** @type {any} */
  const view = {
    pointers: { logStartOffset: 0, lastStableOffset: 50, highWatermark: 50 },
    start: 0, hw: 50, cols: 4, rowH: 100, viewH: 300, scrollY: 0, follow: true,
    active: 8, selected: null,
    visibleRows: () => 3,
    maxScroll: () => 1000,
    setScroll: () => false,
    setFollow: () => {},
    select: (/** @type {number|null} */ o) => {
      calls.push(`select ${o}`);
      view.selected = o;
    },
    jumpTo: (/** @type {number} */ o, /** @type {boolean} */ focus) => {
      calls.push(`jumpTo ${o} ${focus}`);
      view.active = o;
    },
    goTo: () => {}, pick: () => {}, focusOn: () => {}, hover: () => {}, unhover: () => {},
  };
  return { view, calls };
}

/**
 * press is a key pressed on a cell (or a table row).
 * @param {string} key
 * @param {{on?: string, ctrlKey?: boolean}} [opts]
 */
function press(key, opts = {}) {
  const on = opts.on || '.cell';
  let prevented = false;
  const clicked = [];
  const target = { closest: (/** @type {string} */ sel) => (sel.split(', ').includes(on) ? { click: () => clicked.push(key) } : null) };
  return { ev: { key, target, altKey: false, ctrlKey: !!opts.ctrlKey, metaKey: false, preventDefault: () => { prevented = true; } }, prevented: () => prevented, clicked };
}

const nodes = /** @type {any} */ ({ viewport: null, minimap: null, followBtn: null });

test('a key on a cell moves the active cell, and the selection with it', () => {
  const { view, calls } = fakeView();
  const input = new LogInput(nodes, view);
  let p = press('ArrowDown');
  input.onKey(p.ev);
  assert.deepEqual(calls, ['jumpTo 12 true'], 'nothing selected: only the active cell moves');
  assert.equal(p.prevented(), true);
  view.selected = 12;
  calls.length = 0;
  input.onKey(press('PageDown').ev);
  assert.deepEqual(calls, ['jumpTo 24 true', 'select 24']);
  calls.length = 0;
  input.onKey(press('Escape').ev);
  assert.deepEqual(calls, ['select null']);
});

test('keys the log leaves alone', () => {
  const { view, calls } = fakeView();
  const input = new LogInput(nodes, view);
  input.onKey(press('ArrowDown', { on: '.other' }).ev);
  input.onKey(press('ArrowDown', { ctrlKey: true }).ev);
  const p = press('x');
  input.onKey(p.ev);
  assert.equal(p.prevented(), false);
  view.pointers = null;
  input.onKey(press('ArrowDown').ev);
  assert.deepEqual(calls, []);
});

test('Enter and Space on a table row choose it as a click does', () => {
  const { view, calls } = fakeView();
  const input = new LogInput(nodes, view);
  for (const key of ['Enter', ' ']) {
    const p = press(key, { on: '.trow' });
    input.onKey(p.ev);
    assert.deepEqual(p.clicked, [key]);
    assert.equal(p.prevented(), true);
  }
  const onCell = press('Enter');
  input.onKey(onCell.ev);
  assert.deepEqual(onCell.clicked, [], 'a cell is a button: the browser clicks it');
  assert.deepEqual(calls, []);
});
