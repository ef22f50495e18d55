// shareact.js: the Act tab's share consumers (KIP-932), run in the
// dashboard's process through the API (POST /api/share/workers …): start
// one in a share group on the partition's topic, then per worker poll,
// acknowledge a record it holds (accept, release, reject), crash it
// (it hangs holding its records until their locks expire) or stop it.
// What each did is told in the story; the share lane under the log shows
// the records' states.

import { api, showErrorText } from '../common/api.js';
import { onLanguage, plain, t } from '../common/i18n.js';

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;

/** @typedef {{name: string, group: string, topic: string, crashed?: boolean, held: {partition: number, offset: number, deliveryCount: number, lockExpiresAt: string}[]}} Worker */

/**
 * setupShareAct wires the share consumers' panel.
 *
 * @param {{current: () => {topic: string, partition: number}}} app the page: the partition on show
 */
export function setupShareAct(app) {
  const form = /** @type {HTMLFormElement} */ ($('share-form'));
  const list = /** @type {HTMLElement} */ ($('share-workers'));
  const error = /** @type {HTMLElement} */ ($('share-error'));
  /** @type {Worker[]} */
  let workers = [];

  /** @param {unknown} err */
  const fail = (err) => {
    error.hidden = !err;
    if (err) showErrorText(error, err);
    else plain(error, '');
  };

  /**
   * act runs one request, then lists the workers again.
   * @param {string} method
   * @param {string} path
   * @param {object} [body]
   */
  async function act(method, path, body) {
    // One request at a time: a second poll would accept what the
    // first one fetched.
    if (list.dataset.busy === 'true') return;
    list.dataset.busy = 'true';
    fail(null);
    try {
      await api(method, path, body);
    } catch (err) {
      fail(err);
    } finally {
      await refresh();
      list.dataset.busy = 'false';
    }
  }

  async function refresh() {
    try {
      const out = await api('GET', '/api/share/workers');
      workers = out.workers || [];
    } catch (err) {
      fail(err);
    }
    draw();
  }

  function draw() {
    list.replaceChildren(...workers.map(row));
  }

  /** @param {Worker} w */
  function row(w) {
    const li = document.createElement('li');
    li.dataset.testid = 'share-worker';
    li.dataset.worker = w.name;
    const held = w.held.map((h) => h.offset).join(', ');
    const what = document.createElement('p');
    what.textContent = t(w.crashed ? 'share.crashedHolds' : 'share.holds', { worker: w.name, group: w.group, offsets: held || '—' });
    const path = `/api/share/workers/${enc(w.name)}`;
    const button = (key, testid, fn) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = t(key);
      b.dataset.testid = testid;
      b.addEventListener('click', fn);
      return b;
    };
    const actions = document.createElement('div');
    actions.className = 'actions';
    if (!w.crashed) {
      actions.append(button('share.poll', 'share-poll', () => act('POST', path + '/poll')));
      for (const h of w.held) {
        for (const ack of ['accept', 'release', 'reject']) {
          actions.append(button('share.' + ack, `share-${ack}-${h.offset}`, () => act('POST', path + '/ack', { partition: h.partition, offset: h.offset, ack })));
        }
      }
      actions.append(button('share.crash', 'share-crash', () => act('POST', path + '/crash')));
    }
    actions.append(button('share.stop', 'share-stop', () => act('DELETE', path)));
    li.append(what, actions);
    return li;
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const group = /** @type {HTMLInputElement} */ ($('share-group')).value.trim();
    const name = /** @type {HTMLInputElement} */ ($('share-name')).value.trim();
    const fromStart = /** @type {HTMLInputElement} */ ($('share-from-start')).checked;
    act('POST', '/api/share/workers', { name, group, topic: app.current().topic, fromStart });
  });
  onLanguage(draw);
  refresh();
}
