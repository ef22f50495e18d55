// @ts-check
// loggeometry.test.js: the log view's grid arithmetic — rows of slots from
// the log start to the high watermark, what is on screen, where a scroll
// brings an offset, and the minimap's scale and thumb.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as geometry from '../partition/loggeometry.js';

// 100 offsets from 1,000 (HW 1,100: 101 slots), 8 to a row (13 rows), rows
// of 40 px, 200 px on screen (5 whole rows).
const g = (over = {}) => ({ start: 1000, hw: 1100, cols: 8, rowH: 40, viewH: 200, scrollY: 0, ...over });

test('the slots are the offsets and the next one, cut into rows', () => {
  assert.equal(geometry.slotCount(g()), 101);
  assert.equal(geometry.rowCount(g()), 13);
  assert.equal(geometry.rowCount(g({ cols: 0 })), 0, 'not laid out yet');
  assert.equal(geometry.slotCount(g({ hw: 1000 })), 1, 'an empty log: the slot where the first record lands');
  assert.equal(geometry.rowOf(g(), 1000), 0);
  assert.equal(geometry.rowOf(g(), 1007), 0);
  assert.equal(geometry.rowOf(g(), 1008), 1);
  assert.equal(geometry.rowOf(g(), 1100), 12);
});

test('the last scroll position shows whole rows, the last one at the bottom', () => {
  assert.equal(geometry.fullRows(g()), 5);
  assert.equal(geometry.maxScroll(g()), (13 - 5) * 40);
  assert.equal(geometry.maxScroll(g({ viewH: 230 })), 13 * 40 - 230, 'the last row ends the view, the one above it cut: no room left empty under the log');
  assert.equal(geometry.maxScroll(g({ hw: 1010 })), 0, 'a log that fits');
  assert.equal(geometry.clampScroll(g(), -5), 0);
  assert.equal(geometry.clampScroll(g(), 1e9), 320);
});

test('what is on screen', () => {
  const tests = [
    { name: 'the top', at: g(), rows: [0, 4], first: 1000, last: 1039 },
    { name: 'half a row down: six rows show', at: g({ scrollY: 20 }), rows: [0, 5], first: 1000, last: 1047 },
    { name: 'the end: the last row holds 1,096…1,099 and the next slot', at: g({ scrollY: 320 }), rows: [8, 12], first: 1064, last: 1099 },
  ];
  for (const tt of tests) {
    assert.deepEqual(geometry.visibleRowRange(tt.at), tt.rows, tt.name);
    assert.equal(geometry.firstVisibleOffset(tt.at), tt.first, tt.name);
    assert.equal(geometry.lastVisibleOffset(tt.at), tt.last, tt.name);
  }
  assert.equal(geometry.lastVisibleOffset(g({ hw: 1000 })), null, 'nothing written');
});

test('columns fit beside the gutter, at least one', () => {
  assert.equal(geometry.columnCount(1100, 76, 128), 8);
  assert.equal(geometry.columnCount(100, 76, 128), 1);
});

test('scrolling an offset into view moves as little as it can', () => {
  assert.equal(geometry.scrollToShow(g({ scrollY: 80 }), 1020, undefined), null, 'row 2 is in view');
  assert.equal(geometry.scrollToShow(g({ scrollY: 80 }), 1000, undefined), 0, 'above: to the top');
  assert.equal(geometry.scrollToShow(g({ scrollY: 0 }), 1050, undefined), 6 * 40 + 40 - 200, 'below: to the bottom');
  assert.equal(geometry.scrollToShow(g({ scrollY: 0 }), 1020, 'top'), 80, 'asked for the top');
  assert.equal(geometry.centredScroll(g(), 1050), 240 - 80, 'row 6 in the middle');
});

test('the minimap spreads the slots over its height', () => {
  const s = geometry.minimapScale(1000, 1100, 404);
  assert.equal(s.y(1000), 0);
  assert.equal(s.y(1101), 404);
  assert.equal(s.offset(0), 1000);
  assert.equal(s.offset(202), 1050);
  assert.equal(s.offset(-10), 1000, 'above the strip: the log start');
  assert.equal(s.offset(10_000), 1100, 'below the strip: the high watermark');
});

test('the thumb covers the rows on screen, at least 24 px, at the bottom while following', () => {
  assert.equal(geometry.minimapThumb(g({ hw: 1010 }), 400, false), null, 'the whole log fits: no thumb');
  assert.equal(geometry.minimapThumb(g(), 0, false), null, 'no minimap');
  const top = geometry.minimapThumb(g(), 404, false);
  assert.equal(top.top, 0);
  assert.equal(top.height, 160, '40 of 101 slots of 404 px');
  const following = geometry.minimapThumb(g(), 404, true);
  assert.equal(following.top, 404 - following.height);
  const long = geometry.minimapThumb(g({ hw: 1_000_000, scrollY: 40 * 1000 }), 400, false);
  assert.equal(long.height, 24);
});

