// @ts-check
// catalog.test.js: the page fills sentences as Go's internal/catalog
// does, case for case — both read internal/catalog/testdata/render_cases.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dateTime, endsInConsonant, fill, particle, plural, render, words } from '../common/catalog.js';

const catalogDir = new URL('../../../internal/catalog/', import.meta.url);
const readJSON = (name) => JSON.parse(readFileSync(new URL(name, catalogDir), 'utf8'));
const cases = readJSON('testdata/render_cases.json');
const catalogue = { en: readJSON('en.json'), ko: readJSON('ko.json') };

test('the shared table has every section', () => {
  for (const section of ['particles', 'sentences', 'words', 'keys']) assert.ok(cases[section].length > 0, section);
});

test('particles follow the last character as a Korean reader says it', () => {
  for (const c of cases.particles) {
    assert.equal(particle(c.value, c.afterConsonant, c.afterVowel), c.want, `particle(${JSON.stringify(c.value)}, ${c.afterConsonant}, ${c.afterVowel})`);
  }
});

test('sentences are filled as Go fills them', () => {
  for (const c of cases.sentences) {
    assert.equal(fill(catalogue, c.lang, c.sentence, c.args), c.want, `${c.lang}: ${c.sentence}`);
  }
});

test('a structured value takes its words from the catalogue as Go does', () => {
  for (const c of cases.words) {
    assert.equal(words(catalogue, c.lang, c.prefix, c.value), c.want, `${c.lang}: ${c.value}`);
  }
});

test('catalogue keys render as Go renders them', () => {
  for (const c of cases.keys) {
    assert.equal(render(catalogue, c.lang, c.key, c.args), c.want, `${c.lang}: ${c.key}`);
  }
});

test('a resolver shows an argument its own way', () => {
  const got = fill(catalogue, 'en', 'producer {producerId} wrote', { producerId: '7' }, (name, v) => (name === 'producerId' ? `P${v}` : v));
  assert.equal(got, 'producer P7 wrote');
});

test('a Korean reader says a number by its last digit', () => {
  const consonant = [...'0123456789'].filter((d) => endsInConsonant(`p-${d}`));
  assert.deepEqual(consonant, ['0', '1', '3', '6', '7', '8']);
});

test('an English noun after a count is singular for one only', () => {
  assert.equal(plural('1', 'offset', 'offsets'), 'offset');
  for (const n of ['0', '2', '1,000', '11', '-1']) assert.equal(plural(n, 'offset', 'offsets'), 'offsets', n);
  assert.equal(render(catalogue, 'en', 'topicsPage.partitions', { count: '1' }), '1 partition');
  assert.equal(render(catalogue, 'en', 'topicsPage.partitions', { count: '2' }), '2 partitions');
});

test('no English sentence says "(s)" or "1 offsets"', () => {
  for (const [key, s] of Object.entries(catalogue.en)) {
    assert.ok(!/\w\(s\)/.test(s), `${key}: ${s}`);
  }
});

test('one date format on every page and in every language', () => {
  const ms = new Date(2026, 11, 1, 19, 55, 21).getTime();
  assert.equal(dateTime(ms), '2026-12-01 19:55:21');
  assert.equal(dateTime(new Date(2026, 0, 12, 8, 3, 6).getTime()), '2026-01-12 08:03:06');
  assert.equal(dateTime(NaN), '');
});
