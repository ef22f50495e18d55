// studentview.js: what the student's exercise page shows, worked out
// with no page around it (node --test web/static/test/studentview.test.js):
// whether a name may join, the checklist's rows from the exercise and the
// student's result, and the evidence of a check as catalogue sentences.
// student.js puts these on the page. A producer is named as on the
// student's partition page (P1 …, the evidence's producerAlias), its id
// shortened beside it.

import { shortId } from '../partition/aliases.js';
import { cellState } from './board-model.js';

// NAME_RULE is the class's rule for a name (internal/exercises, nameRule):
// a letter, then letters and digits, 2 to 16 in all.
export const NAME_RULE = /^[A-Za-z][A-Za-z0-9]{1,15}$/;

/**
 * nameProblem is why name cannot join, as a catalogue sentence
 * ({key, args}), or null when the API may be asked. The API checks
 * again (and alone knows whether the name is taken).
 * @param {any} name
 */
export function nameProblem(name) {
  const n = String(name ?? '').trim();
  if (n === '') return { key: 'student.join.empty' };
  if (!NAME_RULE.test(n)) return { key: 'error.studentName', args: { name: n } };
  return null;
}

/**
 * textIn is a {en, ko} text of the API in lang, else in English.
 * @param {Record<string, string>} text
 * @param {string} lang
 */
export function textIn(text, lang) {
  if (!text) return '';
  return text[lang] || text.en || '';
}

/**
 * spans writes offsets as runs: [0, 1, 2, 5] is "0–2, 5". Long lists
 * keep their first runs and say how many more follow ("…").
 * @param {Array<number|string>} offsets
 * @param {number} [maxRuns]
 */
export function spans(offsets, maxRuns = 6) {
  const runs = [];
  for (const raw of offsets ?? []) {
    const o = Number(raw);
    const last = runs[runs.length - 1];
    if (last && o === last[1] + 1) last[1] = o;
    else runs.push([o, o]);
  }
  const parts = runs.slice(0, maxRuns).map(([a, b]) => (a === b ? String(a) : `${a}–${b}`));
  if (runs.length > maxRuns) parts.push('…');
  return parts.join(', ');
}

/**
 * evidenceSentences is a check's evidence (the API's "evidence" object)
 * as catalogue sentences, in the order a student reads them: what was
 * looked at, who wrote it, the marker, what a consumer receives.
 * @param {import('../types/wire.js').Evidence|undefined} ev
 */
export function evidenceSentences(ev) {
  if (!ev) return [];
  const out = [];
  if (ev.offsets?.length) out.push({ key: 'student.evidence.offsets', args: { offsets: spans(ev.offsets) } });
  if (ev.producerId !== undefined) {
    const alias = ev.producerAlias;
    const args = alias ? { alias, producerId: shortId(ev.producerId) } : { producerId: String(ev.producerId) };
    if (ev.producerEpoch !== undefined) out.push({ key: alias ? 'student.evidence.producerAlias' : 'student.evidence.producer', args: { ...args, epoch: String(ev.producerEpoch) } });
    else out.push({ key: alias ? 'student.evidence.producerIdAlias' : 'student.evidence.producerId', args });
  }
  if (ev.epochs?.length) out.push({ key: 'student.evidence.epochs', args: { epochs: ev.epochs.join(', ') } });
  if (ev.sequences?.length) out.push({ key: 'student.evidence.sequences', args: { sequences: spans(ev.sequences) } });
  if (ev.marker) {
    const m = ev.marker;
    const args = { type: m.type, offset: String(m.offset), epoch: String(m.producerEpoch) };
    out.push(m.producerAlias
      ? { key: 'student.evidence.markerAlias', args: { ...args, alias: m.producerAlias } }
      : { key: 'student.evidence.marker', args: { ...args, producerId: String(m.producerId) } });
  }
  if (ev.received?.length) out.push({ key: 'student.evidence.received', args: { offsets: spans(ev.received) } });
  else if (ev.received && ev.received.length === 0) out.push({ key: 'student.evidence.receivedNone' });
  if (ev.committedOffset !== undefined) out.push({ key: 'student.evidence.committedOffset', args: { offset: String(ev.committedOffset) } });
  if (ev.logEnd !== undefined) out.push({ key: 'student.evidence.logEnd', args: { offset: String(ev.logEnd) } });
  if (ev.coordinatorEpoch !== undefined) out.push({ key: 'student.evidence.coordinatorEpoch', args: { epoch: String(ev.coordinatorEpoch) } });
  if (ev.acknowledged?.length) out.push({ key: 'student.evidence.acknowledged', args: { offsets: spans(ev.acknowledged) } });
  if (ev.archived?.length) out.push({ key: 'student.evidence.archived', args: { offsets: spans(ev.archived) } });
  if (ev.unfinished?.length) out.push({ key: 'student.evidence.unfinished', args: { offsets: spans(ev.unfinished) } });
  if (ev.poison) {
    const p = ev.poison;
    const args = { offset: String(p.offset), count: String(p.deliveryCount) };
    out.push(p.why
      ? { key: 'student.evidence.poisonWhy', args: { ...args, whyKey: `lane.share.why.${p.why}` } }
      : { key: 'student.evidence.poison', args: { ...args, state: p.state } });
  }
  return out;
}

// A check's states, marks and words are the teacher's board's: one word
// and one shape per state on both pages.
export { STATES } from './board-model.js';

/**
 * checklistRows are the checklist of an exercise (its summary's checks,
 * each {key, title}) for the student's result (the API's
 * students[0], or undefined before the first grading): one row per
 * check, in the exercise's order, with its state, its evidence and its
 * hint ({code, args, text}) when it fails.
 * @param {{key: string, title: any}[]|undefined} checks
 * @param {import('../types/wire.js').ResultView|undefined} result
 */
export function checklistRows(checks, result) {
  const byKey = new Map((result?.checks ?? []).map((c) => [c.key, c]));
  return (checks ?? []).map((c) => {
    const got = byKey.get(c.key);
    if (!got) return { key: c.key, title: c.title, state: 'pending', evidence: [], hint: null };
    // As the board decides it: before any attempt the check waits.
    const state = cellState(result, got);
    return {
      key: c.key,
      title: c.title,
      state,
      evidence: evidenceSentences(got.evidence),
      hint: state === 'fail' && (got.hintCode || got.hint) ? { code: got.hintCode || '', args: got.hintArgs || {}, text: got.hint || '' } : null,
    };
  });
}

/**
 * checklistSummary is the sentence above the checklist: waiting for the
 * first grading, every check passing, or how many pass.
 * @param {{state: string}[]} rows
 * @param {import('../types/wire.js').ResultView|undefined} result
 */
export function checklistSummary(rows, result) {
  if (!result?.checkedAt || rows.every((r) => r.state === 'pending')) return { key: 'student.checks.waiting' };
  if (result.done) return { key: 'student.checks.done' };
  const passed = rows.filter((r) => r.state === 'ok').length;
  return { key: 'student.checks.todo', args: { passed: String(passed), total: String(rows.length) } };
}

/**
 * logPath is the page of the student's partition, not following the teacher's stage.
 * @param {string} topic
 */
export function logPath(topic) {
  return `/topics/${encodeURIComponent(topic)}/partitions/0?follow=off`;
}
