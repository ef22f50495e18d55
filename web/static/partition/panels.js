// panels.js: the control panels. Each form calls the JSON API and shows
// the API's sentence next to the control that caused an error.

import { api, fmt, showErrorText } from '../common/api.js';
import { has, onLanguage, plain, span, t, tr } from '../common/i18n.js';
import { reportEpoch } from './producers.js';
import { setupShareAct } from './shareact.js';

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
const POLL_MS = 3000;

const SEED_ORDERS = ['O-1 2x15000', 'O-2 1x42000', 'O-3 3x9000'];

// showError shows err next to its control: an API error in the current
// language when the catalogue knows its code (re-rendered on a switch),
// else its English sentence.
function showError(node, err) {
  if (!err) {
    node.hidden = true;
    plain(node, '');
    return;
  }
  showErrorText(node, err);
  node.hidden = false;
}

/** busy disables the button (and marks the form busy) while fn runs. */
async function busy(button, fn) {
  const form = button.form;
  // A disabled button loses the focus to the page: give it back after.
  const focused = document.activeElement === button;
  button.disabled = true;
  if (form) form.setAttribute('aria-busy', 'true');
  try {
    return await fn();
  } finally {
    button.disabled = false;
    if (form) form.removeAttribute('aria-busy');
    const fallen = !document.activeElement || document.activeElement === document.body;
    if (focused && fallen && button.isConnected && !button.hidden) button.focus({ preventScroll: true });
    showResult(form);
  }
}

/**
 * showResult scrolls the dock's tab — only it, never the page — so that
 * what an action answered (its form's status and error lines) is on
 * screen: a tab holds more than the dock shows at 1280×720.
 */
function showResult(form) {
  const scroller = form?.closest('.dock-panel');
  if (!scroller || scroller.hidden) return;
  const lines = [...form.querySelectorAll('.status, .error')].filter((n) => !n.hidden && n.textContent.trim() !== '' && n.getClientRects().length > 0);
  if (!lines.length) return;
  const box = scroller.getBoundingClientRect();
  const top = Math.min(...lines.map((n) => n.getBoundingClientRect().top));
  const bottom = Math.max(...lines.map((n) => n.getBoundingClientRect().bottom));
  if (bottom > box.bottom - 4) scroller.scrollTop += bottom - box.bottom + 8;
  else if (top < box.top + 4) scroller.scrollTop -= box.top - top + 8;
}

/** onSubmit routes a form's submit (Enter in a field, or its submit button). */
function onSubmit(form, fn) {
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const button = ev.submitter || form.querySelector('button[type=submit]');
    fn(button);
  });
}

const value = (id) => $(id).value.trim();

/**
 * Panels wires every control panel to the API.
 * @param {import('./app.js').App} app
 */
export function setupPanels(app) {
  const coordinator = coordinatorPanel(app);
  const group = groupPanel(app);
  // The student view of a classroom has only the read-only panels.
  if ($('processor-form')) {
    const processor = processorPanel(app, coordinator, group);
    seedPanel(app, processor);
  }
  if ($('txn-form')) transactionPanel(app, coordinator);
  if ($('producer-form')) producerPanel(app);
  if ($('create-form')) topicsPanel(app);
  if ($('share-form')) setupShareAct(app);
  return {
    /** onTopic keeps the fields that follow the partition on show in step. */
    onTopic(topic) {
      for (const input of document.querySelectorAll('[data-follows-topic]')) /** @type {HTMLInputElement} */ (input).value = topic;
    },
  };
}

