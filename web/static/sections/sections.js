// sections.js: the script of the pages of the Topics, Groups and
// Transactions sections (topics, a topic, groups, a group,
// transactions). The server renders every table; this module
// switches the language, runs the confirmations of the teacher's two
// writes — delete a topic (type its name), abort a transaction — and, on
// a topic's page, starts the live strips (strips.js). A write's outcome
// is said in the page's status line, also after the reload that shows
// the cluster as it is now.

import { api, apiPartition, showErrorText } from '../common/api.js';
import { setupI18n, tr } from '../common/i18n.js';
import { watchBudget } from '../common/budget.js';
import { setupStrips } from './strips.js';

setupI18n();
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
      const err = new Error('mismatch');
      err.code = 'deleteDialog.mismatch';
      err.args = { topic };
      throw err;
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

const abortDialog = $('abort-dialog');
if (abortDialog) {
  let target = null;
  const open = confirmDialog(abortDialog, $('abort-error'), async () => {
    const { topic, partition, start, producer } = target;
    await api('POST', `${apiPartition(topic, partition)}/transactions/${encodeURIComponent(start)}/abort`);
    flash('txnPage.aborted', { producer, start, topic, partition });
    abortDialog.close();
    location.reload();
  });
  for (const b of document.querySelectorAll('[data-testid="abort-txn"]')) {
    b.addEventListener('click', () => {
      target = { ...b.dataset };
      tr($('abort-text'), 'abortDialog.text', { producer: target.producer, start: target.start, topic: target.topic, partition: target.partition });
      $('abort-live').hidden = target.hanging === 'true';
      open(b);
    });
  }
}

// ---- the topic's strips ----------------------------------------------------

const strips = $('strips');
if (strips) setupStrips(strips, { live: $('strips-live'), error: $('strips-error') });

showFlash();
main.dataset.ready = 'true';
