// dock.js: the dock's tabs (Lesson, Act, Inspect, Details) as an ARIA
// tablist: click or Enter chooses a tab, the arrow keys, Home and End move
// between tabs; the choice is remembered (localStorage). A link to a
// control inside another tab (data-tab-link) opens that tab first.

const TAB_KEY = 'offsetlab.dockTab';

function store() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: the dock still works, it just forgets
  }
}

/**
 * setupDock wires the tabs and returns the dock's controls.
 * @returns {{show: (name: string, opts?: {focus?: boolean, remember?: boolean}) => void, current: () => string, reveal: (el: Element) => void}}
 */
export function setupDock() {
  const tabs = [...document.querySelectorAll('.dock-tabs [role="tab"]')];
  const byName = new Map(tabs.map((tab) => [tab.dataset.tab, tab]));
  let current = tabs.find((tab) => tab.getAttribute('aria-selected') === 'true')?.dataset.tab || '';

  function show(name, opts = {}) {
    const tab = byName.get(name);
    if (!tab) return;
    current = name;
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      const panel = document.getElementById(t.getAttribute('aria-controls'));
      if (panel) panel.hidden = !on;
    }
    if (opts.focus) tab.focus();
    if (opts.remember !== false) store()?.setItem(TAB_KEY, name);
    document.dispatchEvent(new CustomEvent('offsetlab:tab', { detail: name }));
  }

  for (const tab of tabs) {
    tab.addEventListener('click', () => show(tab.dataset.tab));
    tab.addEventListener('keydown', (ev) => {
      const i = tabs.indexOf(tab);
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[ev.key];
      if (to === undefined) return;
      ev.preventDefault();
      show(tabs[(to + tabs.length) % tabs.length].dataset.tab, { focus: true });
    });
  }

  /** reveal opens the tab holding el, if el is in one. */
  function reveal(el) {
    const panel = el?.closest('[role="tabpanel"]');
    if (!panel) return;
    const tab = tabs.find((t) => t.getAttribute('aria-controls') === panel.id);
    if (tab && tab.dataset.tab !== current) show(tab.dataset.tab);
  }

  for (const link of document.querySelectorAll('[data-tab-link]')) {
    link.addEventListener('click', (ev) => {
      const target = document.querySelector(link.getAttribute('href'));
      show(link.dataset.tabLink);
      if (target) {
        ev.preventDefault();
        target.scrollIntoView({ block: 'start' });
        target.querySelector('input, select, button')?.focus({ preventScroll: true });
      }
    });
  }

  const saved = store()?.getItem(TAB_KEY);
  if (saved && byName.has(saved)) show(saved, { remember: false });
  return { show, current: () => current, reveal };
}