function seedPanel(app, processor) {
  const form = $('seed-form');
  const status = $('seed-status');
  const error = $('seed-error');
  onLanguage(() => {
    if (status.dataset.i18nParts && status.dataset.i18n === 'seed.done') renderSeedStatus(status);
  });
  onSubmit(form, (button) => busy(button, async () => {
    showError(error, null);
    tr(status, 'seed.settingUp');
    const orders = value('seed-orders');
    const totals = value('seed-totals');
    const totalsTx = value('seed-totals-tx');
    try {
      const created = [];
      const kept = [];
      for (const name of [orders, totals, totalsTx]) {
        try {
          await api('POST', '/api/topics', { name, partitions: 1 });
          created.push(name);
        } catch (err) {
          if (err.status !== 409) throw err;
          kept.push(name);
        }
      }
      const t = await api('GET', `/api/topics/${enc(orders)}`);
      const p0 = t.partitions[0];
      let wrote;
      if (p0.highWatermark === 0) {
        const out = await api('POST', '/api/produce', { topic: orders, partition: 0, values: SEED_ORDERS, acks: 'all' });
        const offsets = out.results.map((r) => r.offset).filter((o) => o !== null);
        wrote = ['seed.wrote', { topic: orders, offsets: offsets.join(', ') }];
      } else {
        wrote = ['seed.alreadyHolds', { topic: orders, count: fmt(p0.highWatermark) }];
      }
      // One sentence in the chosen language; its parts are catalogue keys.
      const parts = [
        created.length ? ['seed.created', { topics: created.join(', ') }] : null,
        kept.length ? ['seed.kept', { topics: kept.join(', ') }] : null,
        wrote,
      ].filter(Boolean);
      tr(status, 'seed.done', { parts: '' });
      status.dataset.i18nParts = JSON.stringify(parts);
      renderSeedStatus(status);
      status.dataset.done = 'true';
      processor.useSeed(orders, totals, totalsTx);
      await app.refreshTopics();
      await app.show(processor.output(), 0);
    } catch (err) {
      plain(status, '');
      showError(error, err);
      app.apiFailed(err);
    }
  }));
}

/** renderSeedStatus writes the seed panel's sentence from its parts. */
function renderSeedStatus(status) {
  const parts = JSON.parse(status.dataset.i18nParts || '[]').map(([k, a]) => t(k, a));
  status.dataset.i18nArgs = JSON.stringify({ parts: parts.join(t('seed.sep')) });
  status.textContent = t('seed.done', { parts: parts.join(t('seed.sep')) });
}

// MODE_TEXT names each mode's catalogue keys (its label stays English: it
// is the name of a delivery semantics).
const MODE_TEXT = {
  'at-most-once': { label: 'at-most-once', crash: 'processor.crashAmo', explain: 'processor.explainAmo' },
  plain: { label: 'at-least-once', crash: 'processor.crashPlain', explain: 'processor.explainPlain' },
  tx: { label: 'exactly-once', crash: 'processor.crash', explain: 'processor.explainTx' },
};

