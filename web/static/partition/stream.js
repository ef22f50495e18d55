// stream.js: the partition's websocket stream (snapshot, entries,
// pointers, groups, events, broker status), reconnecting with backoff.
// The server may send a fresh snapshot at any time (a lagging viewer) and
// closes with 1008 when a viewer keeps lagging; both are handled by the
// caller resetting on every snapshot.

import { parseJSON } from '../common/api.js';

const MIN_DELAY = 500;
const MAX_DELAY = 10000;

export class Stream {
  /**
   * @param {(msg: import('../types/wire.js').Message) => void} onMessage
   * @param {(state: string, detail?: string, delay?: number) => void} onState the stream's state; while reconnecting, why and in how many ms
   */
  constructor(onMessage, onState) {
    this.onMessage = onMessage;
    this.onState = onState;
    this.gen = 0;
    this.ws = null;
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
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const url = `${scheme}://${location.host}/ws/topics/${encodeURIComponent(this.topic)}/partitions/${this.partition}`;
    let ws;
    try {
      ws = new WebSocket(url);
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
    const delay = Math.min(MAX_DELAY, MIN_DELAY * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt++;
    this.onState('reconnecting', why, delay);
    this.timer = setTimeout(() => {
      if (gen === this.gen) this.connect(gen);
    }, delay);
  }

  /** close stops the stream and any pending reconnect. */
  close() {
    this.gen++;
    clearTimeout(this.timer);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.onmessage = null;
      this.ws.close(1000);
      this.ws = null;
    }
    this.onState('idle');
  }
}
