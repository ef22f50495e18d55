// api.js: fetch() wrappers for Offset Lab's JSON API. Every failure becomes
// an ApiError carrying the API's own sentence, so a panel can show it next
// to the control that caused it. The API's error answers also name the
// sentence in the UI catalogue (code, with args for its {placeholders});
// errorText() shows it in the viewer's language, else the English sentence.

import { has, plain, t, tr } from './i18n.js';

// csrfToken is the teacher session's token in classroom mode (a meta tag
// only the teacher's page carries); state-changing calls send it back. Read
// when a call is made, not at import, so that node tests can import the
// modules that call the API.
const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content || '';

/**
 * ApiError is a failed API call: status 0 means the server did not answer.
 * message is the API's English sentence; code and args, when the API sent
 * them, name the same sentence in the UI catalogue ("error." keys).
 */
export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status; 0 when the server did not answer
   * @param {string} message the API's English sentence
   * @param {string} [code] its catalogue key
   * @param {Record<string, any>} [args] its placeholders' values
   */
  constructor(status, message, code, args) {
    super(message);
    this.status = status;
    if (code) this.code = code;
    if (args) this.args = args;
  }
}

/**
 * patiently runs an expensive read (the server takes a few at a time per
 * client: 429 or 503 with Retry-After when it is busy), waiting as asked and
 * trying again up to tries times. An abort ends the wait at once.
 * @param {() => Promise<any>} call
 * @param {AbortSignal} [signal]
 */
export async function patiently(call, signal, tries = 6) {
  for (let i = 1; ; i++) {
    try {
      return await call();
    } catch (err) {
      if (i >= tries || !(err.status === 429 || err.status === 503) || signal?.aborted) throw err;
      const wait = Math.min(5, Math.max(0.5, Number(err.retryAfter) || 1)) * 1000;
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, wait);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new DOMException('aborted', 'AbortError'));
        }, { once: true });
      });
    }
  }
}

/**
 * errorText is an error's sentence in the current language, else its English message.
 * @param {any} err an ApiError, or any thrown value
 * @returns {string}
 */
export function errorText(err) {
  if (!err) return '';
  if (err.code && has(err.code)) return t(err.code, err.args);
  return err.message || String(err);
}

/**
 * showErrorText puts err's sentence into node: a catalogue sentence is
 * marked (tr) so a language switch re-renders it; an English-only one is
 * plain text.
 * @param {HTMLElement} node
 * @param {any} err an ApiError, or any thrown value
 */
export function showErrorText(node, err) {
  if (err && err.code && has(err.code)) return tr(node, err.code, err.args);
  return plain(node, err ? err.message || String(err) : '');
}

/**
 * api sends a same-origin JSON request and returns the decoded answer.
 * @param {string} method
 * @param {string} path
 * @param {object} [body]
 * @param {AbortSignal} [signal]
 * @returns {Promise<any>} the answer: give it its type from types/wire.d.ts where it is read
 */
export async function api(method, path, body, signal) {
  const init = { method, headers: { Accept: 'application/json' }, signal };
  const csrf = method !== 'GET' && method !== 'HEAD' ? csrfToken() : '';
  if (csrf) init.headers['X-CSRF-Token'] = csrf;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError(0, 'The Offset Lab server did not answer (' + err.message + '). Is it still running?', 'error.noAnswer', { detail: err.message });
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = parseJSON(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    let err;
    if (data && typeof data.error === 'string') {
      const code = typeof data.code === 'string' ? data.code : undefined;
      const args = data.args && typeof data.args === 'object' ? data.args : undefined;
      err = new ApiError(res.status, data.error, code, args);
    } else {
      err = new ApiError(res.status, `The server answered ${res.status} ${res.statusText}.`, 'error.status', { status: res.status, statusText: res.statusText });
    }
    if (res.headers.has('Retry-After')) err.retryAfter = res.headers.get('Retry-After');
    throw err;
  }
  return data;
}

/**
 * partitionPath is the shareable page URL of a partition's log.
 * @param {string} topic
 * @param {number} partition
 */
export function partitionPath(topic, partition) {
  return `/topics/${encodeURIComponent(topic)}/partitions/${partition}`;
}

/**
 * apiPartition is the API prefix of a partition.
 * @param {string} topic
 * @param {number} partition
 */
export function apiPartition(topic, partition) {
  return `/api/topics/${encodeURIComponent(topic)}/partitions/${partition}`;
}

/**
 * fmt writes an offset or count the way a class reads it: 1,000,000.
 * @param {number|string} n
 * @returns {string}
 */
export function fmt(n) {
  return typeof n === 'number' ? n.toLocaleString('en-US') : String(n);
}

/**
 * parseJSON parses the API's JSON, keeping 64-bit integers that a JS number
 * cannot hold exactly (the embedded broker's 19-digit producer ids) as their
 * decimal text, where the browser offers the source text to the reviver.
 * @param {string} text
 * @returns {any}
 */
export function parseJSON(text) {
  // The reviver's third argument (the source text) is newer than TypeScript's lib.
  return JSON.parse(text, /** @type {any} */ ((key, value, context) => {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value) && context && typeof context.source === 'string') {
      return context.source;
    }
    return value;
  }));
}