function processorPanel(app, coordinator, group) {
  const form = $('processor-form');
  const mode = $('processor-mode');
  const crashAt = $('processor-crash-at');
  const crashBtn = $('processor-crash');
  const runBtn = $('processor-run');
  const explain = $('processor-explain');
  const error = $('processor-error');
  const log = $('processor-log');
  const txidField = $('processor-txid-field');
  let seed = { orders: value('seed-orders'), totals: value('seed-totals'), totalsTx: value('seed-totals-tx') };
  let runs = 0;

  const defaults = (m) => ({
    output: m === 'tx' ? seed.totalsTx : seed.totals,
    group: { tx: 'totals-tx', plain: 'totals-plain', 'at-most-once': 'totals-at-most-once' }[m],
  });
  let lastMode = mode.value;

  const refresh = () => {
    const text = MODE_TEXT[mode.value];
    if (crashAt.value) tr(crashBtn, text.crash, { order: crashAt.value });
    else tr(crashBtn, 'processor.crashChoose');
    tr(runBtn, runs ? 'processor.runAgain' : 'processor.run');
    tr(explain, text.explain);
    txidField.hidden = mode.value !== 'tx';
  };
  mode.addEventListener('change', () => {
    const before = defaults(lastMode);
    const after = defaults(mode.value);
    if (value('processor-output') === before.output) $('processor-output').value = after.output;
    if (value('processor-group') === before.group) $('processor-group').value = after.group;
    lastMode = mode.value;
    refresh();
  });
  crashAt.addEventListener('change', refresh);
  refresh();

  const run = async (button, crash) => {
    showError(error, null);
    if (crash && !crashAt.value) {
      showError(error, new Error(t('processor.chooseCrash')));
      return;
    }
    const body = { mode: mode.value, input: value('processor-input'), output: value('processor-output'), group: value('processor-group') };
    if (mode.value === 'tx') body.transactionalId = value('processor-txid');
    if (crash) body.crashAt = crashAt.value;
    await busy(button, async () => {
      try {
        // Watch the output while the processor writes, if it exists; the
        // run itself reports a missing topic.
        if (body.output && await topicExists(body.output)) await app.show(body.output, 0);
        const res = await api('POST', '/api/processor/runs', body);
        runs++;
        reportEpoch(res.producerId, res.producerEpoch);
        addRun(body, res);
        refresh();
        await app.show(body.output, 0);
      } catch (err) {
        showError(error, err);
        app.apiFailed(err);
      }
      if (body.transactionalId) coordinator.show(body.transactionalId);
      group.show(body.group);
    });
  };

  const addRun = (body, res) => {
    const li = document.createElement('li');
    li.dataset.testid = 'processor-run-log';
    li.dataset.crashed = String(!!res.crashed);
    const head = document.createElement('p');
    head.className = 'run-head';
    const args = {
      run: runs,
      mode: MODE_TEXT[body.mode].label,
      crash: body.crashAt || '',
      producer: res.producerId,
      epoch: res.producerEpoch,
    };
    const key = `processor.runHead${body.crashAt ? 'Crash' : ''}${res.crashed ? 'Crashed' : 'Finished'}${res.producerId >= 0 ? 'Who' : ''}`;
    tr(head, key, args);
    const lines = document.createElement('pre');
    if ((res.log || []).length) {
      // Each line in the viewer's language when the server named its
      // sentence (logKeys), else the English line as processor.py prints it.
      res.log.forEach((text, i) => {
        if (i > 0) lines.append('\n');
        const k = (res.logKeys || [])[i];
        if (k && has(k.key)) lines.append(span(k.key, k.args || {}));
        else lines.append(text);
      });
    } else tr(lines, 'processor.nothing');
    li.append(head, lines);
    log.prepend(li);
  };

  crashBtn.addEventListener('click', () => run(crashBtn, true));
  onSubmit(form, () => run(runBtn, false));

  return {
    output: () => value('processor-output'),
    /** useSeed points the processor at the topics the seed panel just set up. */
    useSeed(orders, totals, totalsTx) {
      seed = { orders, totals, totalsTx };
      $('processor-input').value = orders;
      $('processor-output').value = defaults(mode.value).output;
    },
  };
}

function transactionPanel(app, coordinator) {
  const form = $('txn-form');
  const status = $('txn-status');
  const error = $('txn-error');
  const step = async (button, name) => {
    showError(error, null);
    const id = value('txn-id');
    let body;
    if (name === 'send') {
      const topic = value('txn-topic');
      body = { topic, values: [$('txn-value').value] };
      const key = $('txn-key').value;
      if (key) body.key = key;
      const cur = app.current();
      if (cur.hasTopic && cur.topic === topic) body.partition = cur.partition;
    }
    await busy(button, async () => {
      try {
        const st = await api('POST', `/api/transactions/${enc(id)}/${name}`, body);
        status.dataset.step = name;
        status.dataset.inTransaction = String(!!st.inTransaction);
        reportEpoch(st.producerId, st.producerEpoch);
        const results = st.results || [];
        const sent = results.map((r) => (r.error ? t('txn.failed', { error: r.error }) : t('txn.offset', { offset: r.offset }))).join(', ');
        tr(status, 'txn.status.' + name, { id: st.transactionalId, producer: st.producerId, epoch: st.producerEpoch, sent });
        status.title = t('txn.producerTitle', { pid: String(st.producerId) });
        const wrote = results.filter((r) => !r.error && r.offset !== null && r.offset !== undefined);
        if (name === 'send' && wrote.length) await app.show(body.topic, wrote[0].partition ?? body.partition ?? 0, wrote.map((r) => r.offset));
        else if (name !== 'begin' && app.current().hasTopic) await app.show(app.current().topic, app.current().partition);
      } catch (err) {
        showError(error, err);
        app.apiFailed(err);
      }
      coordinator.show(id);
    });
  };
  for (const button of form.querySelectorAll('button[data-step]')) {
    if (button.type !== 'submit') button.addEventListener('click', () => step(button, button.dataset.step));
  }
  onSubmit(form, (button) => step(button, 'send'));
}

