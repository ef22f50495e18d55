// story.js: the story's rules, with no page around it — where an event
// sits in a partition's story, and what the story says when it has
// nothing to tell. timeline.js draws from it.
//
// Place: an event about a cell sits at that cell's offset (rank 1, after
// the events placed at that position); an event about no one cell — a
// crash, a fence, a lesson's narration or checks — at "at", the log end
// offset when it was told (set by the server: a lesson's check comes
// after every record and marker its step wrote, whenever their cells
// reach the page); an event with neither at the log end this page has
// heard of so far.

/**
 * place is an event's position in its partition's story: {pos, rank}.
 * @param {import('../types/wire.js').Event} e
 * @param {number|undefined} heardEnd the log end told so far
 * @returns {{pos: number, rank: number}}
 */
export function place(e, heardEnd) {
  if (typeof e.offset === 'number') return { pos: e.offset, rank: 1 };
  if (typeof e.at === 'number') return { pos: e.at, rank: 0 };
  return { pos: heardEnd ?? -1, rank: 0 };
}

/**
 * reach is the log end an event shows the page has reached, or null.
 * @param {import('../types/wire.js').Event} e
 * @returns {number|null}
 */
export function reach(e) {
  if (typeof e.offset === 'number') return e.offset + 1;
  if (typeof e.at === 'number') return e.at;
  return null;
}

/**
 * compare orders two placed entries of one partition's story.
 * @param {{pos: number, rank: number, time: number, seq: number}} a
 * @param {{pos: number, rank: number, time: number, seq: number}} b
 */
export function compare(a, b) {
  return a.pos - b.pos || a.rank - b.rank || a.time - b.time || a.seq - b.seq;
}

/**
 * emptyStory is what an empty story says, as {key, args}: with offsets
 * already in the log (written while nobody watched, by another client or
 * before the server started), a summary of them from the partition's map
 * (counts, first and last write) once the map is read, "counting" while
 * it is read; on an empty log, an invitation to write for who may, and
 * for a student or a read-only server that the story waits.
 *
 * @param {object} s
 * @param {{logStartOffset: number, highWatermark: number}|null} s.pointers the log when the page opened it
 * @param {{state: string, totals: Record<string, number>, firstWrite?: string, lastWrite?: string, from: number, to: number}|null} s.map
 * @param {'teacher'|'student'|'readOnly'} s.audience
 * @param {(n: number) => string} s.fmt a count as the page writes it
 * @param {(iso: string) => string} s.when a timestamp as the page writes it
 * @returns {{key: string, args?: Record<string, string>, parts?: {key: string, args: Record<string, string>}[]}}
 */
export function emptyStory({ pointers, map, audience, fmt, when }) {
  const offsets = pointers ? pointers.highWatermark - pointers.logStartOffset : 0;
  if (offsets <= 0) {
    if (audience === 'student') return { key: 'timeline.emptyStudent' };
    if (audience === 'readOnly') return { key: 'timeline.emptyReadOnly' };
    return { key: 'timeline.empty' };
  }
  const count = { count: fmt(offsets) };
  const offsetsKey = offsets === 1 ? 'timeline.before.offset' : 'timeline.before.offsets';
  // Counted when the map covers exactly those offsets: one that went on
  // past them counts what was written since too.
  const complete = map && map.state === 'done' && map.from <= pointers.logStartOffset && map.to === pointers.highWatermark;
  if (!complete) {
    const counting = map && (map.state === 'mapping' || map.state === 'idle');
    return { key: counting ? 'timeline.beforeCounting' : 'timeline.beforeUncounted', args: { offsetsKey, ...count } };
  }
  const t = map.totals;
  const records = t.plain + t.committed + t.aborted + t.open;
  const parts = [];
  const part = (n, one, many) => {
    if (n > 0) parts.push({ key: n === 1 ? one : many, args: { count: fmt(n) } });
  };
  part(records, 'timeline.before.record', 'timeline.before.records');
  part(t.commitMarkers, 'timeline.before.commit', 'timeline.before.commits');
  part(t.abortMarkers, 'timeline.before.abort', 'timeline.before.aborts');
  part(t.gaps, 'timeline.before.gap', 'timeline.before.gaps');
  const args = { offsetsKey, ...count, first: map.firstWrite ? when(map.firstWrite) : '', last: map.lastWrite ? when(map.lastWrite) : '' };
  return { key: map.firstWrite ? 'timeline.beforeSummary' : 'timeline.beforeSummaryUndated', args, parts };
}
