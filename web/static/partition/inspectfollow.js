// inspectfollow.js: off the lab (a real cluster, no lesson running; the
// server marks the Inspect tab's forms data-follow="true"), the Inspect
// tab follows the partition on show instead of naming the lab's
// order-totals-app and totals-tx: the coordinator box asks about the
// transactional id that holds the partition's LSO (GET …/lso, the banner's
// holder), the group box about the group furthest behind on the partition
// (the live stream's committed offsets). A field the reader typed in stays
// theirs until the next partition.

/**
 * @typedef {{group: string, committed: number}} PartitionGroupOffset
 * @typedef {{reset: (topic: string, partition: number) => void,
 *            groups: (list: PartitionGroupOffset[]) => void,
 *            pointers: (p: {lastStableOffset: number, highWatermark: number}) => void}} InspectFollow
 */

/** pickGroup is the group furthest behind (lowest committed offset), by name on ties. */
export function pickGroup(list) {
  let best = null;
  for (const g of list || []) {
    if (!g || !g.group) continue;
    if (!best || g.committed < best.committed || (g.committed === best.committed && g.group < best.group)) best = g;
  }
  return best ? best.group : '';
}

/**
 * setupInspectFollow wires the follow; a page whose forms do not follow
 * gets a follower that does nothing.
 * @param {{readHold: (topic: string, partition: number) => Promise<{holder?: {transactionalId?: string}}>}} deps
 *   readHold reads the partition's LSO hold (GET …/lso)
 * @returns {InspectFollow}
 */
export function setupInspectFollow({ readHold }) {
  const coordForm = /** @type {HTMLFormElement|null} */ (document.getElementById('coord-form'));
  const groupForm = /** @type {HTMLFormElement|null} */ (document.getElementById('group-form'));
  if (!coordForm || !groupForm || coordForm.dataset.follow !== 'true') {
    return { reset() {}, groups() {}, pointers() {} };
  }
  const coord = /** @type {HTMLInputElement} */ (document.getElementById('coord-id'));
  const group = /** @type {HTMLInputElement} */ (document.getElementById('group-id'));
  const typed = { coord: false, group: false };
  coord.addEventListener('input', () => { typed.coord = true; });
  group.addEventListener('input', () => { typed.group = true; });
  let where = '';
  let heldAt = '';

  // fill sets a field the reader has not typed in and asks its box.
  function fill(input, form, name, value) {
    if (typed[name] || !value || input.value === value) return;
    input.value = value;
    form.requestSubmit();
  }

  async function readHolder(topic, partition, key) {
    try {
      const h = await readHold(topic, partition);
      if (where !== `${topic}/${partition}` || heldAt !== key) return;
      fill(coord, coordForm, 'coord', h.holder?.transactionalId || '');
    } catch {
      // The banner says why the LSO's holder is unknown; the box waits.
    }
  }

  return {
    reset(topic, partition) {
      where = `${topic}/${partition}`;
      heldAt = '';
      typed.coord = typed.group = false;
      coordForm.dataset.topic = groupForm.dataset.topic = topic;
    },
    groups(list) {
      fill(group, groupForm, 'group', pickGroup(list));
    },
    pointers(p) {
      if (!p || !where || p.lastStableOffset >= p.highWatermark) return;
      const key = `${p.lastStableOffset}`;
      if (key === heldAt) return;
      heldAt = key;
      const [topic, partition] = [where.slice(0, where.lastIndexOf('/')), Number(where.slice(where.lastIndexOf('/') + 1))];
      readHolder(topic, partition, key);
    },
  };
}
