// producers.js: the open partition's producer names on the page (P1, P2 …,
// aliases.js's table, filled from the server's live feed), and the epochs
// our own producers reported when they acted, so the details can say when
// the cells carry another one (transaction version 2 raises the epoch at
// every commit and abort). Every sentence that names a producer goes
// through producerLabel, and re-renders when a name arrives.

import { apply, resolveArg } from '../common/i18n.js';
import { AliasTable, shortId } from './aliases.js';

export { shortId };

let topic = '';
let partition = -1;
const table = new AliasTable();
/** @type {Map<string, Set<number>>} producer id -> epochs our producers reported (any partition) */
const reported = new Map();
const listeners = [];

function changed() {
  apply(document); // sentences that name a producer show its new alias
  for (const fn of listeners) fn();
}

/**
 * resetProducers forgets the names when another partition opens.
 * @param {string} t
 * @param {number} p
 */
export function resetProducers(t, p) {
  if (t === topic && p === partition) return;
  topic = t;
  partition = p;
  table.clear();
}

/**
 * setProducers takes the server's table of names for the open partition (a snapshot's or a "producers" message's).
 * @param {string} t
 * @param {number} p
 * @param {import('../types/wire.js').ProducerAlias[]|undefined} list
 */
export function setProducers(t, p, list) {
  if (t !== topic || p !== partition) return;
  if (table.set(list)) changed();
}

/**
 * alias is a producer id's short name on the open partition, or '' when it has none (yet).
 * @param {number|string} id
 */
export function alias(id) {
  return table.alias(id);
}

/**
 * producerLabel is how a sentence names a producer: its alias, else a shortened id.
 * @param {number|string} id
 */
export function producerLabel(id) {
  return table.label(id);
}

/**
 * onProducers calls fn when a producer gets a name.
 * @param {() => void} fn
 */
export function onProducers(fn) {
  listeners.push(fn);
}

// Every sentence names a producer by its alias ({producer}); {id} stays the full id.
resolveArg('producer', producerLabel);

/**
 * reportEpoch remembers the epoch a producer of ours said it had, and that it is the one the page acted with last.
 * @param {number|string} id
 * @param {number} epoch
 */
export function reportEpoch(id, epoch) {
  if (id === undefined || id === null || Number(id) < 0) return;
  const before = table.alias(id);
  table.noteOurs(id);
  if (table.alias(id) !== before) changed();
  if (typeof epoch !== 'number' || epoch < 0) return;
  const k = String(id);
  if (!reported.has(k)) reported.set(k, new Set());
  reported.get(k).add(epoch);
}

/**
 * reportedEpochs lists the epochs our producers reported for id, ascending.
 * @param {number|string} id
 */
export function reportedEpochs(id) {
  return [...(reported.get(String(id)) || [])].sort((a, b) => a - b);
}
