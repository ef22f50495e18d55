// producers.js: short names for the producers of the open partition. The
// embedded broker hands out 19-digit producer ids; a class reads "P1" and
// "P2" instead, numbered by where each producer first appears in the log
// (the full id stays in the details and in tooltips). It also remembers
// the epochs our own producers reported when they acted, so the details
// can say when the cells carry another one (transaction version 2 raises the
// epoch at every commit and abort).

import { apply, resolveArg } from '../common/i18n.js';

let topic = '';
let partition = -1;
/** @type {Map<string, {alias: string, first: number}>} producer id -> its alias and the first offset seen */
let known = new Map();
/** @type {Map<string, Set<number>>} producer id -> epochs our producers reported (any partition) */
const reported = new Map();
const listeners = [];

/** reset starts numbering afresh for another partition. */
export function resetProducers(t, p) {
  if (t === topic && p === partition) return;
  topic = t;
  partition = p;
  known = new Map();
}

/**
 * seeProducers numbers the producers of entries not numbered yet, in
 * offset order. A producer keeps its number once given, so a page that
 * loads older offsets later never renumbers what the class already read.
 */
export function seeProducers(entries) {
  const fresh = [];
  for (const e of entries) {
    if (!e || e.producerId === undefined || e.producerId === null || Number(e.producerId) < 0) continue;
    const id = String(e.producerId);
    if (!known.has(id) && !fresh.some((f) => f.id === id)) fresh.push({ id, first: e.offset });
    else {
      const f = fresh.find((x) => x.id === id);
      if (f && e.offset < f.first) f.first = e.offset;
    }
  }
  if (!fresh.length) return;
  fresh.sort((a, b) => a.first - b.first);
  for (const f of fresh) known.set(f.id, { alias: 'P' + (known.size + 1), first: f.first });
  apply(document); // sentences that name a producer show its new alias
  for (const fn of listeners) fn();
}

/** alias is a producer id's short name on the open partition, or '' when it wrote nothing there yet. */
export function alias(id) {
  if (id === undefined || id === null) return '';
  return known.get(String(id))?.alias ?? '';
}

/** producerLabel is how a sentence names a producer: its alias, else a shortened id. */
export function producerLabel(id) {
  return alias(id) || shortId(id);
}

/** shortId keeps a producer id readable: the last four digits of a long one. */
export function shortId(id) {
  const s = String(id);
  return s.length > 6 ? '…' + s.slice(-4) : s;
}

/** onProducers calls fn when new producers get an alias. */
export function onProducers(fn) {
  listeners.push(fn);
}

// Every sentence names a producer by its alias ({producer}); {id} stays the full id.
resolveArg('producer', producerLabel);

/** reportEpoch remembers the epoch a producer of ours said it had. */
export function reportEpoch(id, epoch) {
  if (id === undefined || id === null || Number(id) < 0 || typeof epoch !== 'number' || epoch < 0) return;
  const k = String(id);
  if (!reported.has(k)) reported.set(k, new Set());
  reported.get(k).add(epoch);
}

/** reportedEpochs lists the epochs our producers reported for id, ascending. */
export function reportedEpochs(id) {
  return [...(reported.get(String(id)) || [])].sort((a, b) => a - b);
}
