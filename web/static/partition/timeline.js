// timeline.js: the story beside the log. By default it tells what concerns
// the open partition, oldest first, in the order the log holds it: an
// event about a cell sits at that cell's offset, an event about no one cell
// (a crash, a fence, a lost ACK) at the log end offset when it happened
// (its "at", set by the server) — before the records written after it —
// and an event with neither (a lesson's narration) where the log ended
// when it was told. A marker is told after the records it resolves, a
// crash after the writes that preceded it. A switch shows the whole
// cluster's recent story instead, by time. Clicking an entry marks the
// cells it is about.

import { api } from '../common/api.js';
import { has, language, onLanguage, t, tr, trAttr } from '../common/i18n.js';
import { producerLabel } from './producers.js';

const MAX_EVENTS = 400;
const CLUSTER_LIMIT = 200;

// LABELS are the catalogue keys of the event badges (COMMIT and ABORT stay
// as Kafka spells them). The narration comes from the server as an English
// sentence (text) and, mostly, a catalogue key with arguments (key, args;
// see live.Event), shown in the current language by narration().
const LABELS = {
  write: 'timeline.write', commit: 'timeline.commit', abort: 'timeline.abort', crash: 'timeline.crash', fence: 'timeline.fence', info: 'timeline.info', warning: 'timeline.warning',
};

/**
 * narration is an event's sentence in the current language: the catalogue
 * sentence event.key with event.args filled in, where an arg named
 * "<name>Key" is itself a catalogue key, translated and filled in as
 * {<name>}. The lesson runner's events ("narration.lesson") carry the
 * sentence already written per language, as args.en and args.ko. An event
 * without a key the catalogue knows shows its English text. With local
 * true (the event is about the open partition) a producer is named by its
 * short alias (P1, P2 …).
 */
export function narration(e, local) {
  if (!e.key || !has(e.key)) return e.text;
  const args = { ...(e.args || {}) };
  if (e.key === 'narration.lesson') return t(e.key, { text: args[language()] || args.en || e.text });
  for (const [k, v] of Object.entries(e.args || {})) {
    if (k.endsWith('Key') && has(v)) args[k.slice(0, -3)] = t(v, e.args);
  }
  if (local && args.producer !== undefined) args.producer = producerLabel(args.producer);
  return t(e.key, args);
}

/** offsetsOf lists the offsets an event is about: its own, and those its arguments name ("2, 4"). */
export function offsetsOf(e) {
  const out = [];
  const add = (v) => {
    for (const part of String(v).split(/[ ,]+/)) if (/^\d+$/.test(part)) out.push(Number(part));
  };
  if (typeof e.offset === 'number') out.push(e.offset);
  for (const k of ['offsets', 'of']) if (e.args && e.args[k] !== undefined) add(e.args[k]);
  return [...new Set(out)];
}

const timeOf = (e) => {
  const ms = Date.parse(e.time);
  return Number.isNaN(ms) ? 0 : ms;
};

/** compare orders two entries of one partition's story (see the module comment). */
function compare(a, b) {
  return a.pos - b.pos || a.rank - b.rank || a.time - b.time || a.seq - b.seq;
}

export class Timeline {
  /**
   * @param {HTMLOListElement} list
   * @param {object} opts
   * @param {() => {topic: string, partition: number, hasTopic: boolean}} opts.current
   * @param {(item: {topic: string, partition: number, offsets: number[], primary: number|null}) => void} opts.onPick
   */
  constructor(list, opts) {
    this.list = list;
    this.opts = opts;
    this.scopeButton = document.getElementById('story-scope');
    this.cluster = false;
    this.seq = 0;
    /** @type {Map<string, object>} every event kept, by identity */
    this.byKey = new Map();
    /** @type {object[]} the entries on show, in order */
    this.shown = [];
    this.past = null; // while replaying: the events recorded up to the step on show
    this.picked = null;
    this.logEnd = new Map(); // "topic/partition" -> log end told so far, for events at no offset
    onLanguage(() => {
      for (const it of this.shown) this.fill(it);
    });
    this.scopeButton?.addEventListener('click', () => this.setCluster(!this.cluster));
  }

