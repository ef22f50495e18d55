// flaglines.js: where the pointer flags above the log's cells go, with no
// page around it (node --test web/static/test/flaglines.test.js). A flag
// stands at the left edge of the offset it points at; the flags of one
// offset line up to its right, over the slots up to the next offset that
// has flags of its own (or the row's end). When they do not fit that
// room they wrap into lines stacked upwards, so that no flag covers
// another or is cut by the log's edge: every row gets as many lines as
// the most crowded offset needs. A flag wider than its room alone takes
// its short label ("group 3" for a consumer group's long name), and so do
// an offset's flags that would wrap when their short labels fit fewer lines.

/**
 * flagLayout decides the flags' lines.
 * @param {Array<{offset: number, flags: Array<{id: string, label: string, short?: string}>}>} groups
 *   the flags of each offset that has some
 * @param {{start: number, cols: number, slotW: number, gap: number}} grid
 *   the log start, the columns, a slot's width and the room a flag keeps
 *   from the next (its padding, the gap)
 * @param {(label: string) => number} widthOf a label's width in pixels, padding included
 * @returns {{lines: number, room: Map<number, number>, short: Set<string>}} the lines every row gets,
 *   each offset's room in pixels, and the ids of the flags shown by their short label
 */
export function flagLayout(groups, grid, widthOf) {
  const { start, cols, slotW, gap } = grid;
  const room = new Map();
  const short = new Set();
  let lines = 1;
  const byRow = new Map();
  for (const g of groups) {
    if (!g.flags.length || g.offset < start || !cols) continue;
    const row = Math.floor((g.offset - start) / cols);
    if (!byRow.has(row)) byRow.set(row, []);
    byRow.get(row).push({ ...g, col: (g.offset - start) % cols });
  }
  for (const row of byRow.values()) {
    row.sort((a, b) => a.col - b.col);
    row.forEach((g, i) => {
      const next = i + 1 < row.length ? row[i + 1].col : cols;
      const width = Math.max(0, (next - g.col) * slotW - gap);
      room.set(g.offset, width);
      // Lines of the offset's flags, each flag by its short label where
      // shortAll says or where its own label alone is wider than the room.
      const count = (shortAll) => {
        const shortened = [];
        let used = 0;
        let n = 1;
        for (const f of g.flags) {
          let w = widthOf(f.label);
          if (f.short && (shortAll || w > width)) {
            shortened.push(f.id);
            w = widthOf(f.short);
          }
          if (used > 0 && used + gap + w > width) {
            n++;
            used = w;
          } else {
            used += (used > 0 ? gap : 0) + w;
          }
        }
        return { n, shortened };
      };
      let fit = count(false);
      // Flags that wrap take their short labels first (a group's whole
      // name stays in the pointer summary and the flag's title).
      if (fit.n > 1) {
        const shorter = count(true);
        if (shorter.n < fit.n) fit = shorter;
      }
      for (const id of fit.shortened) short.add(id);
      lines = Math.max(lines, fit.n);
    });
  }
  return { lines, room, short };
}
