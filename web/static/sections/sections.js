// sections.js: the script of the pages of the Topics, Groups and
// Transactions sections (topics, a topic, groups, a group,
// transactions). The server renders every table; this module
// switches the language, runs the confirmations of the teacher's two
// writes — delete a topic (type its name), abort a transaction — and, on
// a topic's page, starts the live strips (strips.js) and the search of
// every partition (topicsearch.js). A write's outcome
// is said in the page's status line, also after the reload that shows
// the cluster as it is now.

import { api, apiPartition, showErrorText } from '../common/api.js';
import { apply, setupI18n, tr } from '../common/i18n.js';
import { watchBudget } from '../common/budget.js';
import { setupStrips } from './strips.js';
import { setupTopicSearch } from './topicsearch.js';

await setupI18n();
watchBudget();

const $ = (id) => document.getElementById(id);
const main = $('app');
const pageStatus = $('page-status');
const FLASH_KEY = 'offsetlab.explorer.flash';

/**
 * flash says a sentence after the next load (sessionStorage), at the top
 * of the page: the reload starts there, where the status line is.
 */
function flash(key, args) {
  history.scrollRestoration = 'manual';
  try {
    sessionStorage.setItem(FLASH_KEY, JSON.stringify({ key, args }));
  } catch {
    // storage disabled: the reload simply says nothing
  }
}

function showFlash() {
  let f = null;
  try {
    f = JSON.parse(sessionStorage.getItem(FLASH_KEY) || 'null');
    sessionStorage.removeItem(FLASH_KEY);
  } catch {
    f = null;
  }
  if (f && typeof f.key === 'string') tr(pageStatus, f.key, f.args);
}

/**
 * confirmDialog wires a <dialog> whose form confirms a write: open(opener,
 * fill) shows it, run(form) does the write when the form is submitted
 * (throwing to keep the dialog open with the error shown in errorNode).
 */
function confirmDialog(dialog, errorNode, run) {
  const form = dialog.querySelector('form');
  const submit = form.querySelector('button[type="submit"]');
  let opener = null;
  for (const b of dialog.querySelectorAll('[data-close]')) b.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => opener?.focus());
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    errorNode.hidden = true;
    submit.disabled = true;
    try {
      await run();
    } catch (err) {
      errorNode.hidden = false;
      showErrorText(errorNode, err);
    } finally {
      submit.disabled = false;
    }
  });
  return (from) => {
    opener = from;
    errorNode.hidden = true;
    dialog.showModal();
    (form.querySelector('input') || submit).focus();
  };
}

// ---- delete a topic (topics page, the teacher's) ------------------------

const deleteDialog = $('delete-dialog');
if (deleteDialog) {
  const input = $('delete-confirm');
  const error = $('delete-error');
  let topic = '';
  const open = confirmDialog(deleteDialog, error, async () => {
    if (input.value !== topic) {
      throw Object.assign(new Error('mismatch'), { code: 'deleteDialog.mismatch', args: { topic } });
    }
    await api('DELETE', `/api/topics/${encodeURIComponent(topic)}?confirm=${encodeURIComponent(input.value)}`);
    flash('topicsPage.deleted', { topic });
    deleteDialog.close();
    location.reload();
  });
  for (const b of document.querySelectorAll('[data-testid="delete-topic"]')) {
    b.addEventListener('click', () => {
      topic = b.dataset.topic;
      tr($('delete-text'), 'deleteDialog.text', { topic });
      input.value = '';
      open(b);
    });
  }
}

// ---- abort a transaction (transactions page, the teacher's) -------------
// A transaction a coordinator has Ongoing under a transactional id is
// aborted through the coordinator (…/terminate, fencing its producer, so
// that no list says Ongoing after it); any other open one at its start
// offset, as kafka-transactions.sh abort does.

const abortDialog = $('abort-dialog');
let target = null;
let openAbort = null;
if (abortDialog) {
  openAbort = confirmDialog(abortDialog, $('abort-error'), async () => {
    const { topic, partition, start, producer, txid } = target;
    if (txid) {
      const ended = await api('POST', `/api/transactions/${encodeURIComponent(txid)}/terminate`);
      tr(pageStatus, 'txnPage.terminated', { txid, state: ended.state });
    } else {
      await api('POST', `${apiPartition(topic, partition)}/transactions/${encodeURIComponent(start)}/abort`);
      tr(pageStatus, 'txnPage.aborted', { producer, start, topic, partition });
    }
    abortDialog.close();
    await refreshCards();
  });
}