/** partitionCount is how many partitions topic has (1 when it cannot tell). */
async function partitionCount(name) {
  try {
    const info = await api('GET', `/api/topics/${enc(name)}`);
    return info.partitions.length;
  } catch {
    return 1;
  }
}

async function topicExists(name) {
  try {
    await api('GET', `/api/topics/${enc(name)}`);
    return true;
  } catch {
    return false;
  }
}

/** poller calls fn every POLL_MS while the page is visible, one call at a time. */
function poller(fn) {
  let running = false;
  const tick = async () => {
    if (running || document.hidden) return;
    running = true;
    try {
      await fn();
    } finally {
      running = false;
    }
  };
  setInterval(tick, POLL_MS);
  return tick;
}

function coordinatorPanel(app) {
  const form = $('coord-form');
  const error = $('coord-error');
  const note = $('coord-note');
  const fields = {
    state: $('coord-state'), producer: $('coord-producer'), timeout: $('coord-timeout'), partitions: $('coord-partitions'),
  };
  let active = false;
  const fetchState = async () => {
    const id = value('coord-id');
    if (!id || !active) return;
    try {
      const st = await api('GET', `/api/transactions/${enc(id)}`);
      plain(fields.state, st.state);
      fields.state.dataset.state = st.state;
      fields.producer.textContent = `${st.producerId} · ${st.producerEpoch}`;
      fields.timeout.textContent = `${fmt(st.timeoutMs)} ms`;
      if ((st.partitions || []).length) plain(fields.partitions, st.partitions.join(', '));
      else tr(fields.partitions, 'details.none');
      note.textContent = st.brokerNote || '';
      note.hidden = !st.brokerNote;
      showError(error, null);
    } catch (err) {
      if (err.status === 404) {
        active = false; // nothing to watch until the next action or Refresh
        tr(fields.state, 'common.unknown');
        fields.state.dataset.state = '';
        for (const f of [fields.producer, fields.timeout, fields.partitions]) plain(f, '—');
        note.hidden = true;
      }
      showError(error, err);
      app.apiFailed(err);
    }
  };
  const tick = poller(fetchState);
  onSubmit(form, (button) => busy(button, async () => {
    active = true;
    await fetchState();
  }));
  return {
    show(id) {
      $('coord-id').value = id;
      active = true;
      tick();
    },
  };
}

function groupPanel(app) {
  const form = $('group-form');
  const error = $('group-error');
  const state = $('group-state');
  const body = $('group-offsets');
  let active = false;
  const fetchGroup = async () => {
    const id = value('group-id');
    if (!id || !active) return;
    try {
      const g = await api('GET', `/api/groups/${enc(id)}`);
      tr(state, g.memberCount === 1 ? 'group.stateOne' : 'group.state', { group: g.group, state: g.state, members: g.memberCount ?? 0 });
      state.dataset.state = g.state;
      body.replaceChildren();
      for (const o of g.offsets || []) {
        const tr = document.createElement('tr');
        tr.dataset.topic = o.topic;
        tr.dataset.partition = o.partition;
        for (const [v, name] of [[`${o.topic} · ${o.partition}`, 'where'], [o.committed, 'committed'], [o.logEnd, 'logEnd'], [o.lag, 'lag']]) {
          const td = document.createElement('td');
          td.textContent = typeof v === 'number' ? fmt(v) : v;
          td.dataset.field = name;
          tr.append(td);
        }
        body.append(tr);
      }
      showError(error, null);
    } catch (err) {
      if (err.status === 404) {
        active = false;
        tr(state, 'common.unknown');
        body.replaceChildren();
      }
      showError(error, err);
      app.apiFailed(err);
    }
  };
  const tick = poller(fetchGroup);
  onSubmit(form, (button) => busy(button, async () => {
    active = true;
    await fetchGroup();
  }));
  return {
    show(id) {
      $('group-id').value = id;
      active = true;
      tick();
    },
  };
}

