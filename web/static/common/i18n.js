// i18n.js: the dashboard's language. The server renders the page in English
// with data-i18n keys; setupI18n(), awaited by each page's entry module
// before it draws anything, loads the UI catalogue (../i18n/en.json and
// ../i18n/ko.json, versioned and cached like every static file). Nothing
// is fetched at import, so a module that shows sentences can be imported
// by a node test, which gives the catalogue with useCatalogue(). t() looks a key up in the current language; setLanguage()
// re-renders every element carrying data-i18n (its text) or data-i18n-attr
// ("aria-label:key;placeholder:key2"), with {placeholders} filled from
// data-i18n-args (JSON), sets <html lang>, remembers the choice in
// localStorage and tells listeners. The page has one language switch, in
// the masthead. How a sentence is filled in (placeholders, Korean
// particles) is catalog.js, which needs no page.

import { render, words as catalogWords } from './catalog.js';

export const LANGS = ['en', 'ko'];
const LANG_KEY = 'offsetlab.lang';

let lang = 'en';
const listeners = [];

/** @type {Record<string, Record<string, string>>} the sentences by language; empty until loaded */
let catalogue = {};

/**
 * loadCatalogues fetches both languages' sentences. A language that does
 * not load stays empty: the page stays in English, as the server rendered it.
 * @param {(url: URL) => Promise<{ok: boolean, json: () => Promise<any>}>} get
 */
async function loadCatalogues(get) {
  return Object.fromEntries(await Promise.all(LANGS.map(async (l) => {
    try {
      const res = await get(new URL(`../i18n/${l}.json`, import.meta.url));
      return [l, res.ok ? await res.json() : {}];
    } catch {
      return [l, {}];
    }
  })));
}

/**
 * useCatalogue sets the sentences by language ({en: {...}, ko: {...}}): a node test's catalogue.
 * @param {Record<string, Record<string, string>>} c
 */
export function useCatalogue(c) {
  catalogue = c;
}

/**
 * useLanguage switches t() to l without touching a page: for node tests.
 * @param {string} l
 */
export function useLanguage(l) {
  lang = LANGS.includes(l) ? l : 'en';
}

function load() {
  return catalogue;
}

function store() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: the page still works, it just forgets
  }
}

// resolvers turn an argument's value into what a sentence shows: a
// producer id into the open partition's short alias (producers.js).
const resolvers = {};

/**
 * resolveArg makes every sentence show the argument name through fn.
 * @param {string} name
 * @param {(value: any) => any} fn
 */
export function resolveArg(name, fn) {
  resolvers[name] = fn;
}

/**
 * t is the catalogue sentence key in the current language, placeholders filled.
 * @param {string} key
 * @param {Record<string, any>} [args] the placeholders' values
 * @returns {string}
 */
export function t(key, args) {
  return render(load(), lang, key, args, resolve);
}

/** resolve shows an argument through its resolver, if it has one. */
function resolve(name, value) {
  return resolvers[name] ? resolvers[name](value) : value;
}

/**
 * words is a structured value with its words in the current language (catalog.js's words).
 * @param {string} prefix
 * @param {any} v
 */
export function words(prefix, v) {
  return catalogWords(load(), lang, prefix, v);
}

/**
 * has reports whether the catalogue knows key.
 * @param {string} key
 */
export function has(key) {
  return !!load().en?.[key];
}

/** language is the current language code. */
export function language() {
  return lang;
}

/**
 * tr sets node's text to the translation of key and marks it, so a later
 * language switch re-renders it. Returns the node.
 * @template {HTMLElement} N
 * @param {N} node
 * @param {string} key
 * @param {Record<string, any>} [args] the placeholders' values
 * @returns {N}
 */
export function tr(node, key, args) {
  node.dataset.i18n = key;
  if (args) node.dataset.i18nArgs = JSON.stringify(args);
  else delete node.dataset.i18nArgs;
  node.textContent = t(key, args);
  return node;
}

/**
 * plain sets node's text to a value that needs no translation (a name, a number) and unmarks it.
 * @template {HTMLElement} N
 * @param {N} node
 * @param {string} text
 * @returns {N}
 */
export function plain(node, text) {
  delete node.dataset.i18n;
  delete node.dataset.i18nArgs;
  node.textContent = text;
  return node;
}

/**
 * trAttr sets an attribute to the translation of key and marks it.
 * @template {HTMLElement} N
 * @param {N} node
 * @param {string} attr
 * @param {string} key
 * @param {Record<string, any>} [args] the placeholders' values
 * @returns {N}
 */
export function trAttr(node, attr, key, args) {
  const specs = (node.dataset.i18nAttr || '').split(';').filter((s) => s && !s.startsWith(attr + ':'));
  specs.push(attr + ':' + key);
  node.dataset.i18nAttr = specs.join(';');
  if (args) node.dataset.i18nArgs = JSON.stringify(args);
  node.setAttribute(attr, t(key, args));
  return node;
}

/**
 * span is a new element whose text is key, re-rendered on a switch.
 * @param {string} key
 * @param {Record<string, any>} [args] the placeholders' values
 * @param {string} [tag]
 * @returns {HTMLElement}
 */
export function span(key, args, tag = 'span') {
  return tr(document.createElement(tag), key, args);
}

/**
 * apply re-renders every marked element under root.
 * @param {ParentNode} [root]
 */
export function apply(root = document) {
  const args = (n) => {
    try {
      return n.dataset.i18nArgs ? JSON.parse(n.dataset.i18nArgs) : undefined;
    } catch {
      return undefined;
    }
  };
  for (const n of root.querySelectorAll('[data-i18n]')) n.textContent = t(n.dataset.i18n, args(n));
  for (const n of root.querySelectorAll('[data-i18n-attr]')) {
    for (const spec of n.dataset.i18nAttr.split(';')) {
      const i = spec.indexOf(':');
      if (i > 0) n.setAttribute(spec.slice(0, i).trim(), t(spec.slice(i + 1).trim(), args(n)));
    }
  }
}

/**
 * onLanguage calls fn with the language after every switch.
 * @param {(lang: string) => void} fn
 */
export function onLanguage(fn) {
  listeners.push(fn);
}

/**
 * setLanguage switches the whole page and remembers the choice.
 * @param {string} l
 */
export function setLanguage(l) {
  if (!LANGS.includes(l)) l = 'en';
  lang = l;
  document.documentElement.lang = l;
  store()?.setItem(LANG_KEY, l);
  for (const b of document.querySelectorAll('.lang-switch button[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === l));
  apply(document);
  for (const fn of listeners) fn(l);
}

/** initialLanguage is the remembered choice, else the browser's, else English. */
export function initialLanguage() {
  const saved = store()?.getItem(LANG_KEY);
  if (LANGS.includes(saved)) return saved;
  return navigator.language?.toLowerCase().startsWith('ko') ? 'ko' : 'en';
}

/**
 * setupI18n loads the catalogue, wires every language switch on the page
 * and applies the initial language. Each page's entry module awaits it
 * before it draws.
 * @param {(url: URL) => Promise<{ok: boolean, json: () => Promise<any>}>} [get] how to fetch a catalogue file
 */
export async function setupI18n(get = (url) => fetch(url)) {
  catalogue = await loadCatalogues(get);
  for (const b of document.querySelectorAll('.lang-switch button[data-lang]')) {
    if (!b.dataset.i18nWired) {
      b.dataset.i18nWired = 'true';
      b.addEventListener('click', () => setLanguage(b.dataset.lang));
    }
  }
  setLanguage(initialLanguage());
}
