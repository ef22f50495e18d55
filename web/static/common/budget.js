// The embedded broker's data budget, in the masthead under the cluster
// line (layout.templ's #cluster-budget): "Data: used of max", and a
// warning once it is full, when writes are refused. Real clusters have
// no such line.

import { api } from './api.js';
import { tr } from './i18n.js';

const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;

/**
 * showBudget shows /api/cluster's budget, if the page has the line and the broker a budget.
 * @param {import('../types/wire.js').BudgetStatus|undefined} b
 */
export function showBudget(b) {
  const line = document.getElementById('cluster-budget');
  if (!line || !b || !(b.maxBytes > 0)) return;
  tr(line, b.full ? 'cluster.budgetFull' : 'cluster.budget', { used: mib(b.usedBytes), max: mib(b.maxBytes) });
  line.dataset.full = String(!!b.full);
  line.hidden = false;
}

/**
 * watchBudget shows the budget now and every few seconds while the page is visible.
 * @param {number} [every] ms between polls
 */
export function watchBudget(every = 5000) {
  if (!document.getElementById('cluster-budget')) return;
  const refresh = () => api('GET', '/api/cluster').then((c) => showBudget(c.budget), () => {});
  refresh();
  setInterval(() => {
    if (!document.hidden) refresh();
  }, every);
}