/** wireAbortButtons opens the abort's confirmation from each Abort… button. */
function wireAbortButtons() {
  if (!openAbort) return;
  for (const b of document.querySelectorAll('[data-testid="abort-txn"]')) {
    b.addEventListener('click', () => {
      target = { ...b.dataset };
      const args = { producer: target.producer, start: target.start, topic: target.topic, partition: target.partition, txid: target.txid };
      tr($('abort-text'), target.txid ? 'abortDialog.textNamed' : 'abortDialog.text', args);
      $('abort-live').hidden = target.hanging === 'true';
      openAbort(b);
    });
  }
}
wireAbortButtons();

// ---- pages that follow the cluster ------------------------------------------
// The transactions page and a group's page ask the API every few seconds;
// when the answer changed — an abort from any page, a commit, a timeout, a
// consumer's commit — they read the page again and swap their cards in
// place, so that no row stays "Ongoing" and no lag stays "waiting" after
// the transaction ended.

/** listedStates is "id=state" of each transaction, sorted. */
function listedStates(rows) {
  return rows.map((r) => `${r.transactionalId}=${r.state}`).sort().join(' ');
}

function shownStates() {
  return listedStates([...document.querySelectorAll('[data-testid="txn-row"]')].map((r) => ({ transactionalId: r.dataset.id, state: r.dataset.state })));
}

/**
 * offsetLags is "topic/partition=committed,logEnd,lag,recordLag,lso,waiting,txid"
 * of each of a group's partitions, sorted: the same string from the API's
 * answer (groupLags) and from the rows the page shows (shownLags).
 */
function offsetLags(rows) {
  return rows.map((o) => `${o.topic}/${o.partition}=${[o.committed, o.logEnd, o.lag, o.recordLag, o.lso, o.waiting, o.txid].map((v) => (v ?? '')).join(',')}`).sort().join(' ');
}

/** groupLags is what a group's page should show of its offsets (the API's answer). */
function groupLags(g) {
  return offsetLags((g.offsets || []).map((o) => ({
    topic: o.topic, partition: o.partition, committed: o.committed, logEnd: o.logEnd, lag: o.lag, recordLag: o.recordLag,
    lso: o.held?.lastStableOffset, waiting: o.held?.waiting, txid: o.held?.holder?.transactionalId,
  })));
}

/** shownLags is what a group's page shows of its offsets, read from its rows. */
function shownLags() {
  return offsetLags([...document.querySelectorAll('#group-offsets [data-testid="offset-row"]')].map((r) => ({
    topic: r.dataset.topic, partition: r.dataset.partition, committed: r.dataset.committed, logEnd: r.dataset.logEnd, lag: r.dataset.lag,
    recordLag: r.dataset.recordLag, lso: r.dataset.heldLso, waiting: r.dataset.heldWaiting, txid: r.dataset.heldTxid,
  })));
}

const cardIDs = ['txn-list', 'producers', 'group-offsets'];

/** refreshCards reads the page again and swaps its live cards in place. */
async function refreshCards() {
  const res = await fetch(location.href, { headers: { Accept: 'text/html' } });
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
  for (const id of cardIDs) {
    const fresh = doc.getElementById(id);
    const old = $(id);
    if (fresh && old) {
      old.replaceWith(fresh);
      apply(fresh);
    }
  }
  wireAbortButtons();
  main.dataset.refreshed = String(Number(main.dataset.refreshed || 0) + 1);
}

/**
 * follow asks path every `every` ms and refreshes the cards when
 * signature(answer) differs from shown(), the page as it is rendered now:
 * comparing with the page, not with the previous answer, refreshes a page
 * whose first answer already differs from what it shows.
 */
function follow(path, every, signature, shown) {
  let busy = false;
  setInterval(async () => {
    if (busy || document.hidden || abortDialog?.open) return;
    busy = true;
    try {
      if (signature(await api('GET', path)) !== shown()) await refreshCards();
    } catch {
      // the next tick asks again
    } finally {
      busy = false;
    }
  }, every);
}

if ($('txn-list')) {
  const state = new URLSearchParams(location.search).get('state') || '';
  follow(`/api/transactions${state ? `?state=${encodeURIComponent(state)}` : ''}`, 2000, (a) => listedStates(a.transactions || []), shownStates);
}
if ($('group-offsets')) follow(`/api${location.pathname}`, 4000, groupLags, shownLags);

// ---- the topic's strips ----------------------------------------------------

const strips = $('strips');
if (strips) setupStrips(strips, { live: $('strips-live'), error: $('strips-error') });
const topicSearch = $('topic-search');
if (topicSearch) setupTopicSearch(topicSearch);

showFlash();
main.dataset.ready = 'true';
