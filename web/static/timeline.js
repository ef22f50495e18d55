// timeline.js: the narrated events beside the log, newest first, bounded.

const MAX_EVENTS = 60;

const LABELS = {
  write: 'WRITE', commit: 'COMMIT', abort: 'ABORT', crash: 'CRASH', fence: 'FENCE', info: 'INFO', warning: 'WARNING',
};

export class Timeline {
  /**
   * @param {HTMLOListElement} list
   * @param {(offset: number) => void} onJump
   */
  constructor(list, onJump) {
    this.list = list;
    this.onJump = onJump;
    this.seen = new Set();
  }

  /** reset replaces the timeline with a snapshot's recent events. */
  reset(events) {
    this.list.replaceChildren();
    this.seen.clear();
    for (const e of events || []) this.add(e);
    if (!this.list.children.length) {
      const li = document.createElement('li');
      li.className = 'ev empty';
      li.textContent = 'Nothing has happened on this partition yet. Write something, or run the processor.';
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
    badge.textContent = LABELS[e.kind] || e.kind.toUpperCase();
    const time = document.createElement('time');
    const t = new Date(e.time);
    time.dateTime = e.time;
    time.textContent = isNaN(t) ? '' : t.toLocaleTimeString('en-GB');
    head.append(badge, time);
    if (typeof e.offset === 'number') {
      const jump = document.createElement('button');
      jump.type = 'button';
      jump.className = 'ev-jump';
      jump.textContent = `offset ${e.offset}`;
      jump.title = `Show offset ${e.offset} in the log`;
      jump.addEventListener('click', () => this.onJump(e.offset));
      head.append(jump);
    }
    const text = document.createElement('p');
    text.textContent = e.text;
    li.append(head, text);
    this.list.prepend(li);
    while (this.list.children.length > MAX_EVENTS) {
      this.list.lastElementChild.remove();
    }
    if (this.seen.size > 4 * MAX_EVENTS) this.seen = new Set([...this.seen].slice(-MAX_EVENTS));
  }
}
