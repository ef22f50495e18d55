// loggeometry.js: the log view's arithmetic, with no page around it. The
// log is a grid of slots, one per offset from the log start to the high
// watermark (the slot after the last offset is where the next one lands),
// cols to a row, rowH pixels a row, of which viewH pixels show from
// scrollY on; the minimap spreads the same slots over its height. A
// geometry g is {start, hw, cols, rowH, viewH, scrollY} (a LogView is one).

/** @typedef {{start: number, hw: number, cols: number, rowH: number, viewH: number, scrollY: number}} Geometry */

/**
 * slotCount is how many slots the log has: its offsets and the next one's.
 * @param {Geometry} g
 */
export function slotCount(g) {
  return Math.max(1, g.hw - g.start + 1);
}

/**
 * rowCount is how many rows the slots take.
 * @param {Geometry} g
 */
export function rowCount(g) {
  return g.cols ? Math.ceil(slotCount(g) / g.cols) : 0;
}

/**
 * fullRows is how many whole rows fit in the view.
 * @param {Geometry} g
 */
export function fullRows(g) {
  return Math.max(1, Math.floor(g.viewH / g.rowH));
}

/**
 * maxScroll lets the last row end the view: the rows above it fill the
 * view (the top one cut when whole rows do not fit), never empty room
 * under the last row.
 * @param {Geometry} g
 */
export function maxScroll(g) {
  return Math.max(0, rowCount(g) * g.rowH - g.viewH);
}

/**
 * rowOf is the row holding offset.
 * @param {Geometry} g
 * @param {number} offset
 */
export function rowOf(g, offset) {
  return Math.floor((offset - g.start) / g.cols);
}

/**
 * visibleRowRange is the first and last row on screen, [r0, r1] (r1 < r0 when there are none).
 * @param {Geometry} g
 */
export function visibleRowRange(g) {
  const r0 = Math.max(0, Math.floor(g.scrollY / g.rowH));
  const r1 = Math.min(rowCount(g) - 1, Math.floor((g.scrollY + g.viewH - 1) / g.rowH));
  return [r0, r1];
}

/**
 * firstVisibleOffset is the offset of the first slot on screen.
 * @param {Geometry} g
 */
export function firstVisibleOffset(g) {
  return g.start + Math.floor(g.scrollY / g.rowH) * g.cols;
}

/**
 * lastVisibleOffset is the last written offset on screen, null when none.
 * @param {Geometry} g
 */
export function lastVisibleOffset(g) {
  const first = firstVisibleOffset(g);
  const r1 = Math.floor((g.scrollY + g.viewH - 1) / g.rowH);
  const last = Math.min(g.hw - 1, g.start + (r1 + 1) * g.cols - 1);
  return last >= first ? last : null;
}

/**
 * columnCount is how many slots of at least slotMin pixels fit beside the gutter.
 * @param {number} width
 * @param {number} gutter
 * @param {number} slotMin
 */
export function columnCount(width, gutter, slotMin) {
  return Math.max(1, Math.floor((width - gutter) / slotMin));
}

/**
 * clampScroll keeps a scroll position within the log.
 * @param {Geometry} g
 * @param {number} y
 */
export function clampScroll(g, y) {
  return Math.max(0, Math.min(maxScroll(g), y));
}

/**
 * scrollToShow is the scroll position that brings offset's row into view
 * (at the top with align 'top', else by the least movement); null when it
 * is in view already.
 * @param {Geometry} g
 * @param {number} offset
 * @param {string} [align]
 */
export function scrollToShow(g, offset, align) {
  const top = rowOf(g, offset) * g.rowH;
  if (align === 'top' || top < g.scrollY) return top;
  if (top + g.rowH > g.scrollY + g.viewH) return top + g.rowH - g.viewH;
  return null;
}

/**
 * rowInView says whether any of offset's row shows in the view.
 * @param {Geometry} g
 * @param {number} offset
 */
export function rowInView(g, offset) {
  const top = rowOf(g, offset) * g.rowH;
  return top + g.rowH > g.scrollY && top < g.scrollY + g.viewH;
}

