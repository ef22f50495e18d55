// board-model.js: what the teacher's scoreboard shows, decided from the
// results API alone and with no page around it (node --test runs it):
// the state of each cell, of each student's row, the done count, and the
// evidence of a check as catalogue sentences ({key, args}), so that the
// page says it in the viewer's language. A producer is named as on the
// student's partition page (P1 …, the evidence's producerAlias, from the
// same table), its id shortened beside it.

import { shortId } from '../partition/aliases.js';

// ACTIVITY are the evidence fields that only a student's own writes (or
// their group's commits) fill in; the log's end and the coordinator's
// epoch are there for everyone.
const ACTIVITY = ['offsets', 'producerId', 'producerEpoch', 'epochs', 'sequences', 'marker', 'received', 'committedOffset',
  'acknowledged', 'archived', 'unfinished', 'poison'];

/**
 * attempted reports whether the broker shows anything of the student's
 * attempt: a check passed, or a check's evidence holds records, a marker,
 * a producer or a group commit of theirs.
 * @param {import('../types/wire.js').ResultView} result
 */
export function attempted(result) {
  return (result.checks || []).some((c) => c.ok || ACTIVITY.some((f) => {
    const v = c.evidence?.[f];
    return v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
  }));
}

/**
 * STATES are a check's four states, each with one mark (a shape, not a
 * colour alone) and one word, the same on the teacher's board and the
 * student's checklist: not started (no exercise running), waiting
 * (nothing to judge yet), failed, done.
 * @type {Record<'none'|'pending'|'fail'|'ok', {mark: string, key: string}>}
 */
export const STATES = {
  none: { mark: '○', key: 'check.state.none' },
  pending: { mark: '…', key: 'check.state.pending' },
  fail: { mark: '✗', key: 'check.state.fail' },
  ok: { mark: '✓', key: 'check.state.ok' },
};

/**
 * cellState is a check's state: 'none' (○) while its exercise is not
 * running; 'ok' (✓) when it passed; 'pending' (…) when there is nothing
 * to judge yet — the grader has not looked at the student's log since the
 * start, or the broker shows nothing of their attempt; 'fail' (✗) when
 * what the broker holds is wrong.
 * @param {import('../types/wire.js').ResultView} result
 * @param {import('../types/wire.js').CheckView} check
 * @param {boolean} [running] whether the exercise runs (default true)
 * @returns {'none'|'pending'|'fail'|'ok'}
 */
export function cellState(result, check, running = true) {
  if (running === false) return 'none';
  if (check.ok) return 'ok';
  if (!result.checkedAt || !attempted(result)) return 'pending';
  return 'fail';
}

/**
 * rowState is a student's state: 'none' when not running, 'ok' when done, 'fail' when a check failed, else 'pending'.
 * @param {import('../types/wire.js').ResultView} result
 * @param {boolean} [running] whether the exercise runs (default true)
 * @returns {'none'|'pending'|'fail'|'ok'}
 */
export function rowState(result, running = true) {
  if (running === false) return 'none';
  if (result.done) return 'ok';
  return (result.checks || []).some((c) => cellState(result, c) === 'fail') ? 'fail' : 'pending';
}

/**
 * countDone is {done, total}: how many of the students finished.
 * @param {import('../types/wire.js').ResultView[]} students
 */
export function countDone(students) {
  return { done: students.filter((s) => s.done).length, total: students.length };
}

/**
 * listText writes offsets or numbers as a class reads them: runs of three
 * or more consecutive values as "0–4", the others comma separated.
 * @param {Array<number|string>} values
 */
export function listText(values) {
  const out = [];
  for (let i = 0; i < values.length;) {
    let j = i;
    while (j + 1 < values.length && Number(values[j + 1]) === Number(values[j]) + 1) j++;
    if (j - i >= 2) out.push(`${values[i]}–${values[j]}`);
    else for (let k = i; k <= j; k++) out.push(String(values[k]));
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * evidenceLines are the facts of a check's evidence, each a catalogue
 * sentence: {key, args}. Only the fields the check read are set.
 * @param {import('../types/wire.js').Evidence} ev the check's evidence
 */
export function evidenceLines(ev) {
  if (!ev) return [];
  const lines = [];
  if (ev.offsets?.length) lines.push({ key: 'board.ev.offsets', args: { offsets: listText(ev.offsets) } });
  if (ev.producerId !== undefined && ev.producerId !== null) {
    lines.push(ev.producerAlias
      ? { key: 'board.ev.producerAlias', args: { alias: ev.producerAlias, producerId: shortId(ev.producerId) } }
      : { key: 'board.ev.producerId', args: { producerId: String(ev.producerId) } });
  }
  if (ev.producerEpoch !== undefined && ev.producerEpoch !== null) lines.push({ key: 'board.ev.producerEpoch', args: { epoch: String(ev.producerEpoch) } });
  if (ev.epochs?.length) lines.push({ key: 'board.ev.epochs', args: { epochs: ev.epochs.join(', ') } });
  if (ev.sequences?.length) lines.push({ key: 'board.ev.sequences', args: { sequences: listText(ev.sequences) } });
  if (ev.marker) {
    const m = ev.marker;
    const args = { type: m.type, offset: String(m.offset), epoch: String(m.producerEpoch) };
    lines.push(m.producerAlias
      ? { key: 'board.ev.markerAlias', args: { ...args, alias: m.producerAlias } }
      : { key: 'board.ev.marker', args: { ...args, producerId: String(m.producerId) } });
  }
  if (ev.received) {
    lines.push(ev.received.length ? { key: 'board.ev.received', args: { offsets: listText(ev.received) } } : { key: 'board.ev.receivedNone' });
  }
  if (ev.committedOffset !== undefined && ev.committedOffset !== null) lines.push({ key: 'board.ev.committedOffset', args: { offset: String(ev.committedOffset) } });
  if (ev.logEnd !== undefined && ev.logEnd !== null) lines.push({ key: 'board.ev.logEnd', args: { offset: String(ev.logEnd) } });
  if (ev.coordinatorEpoch !== undefined && ev.coordinatorEpoch !== null) lines.push({ key: 'board.ev.coordinatorEpoch', args: { epoch: String(ev.coordinatorEpoch) } });
  if (ev.acknowledged?.length) lines.push({ key: 'board.ev.acknowledged', args: { offsets: listText(ev.acknowledged) } });
  if (ev.archived?.length) lines.push({ key: 'board.ev.archived', args: { offsets: listText(ev.archived) } });
  if (ev.unfinished?.length) lines.push({ key: 'board.ev.unfinished', args: { offsets: listText(ev.unfinished) } });
  if (ev.poison) {
    const p = ev.poison;
    const args = { offset: String(p.offset), count: String(p.deliveryCount) };
    lines.push(p.why
      ? { key: 'board.ev.poisonWhy', args: { ...args, whyKey: `lane.share.why.${p.why}` } }
      : { key: 'board.ev.poison', args: { ...args, state: p.state } });
  }
  return lines;
}

/**
 * topicOf is a student's topic for an exercise, from the exercise's names
 * as the teacher's GET /api/exercises/{id} gives them ("student-<name>-commit").
 * @param {Record<string, string>|null|undefined} names
 * @param {string} student
 */
export function topicOf(names, student) {
  return String(names?.topic || '<name>').split('<name>').join(student);
}
