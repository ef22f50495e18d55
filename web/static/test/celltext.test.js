// @ts-check
// The words of a cell (partition/celltext.js) with the catalogue's own
// sentences: a key with a null value reads "tombstone" (툼스톤), a null
// value without a key "null value", as the Table names them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useCatalogue, useLanguage } from '../common/i18n.js';
import { describe, isTombstone, keyText, valueText } from '../partition/celltext.js';

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

test('a cell shows a data record\'s key before its value, shortened past 12 characters', () => {
  useLanguage('en');
  assert.equal(keyText(entry({ key: 'kiwi' })), 'kiwi');
  assert.equal(keyText(entry({ key: 'order-1001', value: 'event-1001' })), 'order-1001');
  assert.equal(keyText(entry({ key: '3fa85f64-5717-4562-b3fc-2c963f66afa6', value: 'x' })), '3fa85f64-57…');
  assert.equal(keyText(entry({ key: 'abc', keyTruncated: true, value: 'x' })), 'abc…');
  assert.equal(keyText(entry({ key: 'AAEC', keyEncoding: 'base64', value: 'x' })), 'binary key');
  assert.equal(keyText(entry({ value: 'x' })), '', 'no key, nothing before the value');
  assert.equal(keyText(entry({ kind: 'control', key: 'AAAAAA' })), '', 'a marker\'s key is not a record key');
  assert.match(describe(entry({ key: 'kiwi' })), /key kiwi, value tombstone$/);
  useLanguage('ko');
  assert.equal(keyText(entry({ key: 'AAEC', keyEncoding: 'base64', value: 'x' })), '바이너리 키');
  assert.match(describe(entry({ key: 'kiwi' })), /키 kiwi, 값 툼스톤$/);
  useLanguage('en');
});
