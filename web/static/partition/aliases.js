// aliases.js: the short names of a partition's producers (P1, P2 …), with
// no page around it. The server numbers them (the live feed, in the order
// of their first offset in the log) and sends the table to every viewer;
// this is that table on the page, the one source the cells, the story,
// the processor log and the transaction panel name producers from. A
// producer of ours that has not written to the partition yet — the one
// the page acted with last (a transaction just begun) — is named by the
// number it will get if it writes next, so "Begun — producer P4" and the cells its Send writes
// agree; once the server's table names it, that name stands.

/**
 * shortId keeps a producer id readable: the last four digits of a long one.
 * @param {number|string} id
 */
export function shortId(id) {
  const s = String(id);
  return s.length > 6 ? '…' + s.slice(-4) : s;
}

export class AliasTable {
  constructor() {
    /** @type {Map<string, string>} producer id -> alias, from the server */
    this.names = new Map();
    /** @type {string} the producer id our page acted with last */
    this.latest = '';
  }

  /** clear forgets the table (another partition opened). */
  clear() {
    this.names = new Map();
  }

  /**
   * set takes the server's table ([{producerId, alias}]), reporting
   * whether a name changed. Names the page already has are kept: the
   * server never renumbers while its feed runs.
   */
  set(list) {
    let changed = false;
    for (const p of list || []) {
      if (!p || p.producerId === undefined || p.producerId === null || !p.alias) continue;
      const id = String(p.producerId);
      if (this.names.get(id) !== p.alias) {
        this.names.set(id, p.alias);
        changed = true;
      }
    }
    return changed;
  }

  /** noteOurs notes the producer id our page acted with last. */
  noteOurs(id) {
    if (id === undefined || id === null || Number(id) < 0) return;
    this.latest = String(id);
  }

  /** alias is id's short name: the server's, else the next one if our page acted with it last, else ''. */
  alias(id) {
    if (id === undefined || id === null || Number(id) < 0) return '';
    const k = String(id);
    const known = this.names.get(k);
    if (known) return known;
    return k === this.latest ? 'P' + (this.names.size + 1) : '';
  }

  /** label is how a sentence names a producer: its alias, else a shortened id. */
  label(id) {
    return this.alias(id) || shortId(id);
  }
}
