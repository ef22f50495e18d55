// lanecounts.js: the lanes' "records received vs offsets spanned" counts
// under the log and the window's range, over the whole log when every
// offset of a short log is known, else over the rows on screen.

import { fmt } from '../common/api.js';
import { PAGE } from './cache.js';
import { laneReason } from './cells.js';
import { t } from '../common/i18n.js';

/**
 * @typedef {object} CountNode the little of an element a count writes
 * @property {string} textContent
 * @property {Record<string, any>} dataset
 */

/**
 * @typedef {object} CountsView what the counts read of the log view
 * @property {import('../types/wire.js').Pointers} pointers
 * @property {number} start the log start offset
 * @property {number} hw the high watermark
 * @property {number} cols offsets a row holds
 * @property {{get: (offset: number) => import('../types/wire.js').Entry|undefined, complete: (from: number, to: number) => boolean}} cache the entries known
 */

/** LaneCounts writes the two lanes' counts and the window's range. */
export class LaneCounts {
  /**
   * @param {CountNode} rc the read_committed lane's count
   * @param {CountNode} ru the read_uncommitted lane's count
   * @param {CountNode|null} [windowText] the window's range (absent on some pages)
   */
  constructor(rc, ru, windowText) {
    this.rc = rc;
    this.ru = ru;
    this.windowText = windowText;
  }

  /**
   * show writes the counts for rows r0..r1 on screen.
   * @param {CountsView} v
   * @param {number} r0
   * @param {number} r1
   */
  show(v, r0, r1) {
    const p = v.pointers;
    let from = v.start;
    let to = v.hw;
    let where = t('count.wholeLog');
    if (to - from > 2 * PAGE || !v.cache.complete(from, to)) {
      from = Math.max(v.start, v.start + r0 * v.cols);
      to = Math.min(v.hw, v.start + (r1 + 1) * v.cols);
      where = t('count.onScreen');
    }
    let rc = 0;
    let ru = 0;
    let known = 0;
    for (let o = from; o < to; o++) {
      const e = v.cache.get(o);
      if (!e) continue;
      known++;
      if (laneReason(e, 'rc', p) === '') rc++;
      if (laneReason(e, 'ru', p) === '') ru++;
    }
    const span = to - from;
    const range = span > 0 ? `${fmt(from)}–${fmt(to - 1)}, ${where}` : t('count.none');
    const put = (node, name, n) => {
      const key = `count.receives${n === 1 ? 'One' : 'Many'}${span === 1 ? 'One' : 'Many'}`; // English plurals
      node.textContent = t(key, { name, n: fmt(n), span: fmt(span) }) +
        (name === 'read_uncommitted' ? ` (${range})` : '') + (known < span ? t('count.loading') : '') + t('count.end');
      node.dataset.received = n;
      node.dataset.span = span;
    };
    put(this.rc, 'read_committed', rc);
    put(this.ru, 'read_uncommitted', ru);
    if (this.windowText) {
      const first = Math.max(v.start, v.start + r0 * v.cols);
      const last = Math.min(v.hw, v.start + (r1 + 1) * v.cols - 1);
      this.windowText.textContent = t('log.window', { first: fmt(first), last: fmt(last), start: fmt(v.start), hw: fmt(v.hw) });
    }
  }
}
