// @ts-check
// logpointers.test.js: the pointer flags over the log's cells, alone —
// which pointers share an offset, and how many lines the flags take when
// they are measured by a fake (10 px a character), no canvas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useCatalogue, useLanguage } from '../common/i18n.js';
import { flagMap, PointerFlags } from '../partition/logpointers.js';

useCatalogue({
  en: JSON.parse(readFileSync(new URL('../../../internal/catalog/en.json', import.meta.url), 'utf8')),
  ko: JSON.parse(readFileSync(new URL('../../../internal/catalog/ko.json', import.meta.url), 'utf8')),
});
useLanguage('en');

test('flagMap groups the pointers by the offset they point at', () => {
  const m = flagMap({ logStartOffset: 0, lastStableOffset: 3, highWatermark: 3 }, [{ group: 'g', committed: 0 }]);
  assert.deepEqual([...m.keys()], [0, 3]);
  assert.deepEqual(m.get(0)?.map((f) => f.id), ['logstart', 'group:g']);
  assert.deepEqual(m.get(3)?.map((f) => [f.id, f.label, f.value]), [['lso', 'LSO', 3], ['hw', 'HW', 3]]);
});

test('PointerFlags says when the flags\' lines change', () => {
  /** @type {string[]} */
  const fonts = [];
  const flags = new PointerFlags((font, label) => {
    fonts.push(font);
    return label.length * 10;
  });
  const grid = { start: 0, cols: 5, slotW: 60, font: '600 12px sans', pad: 0 };
  const p = (/** @type {number} */ lso, /** @type {number} */ hw) => ({ logStartOffset: 0, lastStableOffset: lso, highWatermark: hw });

  assert.equal(flags.layout(flagMap(p(2, 3), []), grid), false, 'one line, as before');
  assert.equal(flags.lines, 1);
  assert.deepEqual([...flags.room], [[0, 2 * 60 - 4], [2, 56], [3, 2 * 60 - 4]]);
  assert.equal(fonts[0], '600 12px sans');

  // LSO and HW on the row's last slot: no room to their right.
  assert.equal(flags.layout(flagMap(p(4, 4), []), grid), true, 'two lines now');
  assert.equal(flags.lines, 2);
  assert.equal(flags.layout(flagMap(p(4, 4), []), grid), false, 'still two');

  // A group's long name before a pointed slot shows its short label.
  flags.layout(flagMap(p(2, 2), [{ group: 'a-rather-long-group', committed: 1 }]), grid);
  assert.deepEqual([...flags.short], ['group:a-rather-long-group']);

  assert.equal(flags.layout(flagMap(p(4, 4), []), { ...grid, font: '' }), false, 'nothing measured before a row of cells was');
});
