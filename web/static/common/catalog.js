// catalog.js: how a catalogue sentence is filled in, with no page around
// it — the same rules as Go's internal/catalog (Text, Particle), pinned to
// the same cases by internal/catalog/testdata/render_cases.json, which
// both test suites read. i18n.js loads the catalogue and keeps the
// current language; this module only renders.

// A placeholder is {name}, or {name|after consonant/after vowel} for a
// Korean particle chosen by the last syllable of the value. An argument
// "<name>Key" names another catalogue sentence that fills {name}.
const PLACEHOLDER = /\{(\w+)(?:\|([^/{}]*)\/([^{}]*))?\}/g;

/** endsInConsonant: does a Korean reader say s with a final consonant (받침)? */
export function endsInConsonant(s) {
  const v = String(s).replace(/[ .,'"’”)\]]+$/, '');
  if (!v) return false;
  const c = v.codePointAt(v.length - 1);
  if (c >= 0xac00 && c <= 0xd7a3) return (c - 0xac00) % 28 !== 0;
  const last = v[v.length - 1];
  if (last >= '0' && last <= '9') return '013678'.includes(last);
  return 'lmnrLMNR'.includes(last);
}

/** endsInRieul: does a Korean reader say s ending in ㄹ (as Go's endsInRieul)? */
export function endsInRieul(s) {
  const v = String(s).replace(/[ .,'"’”)\]]+$/, '');
  if (!v) return false;
  const c = v.codePointAt(v.length - 1);
  if (c >= 0xac00 && c <= 0xd7a3) return (c - 0xac00) % 28 === 8;
  const last = v[v.length - 1];
  if (last >= '0' && last <= '9') return '178'.includes(last);
  return 'lrLR'.includes(last);
}

/** particle is the form of a Korean particle after v, as Go's catalog.Particle:
 * 으로/로 takes 로 after ㄹ as well as after a vowel. */
export function particle(v, afterConsonant, afterVowel) {
  if (afterConsonant === '으로' && afterVowel === '로' && endsInRieul(v)) return afterVowel;
  return endsInConsonant(v) ? afterConsonant : afterVowel;
}

/**
 * sentence is key's sentence in lang, else in English; undefined when the
 * catalogue ({lang: {key: sentence}}) has neither.
 */
export function sentence(catalogue, lang, key) {
  return catalogue[lang]?.[key] ?? catalogue.en?.[key];
}

/**
 * fill replaces the placeholders of s with args in lang: a value from
 * args (shown through resolve(name, value) when given), or the sentence
 * args[name + 'Key'] names. A placeholder without a value stays as it is.
 */
export function fill(catalogue, lang, s, args, resolve) {
  return s.replace(PLACEHOLDER, (m, name, afterConsonant, afterVowel) => {
    let v;
    if (args && name in args) v = resolve ? String(resolve(name, args[name])) : String(args[name]);
    else if (args && args[name + 'Key'] && sentence(catalogue, 'en', args[name + 'Key']) !== undefined) {
      v = render(catalogue, lang, args[name + 'Key'], args, resolve);
    }
    if (v === undefined) return m;
    if (afterConsonant !== undefined) return particle(v, afterConsonant, afterVowel);
    return v;
  });
}

/** render is key's sentence in lang with its placeholders filled; key itself when the catalogue lacks it. */
export function render(catalogue, lang, key, args, resolve) {
  return fill(catalogue, lang, sentence(catalogue, lang, key) ?? key, args, resolve);
}
