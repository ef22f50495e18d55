// catalog.js: how a catalogue sentence is filled in, with no page around
// it — the same rules as Go's internal/catalog (Text, Particle), pinned to
// the same cases by internal/catalog/testdata/render_cases.json, which
// both test suites read. i18n.js loads the catalogue and keeps the
// current language; this module only renders.

// A placeholder is {name}, or {name|after consonant/after vowel} for a
// Korean particle chosen by the last syllable of the value. An argument
// "<name>Key" names another catalogue sentence that fills {name}.
// {name#one/other} is an English noun after a count (Go's catalog.Plural).
const PLACEHOLDER = /\{(\w+)(?:\|([^/{}]*)\/([^{}]*)|#([^/{}]*)\/([^{}]*))?\}/g;

// How a value ends when a Korean reader says it, as Go's finalSound
// (internal/catalog/reading.go) — the same rules, the same shared cases.
const VOWEL = 0;
const RIEUL = 1;
const CONSONANT = 2;
const TRAILING = /[ .,'"’”)\]]+$/;

/** withoutTrailingAside drops the marks and a parenthesised aside a reader does not say. */
function withoutTrailingAside(s) {
  let v = String(s);
  for (;;) {
    v = v.replace(/[ .,'"’”\]]+$/, '');
    if (!v.endsWith(')')) return v;
    v = v.slice(0, -1);
    const open = v.lastIndexOf('(');
    if (open >= 0 && v.slice(0, open).replace(TRAILING, '') !== '') v = v.slice(0, open);
  }
}

const isLetter = (c) => /^[A-Za-z]$/.test(c);
const isVowelLetter = (c) => 'aeiou'.includes(c);

function lastCamelPart(w) {
  for (let i = w.length - 1; i > 0; i--) {
    if (/[A-Z]/.test(w[i]) && /[a-z]/.test(w[i - 1])) return w.slice(i);
  }
  return w;
}

function digitSound(d) {
  if ('178'.includes(d)) return RIEUL;
  return '036'.includes(d) ? CONSONANT : VOWEL;
}

function letterSound(c) {
  const l = c.toLowerCase();
  if (l === 'l' || l === 'r') return RIEUL;
  return l === 'm' || l === 'n' ? CONSONANT : VOWEL;
}

function wordSound(w) {
  const n = w.length;
  const last = w[n - 1];
  const prev = w[n - 2];
  const shortVowelBefore = isVowelLetter(prev) && (n < 3 || !isVowelLetter(w[n - 3]));
  switch (last) {
    case 'm': case 'n': return CONSONANT;
    case 'l': return RIEUL;
    case 'g': return prev === 'n' ? CONSONANT : VOWEL;
    case 'p': case 'b': return isVowelLetter(prev) || prev === last ? CONSONANT : VOWEL;
    case 't': return shortVowelBefore || prev === 't' ? CONSONANT : VOWEL;
    case 'k': return shortVowelBefore || prev === 'c' ? CONSONANT : VOWEL;
    case 'c': return isVowelLetter(prev) ? CONSONANT : VOWEL;
    case 'e':
      if (prev === 'm' || prev === 'n') return CONSONANT;
      return prev === 'l' ? RIEUL : VOWEL;
    default: return VOWEL;
  }
}

/** finalSound: VOWEL, RIEUL or CONSONANT — how s ends read aloud in Korean (Go's finalSound). */
function finalSound(s) {
  const v = withoutTrailingAside(s);
  if (!v) return VOWEL;
  const c = v.codePointAt(v.length - 1);
  if (c >= 0xac00 && c <= 0xd7a3) {
    const f = (c - 0xac00) % 28;
    if (f === 0) return VOWEL;
    return f === 8 ? RIEUL : CONSONANT;
  }
  const last = v[v.length - 1];
  if (last >= '0' && last <= '9') return digitSound(last);
  if (!isLetter(last)) return VOWEL;
  let start = v.length;
  while (start > 0 && isLetter(v[start - 1])) start--;
  const word = lastCamelPart(v.slice(start));
  if (word.length === 1 || !/[aeiouy]/i.test(word) || (word.length <= 3 && word.toUpperCase() === word) ||
      (start > 0 && /[0-9]/.test(v[start - 1]))) {
    return letterSound(word[word.length - 1]);
  }
  return wordSound(word.toLowerCase());
}

/**
 * endsInConsonant: does a Korean reader say s with a final consonant (받침)?
 * @param {string} s
 */
export function endsInConsonant(s) {
  return finalSound(s) !== VOWEL;
}

/**
 * endsInRieul: does a Korean reader say s ending in ㄹ (as Go's endsInRieul)?
 * @param {string} s
 */
export function endsInRieul(s) {
  return finalSound(s) === RIEUL;
}

/** particle is the form of a Korean particle after v, as Go's catalog.Particle:
 * 으로/로 takes 로 after ㄹ as well as after a vowel. */
/**
 * @param {any} v
 * @param {string} afterConsonant
 * @param {string} afterVowel
 */
export function particle(v, afterConsonant, afterVowel) {
  if (afterConsonant === '으로' && afterVowel === '로' && endsInRieul(v)) return afterVowel;
  return endsInConsonant(v) ? afterConsonant : afterVowel;
}

/**
 * plural is one when the count n (as shown: "1", "1,000") is one, else other (Go's catalog.Plural).
 * @param {any} n
 * @param {string} one
 * @param {string} other
 */
export function plural(n, one, other) {
  return String(n).trim() === '1' ? one : other;
}

/**
 * dateTime is a moment as every page writes it, in any language: the
 * viewer's local time as 2026-12-01 19:55:21 (the transactions page
 * writes the same shape in UTC).
 * @param {number|string|Date} ms a time: milliseconds since the epoch, an ISO string or a Date
 */
export function dateTime(ms) {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * sentence is key's sentence in lang, else in English; undefined when the
 * catalogue ({lang: {key: sentence}}) has neither.
 * @param {Record<string, Record<string, string>>} catalogue the sentences by language
 * @param {string} lang
 * @param {string} key
 */
export function sentence(catalogue, lang, key) {
  return catalogue[lang]?.[key] ?? catalogue.en?.[key];
}

/**
 * fill replaces the placeholders of s with args in lang: a value from
 * args (shown through resolve(name, value) when given), or the sentence
 * args[name + 'Key'] names. A placeholder without a value stays as it is.
 * @param {Record<string, Record<string, string>>} catalogue the sentences by language
 * @param {string} lang
 * @param {string} s
 * @param {Record<string, any>} [args]
 * @param {(name: string, value: any) => any} [resolve]
 */
export function fill(catalogue, lang, s, args, resolve) {
  return s.replace(PLACEHOLDER, (m, name, afterConsonant, afterVowel, one, other) => {
    let v;
    if (args && name in args) v = resolve ? String(resolve(name, args[name])) : String(args[name]);
    else if (args && args[name + 'Key'] && sentence(catalogue, 'en', args[name + 'Key']) !== undefined) {
      v = render(catalogue, lang, args[name + 'Key'], args, resolve);
    }
    if (v === undefined) return m;
    if (one !== undefined) return plural(v, one, other);
    if (afterConsonant !== undefined) return particle(v, afterConsonant, afterVowel);
    return v;
  });
}

/**
 * words is v with each Latin word the catalogue holds as prefix + word in
 * lang replaced by that sentence (Go's catalog.Words): "0:aborted 1:ABORT"
 * reads "0:중단됨 1:ABORT" in Korean. A whole value the catalogue holds is one word.
 * @param {Record<string, Record<string, string>>} catalogue the sentences by language
 * @param {string} lang
 * @param {string} prefix
 * @param {any} v
 */
export function words(catalogue, lang, prefix, v) {
  const s = String(v);
  if (sentence(catalogue, 'en', prefix + s) !== undefined) return sentence(catalogue, lang, prefix + s);
  return s.replace(/[A-Za-z]+/g, (w) => (sentence(catalogue, 'en', prefix + w) !== undefined ? sentence(catalogue, lang, prefix + w) : w));
}

/**
 * render is key's sentence in lang with its placeholders filled; key itself when the catalogue lacks it.
 * @param {Record<string, Record<string, string>>} catalogue the sentences by language
 * @param {string} lang
 * @param {string} key
 * @param {Record<string, any>} [args]
 * @param {(name: string, value: any) => any} [resolve]
 * @returns {string}
 */
export function render(catalogue, lang, key, args, resolve) {
  return fill(catalogue, lang, sentence(catalogue, lang, key) ?? key, args, resolve);
}
