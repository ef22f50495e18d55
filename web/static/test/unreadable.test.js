// @ts-check
// The unreadable partition's notice (partition/unreadable.js) with the
// catalogue's own sentences and plain objects for elements: what and why
// in English and Korean, the cells marked stale, cleared when the stream
// says the partition can be read again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useCatalogue, useLanguage, t, has } from '../common/i18n.js';
import { UnreadableNotice } from '../partition/unreadable.js';

useCatalogue({
  en: JSON.parse(readFileSync(new URL('../../../internal/catalog/en.json', import.meta.url), 'utf8')),
  ko: JSON.parse(readFileSync(new URL('../../../internal/catalog/ko.json', import.meta.url), 'utf8')),
});

/** fakeElement is the little of an element the notice touches. */
function fakeElement() {
  return {
    hidden: true,
    /** @type {Record<string, string>} */
    dataset: {},
    textContent: '',
    /** @type {any[]} */
    children: [],
    replaceChildren(...nodes) {
      this.children = nodes;
      this.textContent = nodes.map((n) => (typeof n === 'string' ? n : n.textContent)).join('');
    },
  };
}

/** words are i18n.js's sentence writers over fake elements. */
const words = {
  span: (key, args) => Object.assign(fakeElement(), { textContent: t(key, args), dataset: { i18n: key } }),
  text: (s) => Object.assign(fakeElement(), { textContent: s }),
  tr: (node, key, args) => Object.assign(node, { textContent: t(key, args) }),
  has,
};

function notice() {
  const els = { box: fakeElement(), frame: fakeElement(), status: fakeElement() };
  return { els, n: new UnreadableNotice(/** @type {any} */ (els), /** @type {any} */ (words)) };
}

const deleted = {
  time: '2026-12-07T05:00:00Z', kind: /** @type {const} */ ('warning'), partition: 0, topic: 'orders',
  key: 'error.unknownTopic', args: { topic: 'orders' }, text: 'Topic orders does not exist.',
};

test('a problem message says what and why, and marks the cells stale, in each language', () => {
  const tests = [
    { lang: 'en', want: ['orders', 'as it was when it could last be read'] },
    { lang: 'ko', want: ['orders', '마지막으로 읽을 수 있었을 때'] },
  ];
  for (const tt of tests) {
    useLanguage(tt.lang);
    const { els, n } = notice();
    n.problem(deleted);
    assert.equal(els.box.hidden, false, tt.lang);
    assert.equal(els.frame.dataset.stale, 'true', tt.lang);
    for (const w of tt.want) assert.ok(els.box.textContent.includes(w), `${tt.lang}: ${els.box.textContent} lacks ${w}`);
    assert.equal(els.status.dataset.state, 'stale');
  }
  useLanguage('en');
});

test('a problem on a log the page never read says it shows nothing yet', () => {
  useLanguage('en');
  const { els, n } = notice();
  n.problem(deleted, { empty: true });
  assert.match(els.box.textContent, /shows none of its records until it can be read/);
});

test('a problem without one clears the notice and the stale mark', () => {
  const { els, n } = notice();
  n.problem(deleted);
  n.problem(undefined);
  assert.equal(els.box.hidden, true);
  assert.equal(els.frame.dataset.stale, undefined);
  assert.equal(els.status.dataset.state, 'open');
  assert.equal(n.reason, null);
});

test('a key the catalogue does not know shows the server\'s English text', () => {
  const { els, n } = notice();
  n.problem({ ...deleted, key: ['error', 'unknownToThisCatalogue'].join('.'), text: 'Something new went wrong.' });
  assert.ok(els.box.textContent.startsWith('Something new went wrong.'), els.box.textContent);
});

test('a refused stream names the ACL and says the page stopped watching', () => {
  const { els, n } = notice();
  n.refused({
    message: 'user alice may not READ on topic payments',
    code: 'error.notAllowed',
    args: { user: 'alice', operation: 'READ', resource: 'topic', name: 'payments', code: 'TOPIC_AUTHORIZATION_FAILED' },
  });
  assert.match(els.box.textContent, /user alice may not READ on topic payments/);
  assert.match(els.box.textContent, /stopped watching/);
  assert.equal(els.status.dataset.state, 'refused');
  assert.equal(els.frame.dataset.stale, 'true');
  n.problem(undefined); // a stream's all-clear does not undo a refusal it never saw
  assert.equal(n.reason, 'refused');
});

test('a problem that is already shown is not shown twice', () => {
  const { els, n } = notice();
  n.problem(deleted);
  n.problem(deleted);
  assert.equal(els.box.children.length, 3);
});
