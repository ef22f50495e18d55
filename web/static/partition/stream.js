// stream.js: the partition's websocket stream (snapshot, entries,
// pointers, groups, events, broker status), reconnecting with backoff.
// The server may send a fresh snapshot at any time (a lagging viewer) and
// closes with 1008 when a viewer keeps lagging; both are handled by the
// caller resetting on every snapshot. The socket and the timers come from
// a StreamEnv (the browser's by default), so a node test drives a Stream
// with fakes.

import { parseJSON } from '../common/api.js';

const MIN_DELAY = 500;
const MAX_DELAY = 10000;

/**
 * @typedef {object} SocketLike the little of a WebSocket a Stream uses
 * @property {((ev: {data: any}) => void)|null} onmessage
 * @property {((ev: {code: number}) => void)|null} onclose
 * @property {(code?: number) => void} close
 */

/**
 * @typedef {object} StreamEnv what a Stream needs of its surroundings
 * @property {(path: string) => SocketLike} open a websocket to path on this server
 * @property {(fn: () => void, ms: number) => any} setTimeout
 * @property {(timer: any) => void} clearTimeout
 * @property {() => number} random jitter in [0, 1)
 */

/** browserEnv is the page's own: a WebSocket to this host (wss under https) and window's timers. */
export function browserEnv() {
  return {
    open(path) {
      const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
      return new WebSocket(`${scheme}://${location.host}${path}`);
    },
    setTimeout: (fn, ms) => window.setTimeout(fn, ms),
    clearTimeout: (timer) => window.clearTimeout(timer),
    random: Math.random,
  };
}

export class Stream {
  /**
   * @param {(msg: import('../types/wire.js').Message) => void} onMessage
   * @param {(state: string, detail?: string, delay?: number) => void} onState the stream's state; while reconnecting, why and in how many ms
   * @param {StreamEnv} [env] the socket and timers (the browser's)
   */
  constructor(onMessage, onState, env = browserEnv()) {
    this.onMessage = onMessage;
    this.onState = onState;
    this.env = env;
    this.gen = 0;
    /** @type {SocketLike|null} */
    this.ws = null;
    /** @type {any} the pending reconnect's timer */
    this.timer = 0;
    this.attempt = 0;
  }

  /** open watches topic/partition, closing any earlier stream. */
  open(topic, partition) {
    this.close();
    this.topic = topic;
    this.partition = partition;
    this.attempt = 0;
    this.connect(this.gen);
  }

  connect(gen) {
    const path = `/ws/topics/${encodeURIComponent(this.topic)}/partitions/${this.partition}`;
    let ws;
    try {
      ws = this.env.open(path);
    } catch (err) {
      this.retry(gen, String(err));
      return;
    }
    this.ws = ws;
    this.onState(this.attempt === 0 ? 'connecting' : 'reconnecting');
    ws.onmessage = (ev) => {
      if (gen !== this.gen) return;
      let msg;
      try {
        msg = parseJSON(ev.data);
      } catch {
        return;
      }
      if (msg.type === 'snapshot') {
        this.attempt = 0;
        this.onState('open');
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (gen !== this.gen) return;
      this.ws = null;
      this.retry(gen, ev.code === 1008 ? 'the page fell behind the stream' : '');
    };
  }

  retry(gen, why) {
    const delay = Math.min(MAX_DELAY, MIN_DELAY * 2 ** this.attempt) * (0.8 + this.env.random() * 0.4);
    this.attempt++;
    this.onState('reconnecting', why, delay);
    this.timer = this.env.setTimeout(() => {
      if (gen === this.gen) this.connect(gen);
    }, delay);
  }

  /** close stops the stream and any pending reconnect. */
  close() {
    this.gen++;
    this.env.clearTimeout(this.timer);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.onmessage = null;
      this.ws.close(1000);
      this.ws = null;
    }
    this.onState('idle');
  }
}
