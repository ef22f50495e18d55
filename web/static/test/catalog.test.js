// catalog.test.js: the page fills sentences as Go's internal/catalog
// does, case for case — both read internal/catalog/testdata/render_cases.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { endsInConsonant, fill, particle, render, words } from '../common/catalog.js';

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