  /** reset replaces the events with a snapshot's (for a newly opened partition). */
  reset(events) {
    this.picked = null;
    const sorted = [...(events || [])].sort((a, b) => timeOf(a) - timeOf(b));
    for (const e of sorted) this.keep(e);
    this.render();
  }

  /** add tells one more event. */
  add(e) {
    const it = this.keep(e);
    if (!it || this.past) return;
    if (!this.concerns(it)) return;
    this.insert(it);
  }

  /** keep stores an event once and gives it its place in its partition's story. */
  keep(e) {
    const id = `${e.time}|${e.kind}|${e.text}`;
    if (this.byKey.has(id)) return null;
    const where = e.topic ? `${e.topic}/${e.partition}` : '';
    let pos;
    let rank = 0;
    if (typeof e.offset === 'number') {
      pos = e.offset;
      rank = 1;
    } else if (typeof e.at === 'number') {
      pos = e.at;
    } else {
      pos = this.logEnd.get(where) ?? -1;
    }
    const end = typeof e.offset === 'number' ? e.offset + 1 : typeof e.at === 'number' ? e.at : null;
    if (end !== null && where) this.logEnd.set(where, Math.max(this.logEnd.get(where) ?? 0, end));
    const it = { e, id, pos, rank, time: timeOf(e), seq: this.seq++, li: null };
    this.byKey.set(id, it);
    if (this.byKey.size > MAX_EVENTS) {
      const oldest = [...this.byKey.values()].sort((a, b) => a.time - b.time || a.seq - b.seq).slice(0, this.byKey.size - MAX_EVENTS);
      for (const o of oldest) this.byKey.delete(o.id);
    }
    return it;
  }

  /** concerns reports whether an entry belongs on the story as it is scoped now. */
  concerns(it) {
    if (this.cluster) return true;
    const cur = this.opts.current();
    return cur.hasTopic && it.e.topic === cur.topic && it.e.partition === cur.partition;
  }

  order() {
    return this.cluster ? (a, b) => a.time - b.time || a.seq - b.seq : compare;
  }

  /** setCluster switches between this partition's story and the whole cluster's. */
  async setCluster(on) {
    this.cluster = on;
    this.scopeButton?.setAttribute('aria-pressed', String(on));
    if (this.scopeButton) tr(this.scopeButton, on ? 'timeline.thisLog' : 'timeline.wholeCluster');
    this.list.dataset.scope = on ? 'cluster' : 'partition';
    if (on) {
      try {
        const { events } = await api('GET', `/api/events?limit=${CLUSTER_LIMIT}`);
        for (const e of (events || []).sort((a, b) => timeOf(a) - timeOf(b))) this.keep(e);
      } catch {
        // An older server has no /api/events: the story shows what this page heard.
      }
    }
    this.render();
  }

  /** showPast shows only the events a replay has reached (null: back to live). */
  showPast(events) {
    if (events === null) {
      this.past = null;
    } else {
      this.past = new Set();
      const sorted = [...events].sort((a, b) => timeOf(a) - timeOf(b));
      for (const e of sorted) {
        this.keep(e);
        this.past.add(`${e.time}|${e.kind}|${e.text}`);
      }
    }
    this.render();
  }

  /** render redraws the whole list in order. */
  render() {
    let items = [...this.byKey.values()].filter((it) => this.concerns(it));
    if (this.past) items = items.filter((it) => this.past.has(it.id));
    items.sort(this.order());
    this.shown = items;
    this.list.replaceChildren();
    for (const it of items) {
      if (!it.li) it.li = this.build(it);
      this.list.append(it.li);
    }
    this.list.dataset.count = String(items.length);
    if (!items.length) {
      const li = document.createElement('li');
      li.className = 'ev empty';
      tr(li, this.cluster ? 'timeline.emptyCluster' : 'timeline.empty');
      this.list.append(li);
    }
    this.scrollToEnd(true);
  }

