// lsohold.js: the LSO sentence above the log, when an open transaction
// holds the LSO below the HW, answers "why is my read_committed consumer
// stuck?" by name: GET …/lso says which transaction (transactional id,
// producer, age, timeout) and how many records wait behind it, and the
// teacher on a writable cluster gets the abort (heldsentence.js's
// abortOf), confirmed in place. The sentence itself is re-read whenever
// the LSO or the HW moves; after an abort the live stream's pointers
// turn it back to "LSO = HW".

import { api, apiPartition, fmt, showErrorText } from '../common/api.js';
import { t, tr } from '../common/i18n.js';
import { abortOf, heldSentence } from './heldsentence.js';

const MIN_FETCH_GAP_MS = 1000;
const TICK_MS = 1000;

const el = (tag, cls, testid) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (testid) e.dataset.testid = testid;
  return e;
};

/** HeldBanner fills the LSO sentence's node (#lso-why) while the LSO is held. */
export class HeldBanner {
  /**
   * @param {HTMLElement} node the sentence's paragraph
   * @param {{canWrite: boolean}} opts canWrite: offer the abort
   */
  constructor(node, opts) {
    this.node = node;
    this.canWrite = opts.canWrite;
    this.text = el('span', 'lso-text', 'lso-why-text');
    this.actions = el('span', 'lso-actions', 'lso-actions');
    this.hold = null; // the last …/lso answer, with fetchedAt
    this.want = ''; // the topic/partition/LSO/HW on show
    this.fetching = false;
    this.lastFetch = 0;
    this.timer = 0;
    this.confirming = false;
    this.done = null; // {key, args, where} of the last abort, said until the next hold
    // The age ticks quietly: the sentence's live region speaks when the
    // hold changes, not every second.
    setInterval(() => {
      if (!document.hidden && this.shownRich()) this.writeText(true);
    }, TICK_MS);
  }

  /**
   * show writes the sentence for pointers p of topic/partition: the named
   * hold when the last answer is about this LSO, else fallback() (the
   * sentence without names) while the answer is read. A stable p (LSO =
   * HW) writes fallback() and clears the actions.
   */
  show(topic, partition, p, fallback) {
    const where = `${topic}/${partition}`;
    this.topic = topic;
    this.partition = partition;
    this.pointers = p;
    this.fallback = fallback;
    if (!this.node.contains(this.text)) this.node.replaceChildren(this.text, this.actions);
    if (p.lastStableOffset >= p.highWatermark) {
      this.want = '';
      this.confirming = false;
      this.text.textContent = fallback();
      this.actions.replaceChildren();
      if (this.done && this.done.where === where) this.actions.append(tr(el('span', 'lso-done', 'lso-abort-done'), this.done.key, this.done.args));
      return;
    }
    this.want = `${where}/${p.lastStableOffset}/${p.highWatermark}`;
    if (this.done && this.done.where !== where) this.done = null;
    this.writeText();
    if (!this.confirming) this.writeActions();
    this.fetchSoon();
  }

  /** matches reports whether the last answer is about the LSO on show. */
  matches() {
    const h = this.hold;
    const p = this.pointers;
    return !!(h && p && h.held && h.topic === this.topic && h.partition === this.partition && h.lastStableOffset === p.lastStableOffset);
  }

  shownRich() {
    return this.want !== '' && this.matches();
  }

  /** writeText writes the sentence; quiet keeps screen readers from saying it again (the age's tick). */
  writeText(quiet = false) {
    this.text.setAttribute('aria-live', quiet ? 'off' : 'polite');
    if (!this.matches()) {
      this.text.textContent = this.fallback();
      delete this.node.dataset.holder;
      return;
    }
    const { key, args } = heldSentence(this.hold, Date.now() - this.hold.fetchedAt, fmt, this.hold.fetchedAt);
    this.text.textContent = t(key, args);
    this.node.dataset.holder = this.hold.holder?.transactionalId || '';
    this.node.dataset.waiting = this.hold.waiting;
  }

  writeActions() {
    this.actions.replaceChildren();
    const link = el('a', 'lso-link', 'lso-transactions');
    link.href = `/transactions?topic=${encodeURIComponent(this.topic)}`;
    tr(link, 'lso.toTransactions');
    this.actions.append(link);
    const abort = this.matches() && this.canWrite ? abortOf(this.hold) : null;
    if (!abort) return;
    const button = el('button', 'lso-abort danger', 'lso-abort');
    button.type = 'button';
    tr(button, abort.label, abort.args);
    button.addEventListener('click', () => this.confirm(abort));
    this.actions.append(' ', button);
  }

  /** confirm asks in place before the abort; Cancel (or Escape) puts the button back. */
  confirm(abort) {
    this.confirming = true;
    const box = el('span', 'lso-confirm', 'lso-confirm');
    box.setAttribute('role', 'group');
    const yes = el('button', 'danger', 'lso-abort-confirm');
    yes.type = 'button';
    tr(yes, 'lso.confirmYes');
    const no = el('button', '', 'lso-abort-cancel');
    no.type = 'button';
    tr(no, 'common.cancel');
    const error = el('span', 'error', 'lso-abort-error');
    error.setAttribute('role', 'alert');
    box.append(tr(el('span', 'lso-confirm-text'), abort.confirm, abort.args), ' ', yes, ' ', no, ' ', error);
    const back = () => {
      this.confirming = false;
      this.writeActions();
      this.actions.querySelector('[data-testid="lso-abort"]')?.focus();
    };
    no.addEventListener('click', back);
    box.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') back();
    });
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      try {
        await api('POST', abort.path);
        this.done = { key: abort.done, args: abort.args, where: `${this.topic}/${this.partition}` };
        this.confirming = false;
        this.hold = null;
        this.actions.replaceChildren(tr(el('span', 'lso-done', 'lso-abort-done'), abort.done, abort.args));
        this.lastFetch = 0;
        this.fetchedFor = '';
        this.fetchSoon();
      } catch (err) {
        yes.disabled = false;
        showErrorText(error, err);
      }
    });
    this.actions.replaceChildren(box);
    yes.focus();
  }

  /** fetchSoon reads …/lso for the LSO on show, at most once a second. */
  fetchSoon() {
    if (this.fetching || this.timer || !this.want || this.fetchedFor === this.want) return;
    const wait = Math.max(0, this.lastFetch + MIN_FETCH_GAP_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.fetch();
    }, wait);
  }

  async fetch() {
    const want = this.want;
    if (!want) return;
    this.fetching = true;
    this.lastFetch = Date.now();
    try {
      const hold = await api('GET', `${apiPartition(this.topic, this.partition)}/lso`);
      hold.fetchedAt = Date.now();
      this.fetchedFor = want;
      if (`${hold.topic}/${hold.partition}` === `${this.topic}/${this.partition}`) this.hold = hold;
    } catch {
      this.fetchedFor = want; // the sentence without names stays; the next move of a pointer asks again
    } finally {
      this.fetching = false;
    }
    if (!this.want) return;
    this.writeText();
    if (!this.confirming) this.writeActions();
    if (this.want !== want) this.fetchSoon();
  }
}
