// @ts-check
// The live stream (partition/stream.js) with a fake socket and fake
// timers: it says when it is open, reconnects with a growing delay after
// a close, and a close() stops it for good — the page relies on that to
// stop reconnecting to a partition this user may not read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Stream } from '../partition/stream.js';

/** harness is a Stream over fakes, with what it told the page. */
function harness() {
  /** @type {{path: string, sock: any}[]} */
  const opened = [];
  /** @type {{fn: () => void, ms: number, cleared: boolean}[]} */
  const timers = [];
  /** @type {any[]} */
  const messages = [];
  /** @type {{state: string, why?: string, delay?: number}[]} */
  const states = [];
  const env = {
    open(path) {
      const sock = { onmessage: null, onclose: null, closed: /** @type {number|null} */ (null), close(code) { this.closed = code ?? 1000; } };
      opened.push({ path, sock });
      return sock;
    },
    setTimeout(fn, ms) {
      timers.push({ fn, ms, cleared: false });
      return timers.length - 1;
    },
    clearTimeout(i) {
      if (timers[i]) timers[i].cleared = true;
    },
    random: () => 0.5,
  };
  const s = new Stream((m) => messages.push(m), (state, why, delay) => states.push({ state, why, delay }), env);
  const last = () => opened[opened.length - 1].sock;
  return { s, opened, timers, messages, states, last };
}

test('a snapshot opens the stream and every message reaches the page', () => {
  const h = harness();
  h.s.open('orders/eu', 2);
  assert.equal(h.opened[0].path, '/ws/topics/orders%2Feu/partitions/2');
  h.last().onmessage({ data: '{"type":"snapshot","topic":"orders/eu","partition":2}' });
  h.last().onmessage({ data: 'not json' });
  h.last().onmessage({ data: '{"type":"entries","topic":"orders/eu","partition":2,"entries":[]}' });
  assert.deepEqual(h.messages.map((m) => m.type), ['snapshot', 'entries']);
  assert.deepEqual(h.states.map((x) => x.state), ['idle', 'connecting', 'open']);
});

test('a closed socket is reopened after a delay that doubles, up to 10 s', () => {
  const h = harness();
  h.s.open('orders', 0);
  const delays = [];
  for (let i = 0; i < 7; i++) {
    h.last().onclose({ code: 1006 });
    const timer = h.timers[h.timers.length - 1];
    delays.push(timer.ms);
    timer.fn();
  }
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000, 10000, 10000]);
  assert.equal(h.opened.length, 8);
  assert.equal(h.states[h.states.length - 1].state, 'reconnecting');
});

test('a viewer closed for lagging is told why', () => {
  const h = harness();
  h.s.open('orders', 0);
  h.last().onclose({ code: 1008 });
  assert.equal(h.states[h.states.length - 1].why, 'the page fell behind the stream');
});

test('close stops the stream and its pending reconnect', () => {
  const h = harness();
  h.s.open('payments', 0);
  h.last().onclose({ code: 1006 });
  h.s.close();
  const timer = h.timers[h.timers.length - 1];
  assert.equal(timer.cleared, true);
  timer.fn(); // a timer that fires anyway opens nothing
  assert.equal(h.opened.length, 1);
  assert.equal(h.states[h.states.length - 1].state, 'idle');
});
