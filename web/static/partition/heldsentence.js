// heldsentence.js: the words of "why is my read_committed consumer
// stuck?" — the catalogue key and arguments that name the open transaction
// holding a partition's LSO (GET …/lso), its age, its timeout and the
// records waiting behind it. Pure: no DOM, no catalogue (lsohold.js shows
// them; web/static/test/heldsentence.test.js pins them).

/**
 * durationArgs are the arguments that say ms as "2 min 10 s" (duration.s, .ms, .hm fill {duration}).
 * @param {number} ms
 */
export function durationArgs(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return { durationKey: 'duration.s', s };
  if (s < 3600) return { durationKey: 'duration.ms', m: Math.floor(s / 60), s: s % 60 };
  return { durationKey: 'duration.hm', h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) };
}

/** pad2 writes a number in two digits. */
const pad2 = (/** @type {number} */ n) => String(n).padStart(2, '0');

/**
 * sinceText is when a transaction opened, in local time: 17:32:10, or
 * 12-06 17:32 once it is a day old.
 * @param {number} ms milliseconds since the epoch
 * @param {number} ageMs how long ago
 */
export function sinceText(ms, ageMs) {
  const d = new Date(ms);
  if (ageMs >= 86_400_000) return `${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

/**
 * heldSentence is lso.heldWaiting's arguments for hold (an …/lso answer),
 * elapsedMs after it was read at readAt (milliseconds since the epoch);
 * fmt writes a number. Placeholders are filled by Key arguments (whoKey,
 * ageKey, waitingKey) or left empty.
 * @param {import('../types/wire.js').LSOHold} hold
 * @param {number} elapsedMs
 * @param {(n: number) => string} [fmt]
 * @param {number} [readAt]
 */
export function heldSentence(hold, elapsedMs, fmt = (/** @type {number} */ n) => String(n), readAt = Date.now() - elapsedMs) {
  const h = hold.holder;
  const args = { lso: fmt(hold.lastStableOffset), hw: fmt(hold.highWatermark), who: '', age: '' };
  if (h) {
    delete args.who;
    Object.assign(args, { whoKey: h.transactionalId ? 'lso.whoNamed' : 'lso.who', txid: h.transactionalId || '', producer: h.producerId, epoch: h.producerEpoch });
    if (h.ageMs > 0) {
      delete args.age;
      Object.assign(args, durationArgs(h.ageMs + Math.max(0, elapsedMs)), { since: sinceText(readAt - h.ageMs, h.ageMs) });
      if (h.timeoutMs > 0) Object.assign(args, { ageKey: 'lso.ageOf', timeout: fmt(Math.round(h.timeoutMs / 1000)) });
      else args.ageKey = 'lso.age';
    }
  }
  const n = hold.waiting;
  args.n = fmt(n);
  args.waitingKey = !hold.waitingComplete ? 'lso.waitingAtLeast' : n === 0 ? 'lso.waitingNone' : n === 1 ? 'lso.waitingOne' : 'lso.waitingMany';
  return { key: 'lso.heldWaiting', args };
}

/**
 * abortOf is how the banner aborts hold's transaction: through its
 * coordinator when a transactional id has it Ongoing (POST
 * /api/transactions/{id}/terminate), else as kafka-transactions.sh abort
 * does at its start offset; null when nothing holds the LSO.
 * @param {import('../types/wire.js').LSOHold|null} hold
 */
export function abortOf(hold) {
  const h = hold && hold.held ? hold.holder : null;
  if (!h) return null;
  if (h.transactionalId && h.state === 'Ongoing') {
    return {
      path: `/api/transactions/${encodeURIComponent(h.transactionalId)}/terminate`,
      label: 'lso.abortNamed', confirm: 'lso.confirmNamed', done: 'lso.abortedNamed',
      args: { txid: h.transactionalId, producer: h.producerId, start: h.startOffset },
    };
  }
  return {
    path: `/api/topics/${encodeURIComponent(hold.topic)}/partitions/${hold.partition}/transactions/${h.startOffset}/abort`,
    label: 'lso.abortHanging', confirm: 'lso.confirmHanging', done: 'lso.abortedHanging',
    args: { producer: h.producerId, start: h.startOffset },
  };
}