/**
 * followScroll is where the view rests while it follows the end of the
 * log: the latest rows filling the view, the last one at the bottom
 * (maxScroll), unless the view holds a single row and the next offset's
 * slot starts a row of its own — then the row of the last written offset
 * at the top, so that a short view (a page zoomed to 150 %) shows cells
 * rather than the empty slot alone. With lso below the high watermark (an
 * open transaction holds it) the LSO's cell stays whole in view: its row
 * comes to the top when the latest rows would cut into its cell (cellTop,
 * where a row's cells start under its flags; 0 keeps the row whole).
 * @param {Geometry} g
 * @param {number|null} [lso]
 * @param {number} [cellTop]
 */
export function followScroll(g, lso, cellTop = 0) {
  let y = maxScroll(g);
  if (g.hw > g.start && fullRows(g) === 1) {
    const lastWritten = rowOf(g, g.hw - 1);
    if (lastWritten < rowOf(g, g.hw)) y = Math.min(y, lastWritten * g.rowH);
  }
  if (lso !== undefined && lso !== null && lso >= g.start && lso < g.hw) {
    const top = rowOf(g, lso) * g.rowH;
    if (y > top + cellTop) y = top;
  }
  return y;
}

/**
 * anchoredScroll is where the view goes after its geometry changed (a
 * resize, a zoom, the table toggle): the row of the anchor offset at at the
 * top, moved as little as it takes to show the offset sel (the selected
 * one, null for none) whole — in the last whole row when it is below, at
 * the top when above or when a row is taller than the view.
 * @param {Geometry} g
 * @param {number} at
 * @param {number|null} [sel]
 */
export function anchoredScroll(g, at, sel) {
  let y = rowOf(g, at) * g.rowH;
  if (sel !== null && sel !== undefined) {
    const top = rowOf(g, sel) * g.rowH;
    if (top < y || g.rowH >= g.viewH) y = top;
    else if (top + g.rowH > y + g.viewH) y = top - (fullRows(g) - 1) * g.rowH; // whole rows, sel's the last
  }
  return clampScroll(g, y);
}

/**
 * centredScroll is the scroll position that puts offset's row in the middle of the view.
 * @param {Geometry} g
 * @param {number} offset
 */
export function centredScroll(g, offset) {
  return rowOf(g, offset) * g.rowH - (g.viewH - g.rowH) / 2;
}

/**
 * minimapScale maps offsets to the minimap's height and back: the slots
 * from the log start to the high watermark (the next offset to be written)
 * spread evenly over h pixels. The log view's thumb and pointer marks and
 * the heat strip use it alike, so they line up.
 * @param {number} start
 * @param {number} hw
 * @param {number} h
 */
export function minimapScale(start, hw, h) {
  const span = Math.max(1, hw - start + 1);
  return {
    y: (offset) => ((offset - start) / span) * h,
    offset: (y) => Math.max(start, Math.min(hw, start + Math.floor((y / Math.max(1, h)) * span))),
  };
}

/**
 * minimapThumb is where the thumb sits on a minimap h pixels high: over
 * the rows on screen, at least 24 px, at the bottom while following the
 * end. null when the whole log fits the view (the thumb fills the minimap).
 * @param {Geometry} g
 * @param {number} h
 * @param {boolean} follow
 */
export function minimapThumb(g, h, follow) {
  if (!h || rowCount(g) * g.rowH <= g.viewH) return null;
  const s = minimapScale(g.start, g.hw, h);
  const first = firstVisibleOffset(g);
  const last = Math.min(g.hw, first + fullRows(g) * g.cols - 1);
  const height = Math.min(h, Math.max(24, s.y(last + 1) - s.y(first)));
  const top = follow ? h - height : Math.max(0, Math.min(h - height, s.y(first)));
  return { top, height };
}

/**
 * pageRange is the cache pages (of size page) the rows r0…r1 show, and
 * for each the offsets of it on screen: [{page, from, to}].
 * @param {Geometry} g
 * @param {number} r0
 * @param {number} r1
 * @param {number} page
 */
export function pageRange(g, r0, r1, page) {
  const first = Math.max(g.start, g.start + r0 * g.cols);
  const last = Math.min(g.hw - 1, g.start + (r1 + 1) * g.cols - 1);
  const out = [];
  if (last < first) return out;
  for (let p = Math.floor(first / page); p <= Math.floor(last / page); p++) {
    out.push({ page: p, from: Math.max(p * page, g.start, first), to: Math.min((p + 1) * page, g.hw, last + 1) });
  }
  return out;
}