function producerPanel(app) {
  const form = $('producer-form');
  const result = $('produce-result');
  const error = $('produce-error');
  // The form starts as Kafka clients do since 3.0: acks=all with
  // enable.idempotence on. As those clients do, choosing acks 0 or 1 turns
  // idempotence off until the box is set by hand; the API's own default
  // (no "idempotent": off) stays as docs/api.md says.
  const idempotent = $('produce-idempotent');
  let idempotenceChosen = false;
  idempotent.addEventListener('change', () => { idempotenceChosen = true; });
  $('produce-acks').addEventListener('change', (ev) => {
    if (!idempotenceChosen) idempotent.checked = ev.target.value === 'all';
  });
  onSubmit(form, (button) => busy(button, async () => {
    showError(error, null);
    result.textContent = '';
    const count = Math.max(1, Math.min(1000, parseInt($('produce-count').value, 10) || 1));
    const template = $('produce-value').value;
    const txid = value('produce-txid');
    const body = {
      topic: value('produce-topic'),
      values: Array.from({ length: count }, (_, i) => template.replaceAll('{n}', String(i + 1))),
      acks: $('produce-acks').value,
    };
    if (idempotent.checked) body.idempotent = true;
    else if (!txid) body.idempotent = false;
    if (txid) body.transactionalId = txid;
    const partition = $('produce-partition').value.trim();
    if (partition !== '') body.partition = Number(partition);
    const key = $('produce-key').value;
    if (key) body.key = key;
    const loseAck = $('produce-lose-ack').checked;
    const twice = $('produce-double-send').checked;
    if (loseAck && twice) {
      showError(error, new Error(t('producer.oneFault')));
      return;
    }
    if (loseAck) body.fault = 'lose-ack';
    if (twice) body.fault = 'double-send';
    try {
      const out = await api('POST', '/api/produce', body);
      reportEpoch(out.producerId, out.producerEpoch);
      // Say which partition each record landed in when the topic has more
      // than one (or the record went elsewhere than the partition on show).
      const partitions = new Set(out.results.map((r) => r.partition).filter((p) => p !== undefined && p !== null));
      const cur = app.current();
      const many = (await partitionCount(body.topic)) > 1 || partitions.size > 1;
      const parts = out.results.map((r) => {
        if (r.error) return t('producer.failed', { value: r.value, error: r.error });
        if (r.offset === null) return many && r.partition !== undefined && r.partition !== null ? t('producer.sentUnknownIn', { value: r.value, partition: r.partition }) : t('producer.sentUnknown', { value: r.value });
        return many ? t('producer.atIn', { value: r.value, partition: r.partition, offset: r.offset }) : t('producer.at', { value: r.value, offset: r.offset });
      });
      const who = Number(out.producerId) >= 0 ? t('producer.who', { producer: out.producerId, epoch: out.producerEpoch }) : t('producer.noPid');
      result.textContent = parts.join('; ') + '.' + who + (out.ackLost ? t('producer.ackLost') : '');
      result.title = Number(out.producerId) >= 0 ? t('txn.producerTitle', { pid: String(out.producerId) }) : '';
      // Follow the records: the partition the last one landed in.
      const written = out.results.filter((r) => !r.error && r.partition !== undefined && r.partition !== null);
      const last = written[written.length - 1];
      const partition = last ? last.partition : body.partition ?? (cur.hasTopic && cur.topic === body.topic ? cur.partition : 0);
      const offsets = written.filter((r) => r.partition === partition && r.offset !== null).map((r) => r.offset);
      await app.show(body.topic, partition, offsets);
    } catch (err) {
      showError(error, err);
      app.apiFailed(err);
    }
  }));
}

function topicsPanel(app) {
  const form = $('create-form');
  const status = $('create-status');
  const error = $('create-error');
  onSubmit(form, (button) => busy(button, async () => {
    showError(error, null);
    plain(status, '');
    const body = { name: value('create-name'), partitions: parseInt($('create-partitions').value, 10) || 1 };
    const rf = $('create-rf').value.trim();
    if (rf !== '') body.replicationFactor = Number(rf);
    try {
      const made = await api('POST', '/api/topics', body);
      tr(status, 'topics.created', { name: made.name, count: made.partitions.length });
      await app.refreshTopics();
      await app.show(made.name, 0);
    } catch (err) {
      showError(error, err);
      app.apiFailed(err);
    }
  }));
}
