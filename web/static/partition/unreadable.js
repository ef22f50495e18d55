// unreadable.js: what the page says when the partition on show cannot be
// read. Two ways to learn it: the live stream's `problem` message (the
// topic deleted elsewhere, READ revoked while watching: the server keeps
// the stream open and says why, and a `problem` without one once it can
// be read again), and a websocket the server refused before it opened
// (the browser learns no status, so app.js asks the log API why; a 403
// means reconnecting cannot help). Either way the sentence says what and
// why, in the viewer's language, and the cells still on show are marked
// stale. The elements and the sentence writer are given, so a node test
// drives it with plain objects.

/**
 * @typedef {object} NoticeElements
 * @property {HTMLElement} box the page's problem line (#problem)
 * @property {HTMLElement} frame the log's frame (#log-frame), marked data-stale
 * @property {HTMLElement} status the stream's status (#stream-status)
 */

/**
 * @typedef {object} NoticeWords
 * @property {(key: string, args?: Record<string, any>, tag?: string) => HTMLElement} span a re-translated element saying key
 * @property {(text: string) => HTMLElement} text an element saying text as it is (the server's English)
 * @property {(key: string) => boolean} has whether the catalogue knows key
 * @property {(node: HTMLElement, key: string, args?: Record<string, any>) => HTMLElement} tr sets node's text to key
 */

export class UnreadableNotice {
  /**
   * @param {NoticeElements} els
   * @param {NoticeWords} words
   */
  constructor(els, words) {
    this.els = els;
    this.words = words;
    /** @type {'problem'|'refused'|null} why the partition shows as unreadable, if it does */
    this.reason = null;
  }

  /**
   * problem shows the stream's problem (a narrated event: key, args and the
   * English text), or, given none, clears what an earlier one said.
   * @param {import('../types/wire.js').Event|null|undefined} problem
   * @param {{empty?: boolean}} [log] empty: the page holds no cell of the log (it never read it)
   */
  problem(problem, log = {}) {
    if (!problem) {
      if (this.reason !== 'problem') return;
      this.clear();
      this.words.tr(this.els.status, 'stream.open');
      this.els.status.dataset.state = 'open';
      return;
    }
    this.show('problem', this.sentence(problem.key, problem.args, problem.text), log.empty ? 'problem.nothingRead' : 'problem.stale');
    this.words.tr(this.els.status, 'stream.stale');
    this.els.status.dataset.state = 'stale';
  }

  /**
   * refused shows why the server refused to stream the partition (an API
   * error: its catalogue code and args, or its English sentence) and that
   * the page stopped trying.
   * @param {{message: string, code?: string, args?: Record<string, any>}} err
   */
  refused(err) {
    this.show('refused', this.sentence(err.code, err.args, err.message), 'problem.refused');
    this.words.tr(this.els.status, 'stream.refused');
    this.els.status.dataset.state = 'refused';
  }

  /** clear hides the notice and unmarks the cells. */
  clear() {
    const { box, frame } = this.els;
    this.reason = null;
    if (box.dataset.unreadable) {
      box.hidden = true;
      delete box.dataset.unreadable;
      box.replaceChildren();
    }
    delete frame.dataset.stale;
  }

  /**
   * show puts what and why, then what it means for the cells, in the box.
   * @param {'problem'|'refused'} reason
   * @param {HTMLElement} why
   * @param {string} thenKey
   */
  show(reason, why, thenKey) {
    const { box, frame } = this.els;
    this.reason = reason;
    delete box.dataset.i18n;
    delete box.dataset.i18nArgs;
    box.dataset.unreadable = reason;
    box.replaceChildren(why, ' ', this.words.span(thenKey));
    box.hidden = false;
    frame.dataset.stale = 'true';
  }

  /**
   * sentence is a catalogue sentence when the catalogue knows key, else
   * the server's English text.
   * @param {string|undefined} key
   * @param {Record<string, any>|undefined} args
   * @param {string} text
   */
  sentence(key, args, text) {
    if (key && this.words.has(key)) return this.words.span(key, args || {});
    return this.words.text(text);
  }
}
