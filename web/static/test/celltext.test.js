// @ts-check
// The words of a cell (partition/celltext.js) with the catalogue's own
// sentences: a key with a null value reads "tombstone" (툼스톤), a null
// value without a key "null value", as the Table names them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useCatalogue, useLanguage } from '../common/i18n.js';
import { isTombstone, valueText } from '../partition/celltext.js';

useCatalogue({
  en: JSON.parse(readFileSync(new URL('../../../internal/catalog/en.json', import.meta.url), 'utf8')),
  ko: JSON.parse(readFileSync(new URL('../../../internal/catalog/ko.json', import.meta.url), 'utf8')),
});

/** @returns {import('../types/wire.js').Entry} */
function entry(/** @type {Partial<import('../types/wire.js').Entry>} */ fields) {
  return /** @type {import('../types/wire.js').Entry} */ ({ offset: 6, kind: 'data', txn: 'none', key: null, value: null, ...fields });
}

test('a key with a null value is a tombstone, a null value alone is not', () => {
  useLanguage('en');
  const tombstone = entry({ key: 'kiwi' });
  assert.equal(isTombstone(tombstone), true);
  assert.equal(valueText(tombstone), 'tombstone');
  assert.equal(isTombstone(entry({})), false);
  assert.equal(valueText(entry({})), 'null value');
  assert.equal(isTombstone(entry({ key: 'kiwi', value: 'kiwi 50' })), false);
  assert.equal(isTombstone(entry({ kind: 'control', key: 'k' })), false);
  useLanguage('ko');
  assert.equal(valueText(tombstone), '툼스톤');
  useLanguage('en');
});
