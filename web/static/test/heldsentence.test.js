// @ts-check
// heldsentence.test.js: the words that name the transaction holding the
// LSO, and which abort the banner offers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { abortOf, durationArgs, heldSentence, sinceText } from '../partition/heldsentence.js';
import { render } from '../common/catalog.js';

const catalogue = {
  en: JSON.parse(readFileSync(new URL('../../../internal/catalog/en.json', import.meta.url), 'utf8')),
  ko: JSON.parse(readFileSync(new URL('../../../internal/catalog/ko.json', import.meta.url), 'utf8')),
};

/** english is a sentence ({key, args}) in English. */
const english = (s) => render(catalogue, 'en', s.key, s.args);

/** @type {any} an …/lso answer, as much of it as the sentence reads */
const hold = {
  topic: 'refunds', partition: 0, lastStableOffset: 300, highWatermark: 351, held: true, waiting: 50, waitingComplete: true,
  holder: { transactionalId: 'refund-worker-7', producerId: 'P2', producerEpoch: 0, startOffset: 300, state: 'Ongoing', ageMs: 125_000, timeoutMs: 60_000 },
};

test('durations read as minutes and seconds', () => {
  const tests = [
    { ms: 0, want: '0 s' }, { ms: 59_999, want: '59 s' }, { ms: 130_000, want: '2 min 10 s' }, { ms: 7_500_000, want: '2 h 5 min' },
  ];
  for (const tt of tests) assert.equal(render(catalogue, 'en', durationArgs(tt.ms).durationKey, durationArgs(tt.ms)), tt.want, `${tt.ms} ms`);
});

test('the banner names the transactional id, its age and timeout, and the records waiting', () => {
  // Read at 17:34:00 local time, 125 s after the transaction opened.
  const readAt = new Date(2026, 11, 7, 17, 34, 0).getTime();
  const { key, args } = heldSentence(hold, 5_000, undefined, readAt);
  const en = render(catalogue, 'en', key, args);
  assert.match(en, /^An open transaction refund-worker-7 \(producer P2, epoch 0\), open since 17:31:55 \(2 min 10 s of its 60 s timeout\), holds the LSO at 300: read_committed consumers wait; 50 records wait behind it\. read_uncommitted consumers read on to the HW, 351\.$/);
  const ko = render(catalogue, 'ko', key, args);
  assert.match(ko, /^열린 트랜잭션 refund-worker-7\(프로듀서 P2, 에포크 0\) 때문에 LSO가 300에 멈춰 있어요\(17:31:55부터, 열린 지 2분 10초, 제한 시간 60초\)\. read_committed 컨슈머는 기다려요\. 그 뒤에서 레코드 50개가 기다려요\./);
});

test('a hanging transaction is named by its producer; one record, or a count cut short, reads so', () => {
  const hanging = { ...hold, waiting: 1, holder: { ...hold.holder, transactionalId: '', state: '', timeoutMs: 0 } };
  assert.match(english(heldSentence(hanging, 0)), /^An open transaction \(producer P2, epoch 0\), open since \d\d:\d\d:\d\d \(2 min 5 s\), holds the LSO at 300: read_committed consumers wait; 1 record waits behind it\./);
  const none = { ...hold, waiting: 0 };
  assert.match(english(heldSentence(none, 0)), /holds the LSO at 300: read_committed consumers wait; no other record waits behind it\. read_uncommitted/);
  const cut = { ...hold, waitingComplete: false, holder: null };
  assert.match(english(heldSentence(cut, 0)), /^An open transaction holds the LSO at 300: read_committed consumers wait; at least 50 records wait behind it\./);
});

test('a transaction opened a day ago or more names its date', () => {
  const at = new Date(2026, 11, 6, 9, 5, 30).getTime();
  assert.equal(sinceText(at, 3_600_000), '09:05:30');
  assert.equal(sinceText(at, 90_000_000), '12-06 09:05');
});

test('the abort goes through the coordinator when an id has it Ongoing, else to the partition leader', () => {
  assert.equal(abortOf(hold).path, '/api/transactions/refund-worker-7/terminate');
  assert.equal(abortOf({ ...hold, holder: { ...hold.holder, transactionalId: '' } }).path, '/api/topics/refunds/partitions/0/transactions/300/abort');
  assert.equal(abortOf({ ...hold, held: false }), null);
});
