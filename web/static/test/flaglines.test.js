// @ts-check
// flaglines.test.js: the pointer flags never cover each other nor run out
// of the row: an offset's flags wrap into lines when the next pointed
// offset (or the row's end) leaves too little room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flagLayout } from '../partition/flaglines.js';

// Flags of 10 px a character, slots of 132 px, five to a row.
const widthOf = (label) => label.length * 10;
const grid = { start: 0, cols: 5, slotW: 132, gap: 4 };
const f = (id, label, short) => ({ id, label, short });

test('flagLayout', () => {
  const tests = [
    {
      name: 'a one-record open transaction: LSO 0 beside HW 1 fits one line each',
      groups: [{ offset: 0, flags: [f('lso', 'LSO 0')] }, { offset: 1, flags: [f('hw', 'HW 1')] }],
      lines: 1, room: [[0, 128], [1, 4 * 132 - 4]],
    },
    {
      name: 'log start and LSO on 0, HW on 1: the two on 0 take two lines',
      groups: [{ offset: 0, flags: [f('logstart', 'log start 0'), f('lso', 'LSO 0')] }, { offset: 1, flags: [f('hw', 'HW 1')] }],
      lines: 2, room: [[0, 128], [1, 524]],
    },
    {
      name: 'LSO and HW on the last column: no room to the right, two lines',
      groups: [{ offset: 14, flags: [f('lso', 'LSO 1400'), f('hw', 'HW 1400')] }],
      lines: 2, room: [[14, 128]],
    },
    {
      name: 'LSO and HW with empty slots to their right: one line',
      groups: [{ offset: 8, flags: [f('lso', 'LSO 8'), f('hw', 'HW 8')] }],
      lines: 1, room: [[8, 2 * 132 - 4]],
    },
    {
      name: 'a group\'s long name before a pointed slot: its short label',
      groups: [{ offset: 1, flags: [f('group:g', 'totals-tx-33ec25 1', 'group 1')] }, { offset: 2, flags: [f('lso', 'LSO 2')] }],
      lines: 1, room: [[1, 128], [2, 392]], short: ['group:g'],
    },
    {
      name: 'two groups\' long names on one offset: their short labels on one line rather than two lines',
      groups: [{ offset: 2, flags: [f('group:a', 'reports-early-20b9e0', 'group'), f('group:b', 'reports-late-20b9e0 2', 'group 2')] }],
      lines: 1, room: [[2, 3 * 132 - 4]], short: ['group:a', 'group:b'],
    },
    {
      name: 'short labels that still wrap are no better: the whole names stay',
      groups: [{ offset: 4, flags: [f('group:a', 'aaaaaaa', 'group 111'), f('group:b', 'bbbbbbb 4', 'group 4444')] }],
      lines: 2, room: [[4, 128]],
    },
    {
      name: 'offsets in other rows do not crowd each other',
      groups: [{ offset: 4, flags: [f('lso', 'LSO 4'), f('x', 'XXXXXXXX')] }, { offset: 5, flags: [f('hw', 'HW 5')] }],
      lines: 2, room: [[4, 128], [5, 656]],
    },
  ];
  for (const tt of tests) {
    const got = flagLayout(tt.groups, grid, widthOf);
    assert.equal(got.lines, tt.lines, tt.name + ': lines');
    assert.deepEqual([...got.room], tt.room, tt.name + ': room');
    assert.deepEqual([...got.short], tt.short || [], tt.name + ': short labels');
  }
});
