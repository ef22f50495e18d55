// brokers.js: the teacher's Brokers panel. It lists the brokers with
// whether each is up (a shape and a word, not colour alone) and, when the
// dashboard runs them itself (--local-kafka), Stop and Start buttons that
// stop and start them for real; otherwise the command to run. It also
// shows the current partition's leader, replicas and ISR, polled every
// second from GET /api/topics: what the broker reports, never made up.

import { api, showErrorText } from '../common/api.js';
import { tr } from '../common/i18n.js';

const NODES_MS = 2000;
const PLACEMENT_MS = 1000;

/**
 * setupBrokers starts the panel when the page has it (teacher only).
 * @param {import('./app.js').App} app
 */
export function setupBrokers(app) {
  const panel = document.getElementById('brokers-panel');
  if (!panel) return;
  const list = document.getElementById('brokers-list');
  const hint = document.getElementById('brokers-hint');
  const status = document.getElementById('brokers-status');
  const error = document.getElementById('brokers-error');
  const placement = document.getElementById('placement');
  let busy = false;

  function showError(err) {
    error.hidden = !err;
    showErrorText(error, err || null);
  }

  function render(v) {
    hint.hidden = v.managed;
    if (v.hintCode) tr(hint, v.hintCode, v.hintArgs);
    else hint.textContent = v.hint || '';
    list.replaceChildren(...v.nodes.map((n) => {
      const li = document.createElement('li');
      li.className = n.up ? 'broker up' : 'broker down';
      li.dataset.testid = 'broker-' + n.id;
      li.setAttribute('data-testid', 'broker-' + n.id);
      const label = document.createElement('span');
      label.className = 'broker-state';
      tr(label, n.up ? 'brokers.up' : 'brokers.down', { id: n.id, address: n.address });
      li.append(label);
      if (v.managed) {
        const b = document.createElement('button');
        b.type = 'button';
        tr(b, n.up ? 'brokers.stop' : 'brokers.start', { id: n.id });
        b.setAttribute('data-testid', (n.up ? 'broker-stop-' : 'broker-start-') + n.id);
        b.disabled = busy;
        b.addEventListener('click', () => act(n.id, n.up ? 'stop' : 'start'));
        li.append(' ', b);
      }
      return li;
    }));
  }

  async function act(id, action) {
    busy = true;
    showError('');
    tr(status, action === 'stop' ? 'brokers.stopping' : 'brokers.starting', { id });
    list.querySelectorAll('button').forEach((b) => { b.disabled = true; });
    try {
      render(await api('POST', `/api/brokers/${id}/${action}`));
      tr(status, action === 'stop' ? 'brokers.stopped' : 'brokers.started', { id });
    } catch (err) {
      showError(err);
      status.textContent = '';
    } finally {
      busy = false;
      refreshNodes();
    }
  }

  async function refreshNodes() {
    if (busy) return;
    try {
      render(await api('GET', '/api/brokers'));
    } catch (err) {
      showError(err);
    }
  }

  async function refreshPlacement() {
    const cur = app.current();
    if (!cur.hasTopic || !cur.topic) {
      tr(placement, 'brokers.openPartition');
      return;
    }
    try {
      const v = await api('GET', '/api/topics');
      const t = (v.topics || []).find((x) => x.name === cur.topic);
      const p = t && t.partitions.find((x) => x.partition === cur.partition);
      if (!p) {
        tr(placement, 'brokers.notReported', { partition: `${cur.topic}-${cur.partition}` });
        return;
      }
      const isr = [...p.isr].sort((a, b) => a - b);
      tr(placement, 'brokers.placement', { partition: `${cur.topic}-${cur.partition}`, leader: p.leader, replicas: p.replicas.join(','), isr: isr.join(',') });
    } catch {
      // The broker banner reports an unreachable broker.
    }
  }

  refreshNodes();
  refreshPlacement();
  setInterval(refreshNodes, NODES_MS);
  setInterval(refreshPlacement, PLACEMENT_MS);
}
