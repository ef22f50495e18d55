// @ts-check
// lanecounts.test.js: the lanes' counts under the log alone — what each
// consumer lane receives of the offsets counted, over the whole log or
// the rows on screen, and the window's range — over plain objects, no DOM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useCatalogue, useLanguage } from '../common/i18n.js';
import { EntryCache, PAGE } from '../partition/cache.js';
import { LaneCounts } from '../partition/lanecounts.js';

useCatalogue({
  en: JSON.parse(readFileSync(new URL('../../../internal/catalog/en.json', import.meta.url), 'utf8')),
  ko: JSON.parse(readFileSync(new URL('../../../internal/catalog/ko.json', import.meta.url), 'utf8')),
});
useLanguage('en');

/** node is the little of an element a count writes. */
const node = () => ({ textContent: '', /** @type {Record<string, any>} */ dataset: {} });

/** @type {(offset: number, txn: string, rc: boolean) => any} a partial entry: only what the lanes read */
const data = (offset, txn, rc) => ({ offset, kind: 'data', txn, readCommitted: rc, readUncommitted: true });

/**
 * view is a log [start, hw) with the given entries known, cols offsets a row.
 * @param {number} start
 * @param {number} hw
 * @param {any[]} entries
 * @param {number} [cols]
 */
function view(start, hw, entries, cols = 4) {
  const cache = new EntryCache(60);
  for (const e of entries) cache.put(e);
  return { pointers: { logStartOffset: start, lastStableOffset: hw, highWatermark: hw }, start, hw, cols, cache };
}

test('the lanes count what each receives of the offsets counted', () => {
  const committed = [0, 1, 2].map((o) => data(o, 'committed', true));
  const tests = [
    {
      name: 'a short log wholly known: the whole log',
      v: view(0, 3, committed), r0: 0, r1: 0,
      rc: 'read_committed receives 3 records of 3 offsets.',
      ru: 'read_uncommitted receives 3 records of 3 offsets (0–2, the whole log).',
      counts: { rc: 3, ru: 3, span: 3 },
    },
    {
      name: 'an aborted offset reaches read_uncommitted only',
      v: view(0, 2, [data(0, 'committed', true), data(1, 'aborted', false)]), r0: 0, r1: 0,
      rc: 'read_committed receives 1 record of 2 offsets.',
      ru: 'read_uncommitted receives 2 records of 2 offsets (0–1, the whole log).',
      counts: { rc: 1, ru: 2, span: 2 },
    },
    {
      name: 'a log not wholly known: the rows on screen, still loading',
      v: view(0, 8, [data(4, 'committed', true)]), r0: 1, r1: 1,
      rc: 'read_committed receives 1 record of 4 offsets, still loading.',
      ru: 'read_uncommitted receives 1 record of 4 offsets (4–7, on screen), still loading.',
      counts: { rc: 1, ru: 1, span: 4 },
    },
    {
      name: 'a long log: the rows on screen even when known',
      v: view(0, 3 * PAGE, Array.from({ length: 3 * PAGE }, (_, o) => data(o, 'committed', true))), r0: 0, r1: 0,
      rc: 'read_committed receives 4 records of 4 offsets.',
      ru: 'read_uncommitted receives 4 records of 4 offsets (0–3, on screen).',
      counts: { rc: 4, ru: 4, span: 4 },
    },
    {
      name: 'an empty log',
      v: view(5, 5, []), r0: 0, r1: 0,
      rc: 'read_committed receives 0 records of 0 offsets.',
      ru: 'read_uncommitted receives 0 records of 0 offsets (no offsets yet).',
      counts: { rc: 0, ru: 0, span: 0 },
    },
  ];
  for (const tt of tests) {
    const rc = node();
    const ru = node();
    new LaneCounts(rc, ru).show(tt.v, tt.r0, tt.r1);
    assert.equal(rc.textContent, tt.rc, tt.name + ': read_committed');
    assert.equal(ru.textContent, tt.ru, tt.name + ': read_uncommitted');
    assert.deepEqual({ rc: rc.dataset.received, ru: ru.dataset.received, span: rc.dataset.span }, tt.counts, tt.name + ': data');
  }
});

test('the window says the offsets on show of the whole log', () => {
  const w = node();
  new LaneCounts(node(), node(), w).show(view(2, 20, []), 1, 2);
  assert.equal(w.textContent, 'Showing offsets 6–13 of 2–20');
});
