// @ts-check
// aliases.test.js: the producers' short names (P1, P2 …) come from the
// server's table alone — the same on every page and after a reload,
// whatever order the page heard of the producers in — and a producer of
// ours that has not written yet is named by the number it will get.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AliasTable, shortId } from '../partition/aliases.js';

const server = [
  { producerId: 3071, alias: 'P1', firstOffset: 0 },
  { producerId: 3455, alias: 'P2', firstOffset: 4 },
];

test('names are the server table, whatever order the page learnt them in', () => {
  const a = new AliasTable();
  const b = new AliasTable();
  a.set(server);
  b.set([server[1]]); // a reload that heard of the later producer first
  b.set(server);
  for (const id of [3071, '3071', 3455]) assert.equal(a.alias(id), b.alias(id), `producer ${id}`);
  assert.equal(a.alias(3071), 'P1');
  assert.equal(a.alias('3455'), 'P2');
});

test('an unnamed producer is shown by a shortened id; none for no producer', () => {
  const a = new AliasTable();
  a.set(server);
  const tests = [
    { id: 1234567890123456789n, label: '…6789', alias: '' },
    { id: 42, label: '42', alias: '' },
    { id: -1, label: '-1', alias: '' },
    { id: null, label: 'null', alias: '' },
  ];
  for (const tt of tests) {
    assert.equal(a.alias(tt.id), tt.alias, String(tt.id));
    assert.equal(a.label(tt.id), tt.label, String(tt.id));
  }
  assert.equal(shortId('4000000000000003455'), '…3455');
});

test('our producer that has not written yet gets the next number, until the server names it', () => {
  const a = new AliasTable();
  a.set(server);
  a.noteOurs('9000000000000000001');
  assert.equal(a.label('9000000000000000001'), 'P3', 'Begun: the number its Send will get');
  assert.equal(a.alias('9000000000000000002'), '', 'only the producer we acted with last is predicted');
  // Someone else wrote first: the server's name stands.
  assert.equal(a.set([...server, { producerId: '9000000000000000002', alias: 'P3' }, { producerId: '9000000000000000001', alias: 'P4' }]), true);
  assert.equal(a.alias('9000000000000000001'), 'P4');
  assert.equal(a.set(server), false, 'a table that names nothing new changes nothing');
});

test('another partition starts with no names', () => {
  const a = new AliasTable();
  a.set(server);
  a.clear();
  assert.equal(a.alias(3071), '');
});