test('the cache pages a range of rows shows, each with its offsets on screen', () => {
  const pages = geometry.pageRange(g({ start: 190, hw: 450, cols: 10 }), 0, 4, 200);
  assert.deepEqual(pages, [{ page: 0, from: 190, to: 200 }, { page: 1, from: 200, to: 240 }]);
  assert.deepEqual(geometry.pageRange(g({ hw: 1000 }), 0, 0, 200), [], 'nothing written');
});

test('a resize keeps the anchor at the top and the selected offset in view', () => {
  // 8 to a row becomes 5 to a row, then 12: the anchor's row comes to the top.
  assert.equal(geometry.anchoredScroll(g({ cols: 5 }), 1050, null), 10 * 40, '1,050 starts row 10 of five');
  assert.equal(geometry.anchoredScroll(g({ cols: 12 }), 1050, null), 4 * 40, '1,050 is in row 4 of twelve (1,048…1,059)');
  assert.equal(geometry.anchoredScroll(g({ cols: 5 }), 1050, 1052), 10 * 40, 'the selection is in the anchor row');
  // Five rows of 40 px show: a selection eight rows on is brought in at the bottom.
  assert.equal(geometry.anchoredScroll(g({ cols: 5 }), 1000, 1040), (8 - 4) * 40, 'below: the least move that shows it, in the last whole row');
  assert.equal(geometry.anchoredScroll(g({ cols: 5, viewH: 220 }), 1000, 1040), (8 - 4) * 40, 'half a row more: still whole rows from the top');
  assert.equal(geometry.anchoredScroll(g({ cols: 5 }), 1050, 1000), 0, 'above: it comes to the top');
  assert.equal(geometry.anchoredScroll(g({ cols: 1, viewH: 30 }), 1050, 1052), 52 * 40, 'a row taller than the view: the selection at the top');
  assert.equal(geometry.anchoredScroll(g(), 1098, null), geometry.maxScroll(g()), 'near the end: the last rows');
  assert.equal(geometry.anchoredScroll(g({ cols: 5 }), 1050, undefined), 400, 'no selection');
});

test('a row is in view when any of it shows', () => {
  assert.equal(geometry.rowInView(g({ scrollY: 80 }), 1016), true, 'row 2 at the top');
  assert.equal(geometry.rowInView(g({ scrollY: 80 }), 1008), false, 'row 1 just above');
  assert.equal(geometry.rowInView(g({ scrollY: 70 }), 1008), true, 'a quarter of row 1');
  assert.equal(geometry.rowInView(g({ scrollY: 80 }), 1056), false, 'row 7 just below');
  assert.equal(geometry.rowInView(g({ scrollY: 90 }), 1056), true, 'row 7 begins at the bottom');
});

test('following, a one-row view ends on written offsets, not on the next slot alone', () => {
  // Lesson 2: 0…7 written, the next slot 8; four to a row: rows 0…3, 4…7, [8].
  const lesson = (viewH) => g({ start: 0, hw: 8, cols: 4, rowH: 226, viewH });
  assert.equal(geometry.followScroll(lesson(300)), 226, 'one row shows: 4…7, the next slot under it');
  assert.equal(geometry.followScroll(lesson(500)), geometry.maxScroll(lesson(500)), 'two rows show: 4…7 and 8');
  assert.equal(geometry.followScroll(g({ start: 0, hw: 7, cols: 4, rowH: 226, viewH: 300 })), 2 * 226 - 300, 'the next slot shares the last row: it ends the view, the row above fills the rest');
  assert.equal(geometry.followScroll(g({ start: 0, hw: 0, cols: 4, rowH: 226, viewH: 300 })), 0, 'an empty log');
  assert.equal(geometry.followScroll(g()), geometry.maxScroll(g()), 'several rows show: the end');
});

test('following, the latest rows fill the view and keep an open transaction\'s first record whole', () => {
  // kcat wrote 10 while 7…8 are open: 0…10 written, five to a row, rows
  // of 212 px in a view of 392: rows 5…9 and [10, next] fill it.
  const kcat = (lso) => ({ start: 0, hw: 11, cols: 5, rowH: 212, viewH: 392, scrollY: 0, lso });
  assert.equal(geometry.followScroll(kcat()), 3 * 212 - 392, 'not the newest row alone: the row above it fills the view');
  assert.equal(geometry.followScroll(kcat(), 7, 40), 3 * 212 - 392, 'the LSO\'s cell (7) whole under the cut flags');
  assert.equal(geometry.followScroll(kcat(), 7, 20), 212, 'a cut into the LSO\'s cell brings its row to the top');
  assert.equal(geometry.followScroll(kcat(), 11, 40), 3 * 212 - 392, 'no open transaction');
});
