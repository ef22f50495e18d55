// save.js: "Save this view" — a take-home copy of the partition as the
// class sees it: the cells on screen with their pointers and consumer
// lanes, the pointer sentence, the legend and the story. It is one HTML
// file with the page's stylesheets inlined and a static copy of the DOM:
// no script, nothing fetched, it opens offline.

import { dateTime } from '../common/catalog.js';
import { t } from '../common/i18n.js';

/** cssText is every rule of the page's own stylesheets. */
function cssText() {
  const out = [];
  for (const sheet of document.styleSheets) {
    try {
      for (const rule of sheet.cssRules) out.push(rule.cssText);
    } catch {
      // A stylesheet of another origin cannot be read; ours all can.
    }
  }
  return out.join('\n');
}

// SAVED_CSS lays the copy out as a page that scrolls, without the live
// page's one-screen layout.
const SAVED_CSS = `
html, body { height: auto !important; display: block !important; overflow: visible !important; }
body { padding: 12px 16px; max-width: 1400px; }
.saved-head { margin: 0 0 8px; }
.saved-head p { margin: 2px 0; color: var(--muted); }
.saved .log-panel { display: block !important; }
.saved .legend { position: static; margin-bottom: 8px; }
.saved .story { margin-top: 12px; }
.saved .story ol { max-height: none !important; overflow: visible !important; }
.saved .log-frame { display: block; }
.saved button { cursor: default; }
`;

/** escapeHTML makes text safe inside an element or attribute. */
function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/**
 * snapshot builds the take-home HTML of the view on show.
 * @param {import('./app.js').App} app
 * @returns {string}
 */
export function snapshot(app) {
  const cur = app.current();
  const panel = document.getElementById('log-panel').cloneNode(true);
  panel.querySelector('#log-foot')?.remove();
  panel.querySelector('#minimap')?.remove();
  for (const el of panel.querySelectorAll('[id]')) el.removeAttribute('id');
  // The live viewport sizes itself from the screen; the copy keeps the
  // height it had, with its rows where they were.
  const vp = panel.querySelector('.log-viewport');
  const live = document.getElementById('log-viewport');
  if (vp && live) {
    vp.style.height = `${live.clientHeight}px`; // the CSSOM, which the page's CSP allows
    vp.removeAttribute('tabindex');
  }
  for (const el of panel.querySelectorAll('[tabindex]')) el.removeAttribute('tabindex');
  const legend = document.querySelector('.legend')?.cloneNode(true);
  const story = document.getElementById('story').cloneNode(true);
  story.querySelector('#story-scope')?.remove();
  for (const el of story.querySelectorAll('.ev-jump, [id]')) {
    if (el.classList.contains('ev-jump')) el.remove();
    else el.removeAttribute('id');
  }
  const when = new Date();
  const title = `${cur.topic}-${cur.partition} · Offset Lab`;
  const lang = document.documentElement.lang || 'en';
  return `<!DOCTYPE html>
<html lang="${escapeHTML(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHTML(title)}</title>
<style>
${cssText()}
${SAVED_CSS}
</style>
</head>
<body class="saved">
<header class="saved-head">
<h1>${escapeHTML(title)}</h1>
<p>${escapeHTML(t('save.savedAt', { time: dateTime(when) }))}</p>
</header>
${legend ? legend.outerHTML : ''}
${panel.outerHTML}
${story.outerHTML}
</body>
</html>
`;
}

/**
 * setupSave wires the "Save this view" button: it downloads the snapshot
 * as offset-lab-<topic>-<partition>-<time>.html.
 * @param {import('./app.js').App} app
 */
export function setupSave(app) {
  const button = document.getElementById('save-view');
  if (!button) return;
  let url = '';
  button.addEventListener('click', () => {
    const cur = app.current();
    if (!cur.hasTopic) return;
    const html = snapshot(app);
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(new Blob([html], { type: 'text/html;charset=utf-8' }));
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    const a = document.createElement('a');
    a.href = url;
    a.download = `offset-lab-${cur.topic}-${cur.partition}-${stamp}.html`;
    a.dataset.testid = 'save-link';
    a.hidden = true;
    document.querySelector('[data-testid="save-link"]')?.remove();
    document.body.append(a);
    a.click();
    button.dataset.saved = String(html.length);
  });
}
