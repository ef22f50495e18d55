// timeline.js: the narrated events beside the log, newest first, bounded.

import { has, language, onLanguage, t, tr, trAttr } from './i18n.js';

const MAX_EVENTS = 60;

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
 * without a key the catalogue knows shows its English text.
 */
export function narration(e) {
  if (!e.key || !has(e.key)) return e.text;
  const args = { ...(e.args || {}) };
  if (e.key === 'narration.lesson') return t(e.key, { text: args[language()] || args.en || e.text });
  for (const [k, v] of Object.entries(e.args || {})) {
    if (k.endsWith('Key') && has(v)) args[k.slice(0, -3)] = t(v);
  }
  return t(e.key, args);
}

export class Timeline {
  /**
   * @param {HTMLOListElement} list
   * @param {(offset: number) => void} onJump
   */
  constructor(list, onJump) {
    this.list = list;
    this.onJump = onJump;
    this.seen = new Set();
    // events maps each narrated paragraph to its event, to re-render it
    // on a language switch.
    this.events = new WeakMap();
    onLanguage(() => {
      for (const p of this.list.querySelectorAll('.ev > p')) {
        const e = this.events.get(p);
        if (e) p.textContent = narration(e);
      }
    });
  }

  /** reset replaces the timeline with a snapshot's recent events. */
  reset(events) {
    this.list.replaceChildren();
    this.seen.clear();
    for (const e of events || []) this.add(e);
    if (!this.list.children.length) {
      const li = document.createElement('li');
      li.className = 'ev empty';
      tr(li, 'timeline.empty');
      this.list.append(li);
    }
  }

  add(e) {
    const key = `${e.time}|${e.kind}|${e.text}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const empty = this.list.querySelector('.empty');
    if (empty) empty.remove();
    const li = document.createElement('li');
    li.className = 'ev';
    li.dataset.kind = e.kind;
    li.dataset.testid = 'event';
    const head = document.createElement('div');
    head.className = 'ev-head';
    const badge = document.createElement('span');
    badge.className = 'ev-kind';
    if (LABELS[e.kind]) tr(badge, LABELS[e.kind]);
    else badge.textContent = e.kind.toUpperCase();
    const time = document.createElement('time');
    const t = new Date(e.time);
    time.dateTime = e.time;
    time.textContent = isNaN(t) ? '' : t.toLocaleTimeString('en-GB');
    head.append(badge, time);
    if (typeof e.offset === 'number') {
      const jump = document.createElement('button');
      jump.type = 'button';
      jump.className = 'ev-jump';
      tr(jump, 'timeline.offset', { offset: e.offset });
      trAttr(jump, 'title', 'timeline.jump', { offset: e.offset });
      jump.addEventListener('click', () => this.onJump(e.offset));
      head.append(jump);
    }
    const text = document.createElement('p');
    text.textContent = narration(e);
    if (e.key) text.dataset.key = e.key;
    this.events.set(text, e);
    li.append(head, text);
    this.list.prepend(li);
    while (this.list.children.length > MAX_EVENTS) {
      this.list.lastElementChild.remove();
    }
    if (this.seen.size > 4 * MAX_EVENTS) this.seen = new Set([...this.seen].slice(-MAX_EVENTS));
  }
}
