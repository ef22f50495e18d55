// inspectfollow.test.js: off the lab the Inspect tab's group box names the
// group furthest behind on the partition on show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickGroup } from '../partition/inspectfollow.js';

test('the group furthest behind, by name on ties; none without groups', () => {
  const cases = [
    { list: [], want: '' },
    { list: undefined, want: '' },
    { list: [{ group: 'payments-reader', committed: 4810 }, { group: 'audit', committed: 215 }], want: 'audit' },
    { list: [{ group: 'b', committed: 7 }, { group: 'a', committed: 7 }], want: 'a' },
    { list: [{ group: '', committed: 0 }, { group: 'only', committed: 9 }], want: 'only' },
  ];
  for (const c of cases) assert.equal(pickGroup(c.list), c.want, JSON.stringify(c.list));
});