  /** insert puts one new entry in its place, keeping the list in order. */
  insert(it) {
    this.list.querySelector('.ev.empty')?.remove();
    const cmp = this.order();
    let i = this.shown.length;
    while (i > 0 && cmp(this.shown[i - 1], it) > 0) i--;
    const atEnd = this.nearEnd();
    it.li = it.li || this.build(it);
    const before = this.shown[i];
    this.shown.splice(i, 0, it);
    if (before && before.li && before.li.parentNode === this.list) this.list.insertBefore(it.li, before.li);
    else this.list.append(it.li);
    this.list.dataset.count = String(this.shown.length);
    if (atEnd) this.scrollToEnd(false);
  }

  nearEnd() {
    const l = this.list;
    return l.scrollHeight - l.scrollTop - l.clientHeight < 40;
  }

  scrollToEnd(force) {
    if (force || this.nearEnd()) this.list.scrollTop = this.list.scrollHeight;
  }

  build(it) {
    const e = it.e;
    const li = document.createElement('li');
    li.className = 'ev';
    li.dataset.kind = e.kind;
    li.dataset.testid = 'event';
    if (typeof e.offset === 'number') li.dataset.offset = String(e.offset);
    if (typeof e.at === 'number') li.dataset.at = String(e.at);
    if (e.key) li.dataset.key = e.key;
    const offsets = offsetsOf(e);
    const head = document.createElement('div');
    head.className = 'ev-head';
    const badge = document.createElement('span');
    badge.className = 'ev-kind';
    if (LABELS[e.kind]) tr(badge, LABELS[e.kind]);
    else badge.textContent = String(e.kind).toUpperCase();
    head.append(badge);
    if (typeof e.offset === 'number' || typeof e.at === 'number') {
      const where = document.createElement('span');
      where.className = 'ev-where';
      if (typeof e.offset === 'number') tr(where, 'timeline.offset', { offset: e.offset });
      else tr(where, 'timeline.at', { at: e.at });
      head.append(where);
    }
    const time = document.createElement('time');
    const ts = new Date(e.time);
    time.dateTime = e.time;
    time.textContent = Number.isNaN(ts.getTime()) ? '' : ts.toLocaleTimeString('en-GB');
    head.append(time);
    if (offsets.length) {
      li.dataset.jump = offsets.join(',');
      const jump = document.createElement('button');
      jump.type = 'button';
      jump.className = 'ev-jump';
      jump.dataset.testid = 'event-jump';
      tr(jump, 'timeline.show');
      trAttr(jump, 'title', 'timeline.jump', { offset: offsets.join(', ') });
      head.append(jump);
      li.addEventListener('click', (ev) => {
        if (ev.target.closest('a')) return;
        this.pick(it, offsets);
      });
    }
    const text = document.createElement('p');
    if (e.key) text.dataset.key = e.key;
    li.append(head, text);
    it.text = text;
    it.where = head;
    this.fill(it);
    return li;
  }

  /** fill writes an entry's sentence in the current language. */
  fill(it) {
    const e = it.e;
    const cur = this.opts.current();
    const local = cur.hasTopic && e.topic === cur.topic && e.partition === cur.partition;
    let s = narration(e, local);
    if (this.cluster && e.topic && !local) s = `${e.topic}-${e.partition}: ${s}`;
    if (it.text) {
      it.text.textContent = s;
      if (local && e.args && e.args.producer !== undefined) it.text.title = t('timeline.producerTitle', { alias: producerLabel(e.args.producer), pid: e.args.producer });
    }
  }

  /** pick marks an entry's cells on the log. */
  pick(it, offsets) {
    if (this.picked && this.picked.li) this.picked.li.removeAttribute('aria-current');
    this.picked = it;
    it.li.setAttribute('aria-current', 'true');
    const e = it.e;
    this.opts.onPick({ topic: e.topic, partition: e.partition, offsets, primary: typeof e.offset === 'number' ? e.offset : offsets[0] ?? null });
  }

  /** unpick forgets the chosen entry (another partition opened). */
  unpick() {
    if (this.picked && this.picked.li) this.picked.li.removeAttribute('aria-current');
    this.picked = null;
  }
}
