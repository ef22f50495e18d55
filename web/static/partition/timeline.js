// timeline.js: the story beside the log. By default it tells what concerns
// the open partition, oldest first, in the order the log holds it
// (story.js's place: an event about a cell at that cell's offset, an event
// about no one cell — a crash, a fence, a lesson's check — at the log end
// offset when it was told, set by the server). A switch shows the whole
// cluster's recent story instead, by time. Clicking an entry marks the
// cells it is about. The list follows new entries unless the reader
// scrolled up, who then gets a "new entries ↓" button. An empty story
// says what the log already holds (from its map), or, on an empty log,
// what will come — in words for a student as well as for the teacher.

import { api, fmt } from '../common/api.js';
import { has, language, onLanguage, t, tr, trAttr } from '../common/i18n.js';
import { onProducers, producerLabel } from './producers.js';
import { compare, emptyStory, place, reach } from './story.js';

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
 * @param {import('../types/wire.js').Event} e
 * @param {boolean} [local]
 * @returns {string}
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

/**
 * offsetsOf lists the offsets an event is about: its own, and those its arguments name ("2, 4").
 * @param {import('../types/wire.js').Event} e
 * @returns {number[]}
 */
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

/** when writes a timestamp as the story does elsewhere: local date and time, 24-hour. */
function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * @typedef {{e: import('../types/wire.js').Event, id: string, pos: number, rank: number, time: number, seq: number, li: HTMLElement|null}} StoryItem
 *   an event kept, with its place in its partition's story
 */

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
    /** @type {Map<string, StoryItem>} every event kept, by identity */
    this.byKey = new Map();
    /** @type {StoryItem[]} the entries on show, in order */
    this.shown = [];
    this.past = null; // while replaying: the events recorded up to the step on show
    this.picked = null;
    this.logEnd = new Map(); // "topic/partition" -> log end told so far, for events at no offset
    this.following = true; // the list keeps its newest entry in view
    this.unseen = 0; // entries added while the reader was scrolled up
    this.pointers = null; // the open partition's, for the empty story
    this.map = null; // its map's state and totals (partmap.js), for the empty story
    this.before = null; // what the empty story last said the log held: {where, key, args}
    this.more = document.createElement('button');
    this.more.type = 'button';
    this.more.className = 'story-more';
    this.more.dataset.testid = 'story-more';
    this.more.hidden = true;
    this.more.addEventListener('click', () => {
      this.scrollToEnd();
      // The button hides: keep the keyboard's place on the story it showed.
      if (!this.list.hasAttribute('tabindex')) this.list.tabIndex = -1;
      this.list.focus({ preventScroll: true });
    });
    this.list.after(this.more);
    this.list.addEventListener('scroll', () => {
      // Scrolled up by hand: stop following; back at the end: follow again.
      if (this.nearEnd()) this.follow(true);
      else if (this.list.scrollTop < this.autoTop - 4) this.follow(false);
    });
    this.autoTop = 0;
    const refill = () => {
      for (const it of this.shown) this.fill(it);
      this.writeEmpty();
      const before = this.list.querySelector('.ev.before');
      if (before && this.before) this.writeBefore(before);
      this.writeMore();
    };
    onLanguage(refill);
    onProducers(refill); // a producer named after its sentence was written
    this.scopeButton?.addEventListener('click', () => this.setCluster(!this.cluster));
  }

  /** follow turns following the newest entry on or off. */
  follow(on) {
    this.following = on;
    if (on) this.unseen = 0;
    this.writeMore();
  }

  writeMore() {
    this.more.hidden = this.following || this.unseen === 0;
    if (!this.more.hidden) tr(this.more, 'timeline.more', { count: fmt(this.unseen) });
  }

  /**
   * setPointers takes the open partition's pointers; the first after
   * another partition opened (null) say what the log held when the page
   * opened it, which is what the empty story sums up.
   */
  setPointers(p) {
    if (!p) this.pointers = null;
    else if (!this.pointers) this.pointers = { logStartOffset: p.logStartOffset, highWatermark: p.highWatermark };
    this.writeEmpty();
  }

  /** setMap takes the partition map's state and totals as the minimap reads it (partmap.js). */
  setMap(m) {
    this.map = m;
    this.writeEmpty();
  }

  /** audience is who reads the story: a student, the teacher of a read-only server, or who may write. */
  audience() {
    const app = document.getElementById('app');
    if (app?.dataset.role === 'student') return 'student';
    if (document.querySelector('[data-testid="read-only"]')) return 'readOnly';
    return 'teacher';
  }

  /** writeEmpty fills the empty story's entry, if it shows one. */
  writeEmpty() {
    const li = this.list.querySelector('.ev.empty');
    if (!li) return;
    if (this.cluster) {
      tr(li, 'timeline.emptyCluster');
      return;
    }
    const said = emptyStory({ pointers: this.pointers, map: this.map, audience: this.audience(), fmt, when });
    const args = { ...(said.args || {}) };
    if (said.parts) args.what = said.parts.map((p) => t(p.key, p.args)).join(', ');
    tr(li, said.key, args);
    li.dataset.key = said.key;
    // What the log held before the page opened stays told above the
    // story once it has entries: as it is now, or uncounted while the map
    // is still read (the offsets written since would be counted in).
    const cur = this.opts.current();
    const where = `${cur.topic}/${cur.partition}`;
    if (this.before?.where === where && this.before.key.startsWith('timeline.beforeSummary')) return; // told once counted
    if (said.key.startsWith('timeline.before')) {
      const key = said.key === 'timeline.beforeCounting' ? 'timeline.beforeUncounted' : said.key;
      this.before = { where, key, args: said.args, parts: said.parts };
    } else {
      this.before = null;
    }
  }

  /** beforeEntry is the entry telling what the log held before the page opened, or null. */
  beforeEntry() {
    const cur = this.opts.current();
    if (this.cluster || this.past || !this.before || this.before.where !== `${cur.topic}/${cur.partition}`) return null;
    const li = document.createElement('li');
    li.className = 'ev before';
    li.dataset.testid = 'story-before';
    this.writeBefore(li);
    return li;
  }

  /** writeBefore fills the before-entry li in the current language. */
  writeBefore(li) {
    const b = this.before;
    const args = { ...(b.args || {}) };
    if (b.parts) args.what = b.parts.map((p) => t(p.key, p.args)).join(', ');
    tr(li, b.key, args);
    li.dataset.key = b.key;
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
    const { pos, rank } = place(e, this.logEnd.get(where));
    const end = reach(e);
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
    const before = items.length ? this.beforeEntry() : null;
    if (before) this.list.append(before);
    for (const it of items) {
      if (!it.li) it.li = this.build(it);
      this.list.append(it.li);
    }
    this.list.dataset.count = String(items.length);
    if (!items.length) {
      const li = document.createElement('li');
      li.className = 'ev empty';
      li.dataset.testid = 'story-empty';
      this.list.append(li);
      this.writeEmpty();
    }
    this.follow(true);
    this.scrollToEnd();
  }

  /** insert puts one new entry in its place, keeping the list in order. */
  insert(it) {
    const empty = this.list.querySelector('.ev.empty');
    if (empty) {
      const before = this.beforeEntry();
      if (before) empty.replaceWith(before);
      else empty.remove();
    }
    const cmp = this.order();
    let i = this.shown.length;
    while (i > 0 && cmp(this.shown[i - 1], it) > 0) i--;
    it.li = it.li || this.build(it);
    const before = this.shown[i];
    this.shown.splice(i, 0, it);
    if (before && before.li && before.li.parentNode === this.list) this.list.insertBefore(it.li, before.li);
    else this.list.append(it.li);
    this.list.dataset.count = String(this.shown.length);
    if (!this.following) {
      this.unseen++;
      this.writeMore();
    } else if (before) this.reveal(it.li); // placed above newer entries: show it where it sits
    else this.scrollToEnd();
  }

  nearEnd() {
    const l = this.list;
    return l.scrollHeight - l.scrollTop - l.clientHeight < 40;
  }

  /** scrollToEnd shows the newest entry. */
  scrollToEnd() {
    this.list.scrollTop = this.list.scrollHeight;
    this.autoTop = this.list.scrollTop;
    this.follow(true);
  }

  /** reveal scrolls the list just enough to show li. */
  reveal(li) {
    const l = this.list;
    const box = l.getBoundingClientRect();
    const r = li.getBoundingClientRect();
    if (r.top < box.top) l.scrollTop -= box.top - r.top;
    else if (r.bottom > box.bottom) l.scrollTop += r.bottom - box.bottom;
    this.autoTop = l.scrollTop;
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
        if (/** @type {Element} */ (ev.target).closest('a')) return;
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
