package inspect

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka's share coordinator (KIP-932) keeps every share group's delivery
// state in the internal topic __share_group_state: per share-partition a
// ShareSnapshot record (the whole state) followed by ShareUpdate records
// (what changed), keyed by group, topic id and partition. Who holds a
// record and until when is not written there: acquisition locks live in
// the partition leader's memory. Kafka 4.3.1 writes acknowledgements,
// releases, archivals and expired locks (as Available, Acknowledged or
// Archived with their delivery counts), not deliveries, and moves the
// persisted start offset lazily (measured: docs/divergences.md).

// ShareStateTopic is Kafka's share-group state topic.
const ShareStateTopic = "__share_group_state"

// ShareStateBudget bounds the bytes PersistedShareState reads from the
// state topic's partition. The coordinator snapshots a share-partition
// every few hundred updates and prunes what the snapshot replaces, so a
// partition holds far less; a read that reaches the budget says so
// (PersistedShareState.Truncated) and keeps what it replayed.
const ShareStateBudget = 16 << 20

// MaxSettledShareOffsets bounds how far below the start offset
// PersistedShareState keeps settled runs.
const MaxSettledShareOffsets = 1000

// Delivery states as the share coordinator writes them.
const (
	ShareStateAvailable    int8 = 0
	ShareStateAcknowledged int8 = 2
	ShareStateArchived     int8 = 4
)

// ShareStateBatch is a run of offsets with one persisted delivery state
// and delivery count.
type ShareStateBatch struct {
	FirstOffset   int64 `json:"firstOffset"`
	LastOffset    int64 `json:"lastOffset"`
	DeliveryState int8  `json:"deliveryState"`
	DeliveryCount int16 `json:"deliveryCount"`
}

// PersistedShareState is one share-partition's state as replayed from the
// state topic: the last snapshot with every later update applied.
type PersistedShareState struct {
	// Found is false when the state topic holds no record of it.
	Found bool
	// StateEpoch is the snapshot's state epoch; StartOffset the
	// share-partition start offset written last.
	StateEpoch  int32
	StartOffset int64
	// Batches are the persisted runs at or above StartOffset, ascending
	// and disjoint.
	Batches []ShareStateBatch
	// Settled are the runs the replay saw written below a start offset
	// that later moved past them (at most MaxSettledShareOffsets below
	// StartOffset), ascending and disjoint: the final state of records
	// a group finished, which Batches no longer holds.
	Settled []ShareStateBatch
	// Records is how many state records of this share-partition were
	// replayed; StatePartition the state topic's partition read.
	Records        int
	StatePartition int32
	// Truncated says the read stopped at ShareStateBudget before the
	// end of the state topic's partition.
	Truncated bool
}

// PersistedShareState reads what Kafka's share coordinator wrote for
// group on topic/partition: the state topic's partition the coordinator
// hashes the share-partition to, from its log start offset to its high
// watermark (at most ShareStateBudget bytes), replaying snapshots and
// updates. A broker without the state topic (the embedded one) answers
// Found false.
//
// Cost: two Metadata requests, two ListOffsets and one Fetch per
// Inspector.FetchBytes of the state partition.
func (i *Inspector) PersistedShareState(ctx context.Context, group, topic string, partition int32) (PersistedShareState, error) {
	var out PersistedShareState
	data, err := i.locate(ctx, topic, partition)
	if err != nil {
		return out, err
	}
	partitions, err := i.partitionCount(ctx, ShareStateTopic)
	if err != nil || partitions == 0 {
		return out, err
	}
	out.StatePartition = ShareStatePartition(group, data.topicID, partition, partitions)
	ref, err := i.locate(ctx, ShareStateTopic, out.StatePartition)
	if err != nil {
		return out, err
	}
	ptrs, err := i.pointers(ctx, &ref)
	if err != nil {
		return out, err
	}
	key := shareStateKey{group: group, topicID: data.topicID, partition: partition}
	read := int64(0)
	for next := ptrs.LogStartOffset; next < ptrs.HighWatermark; {
		if read >= ShareStateBudget {
			out.Truncated = true
			break
		}
		sp, err := i.fetch(ctx, &ref, next, false, i.fetchBytes())
		if err != nil {
			return out, err
		}
		read += int64(len(sp.RecordBatches))
		moved := false
		for raw := sp.RecordBatches; ; {
			b, rest, complete, err := splitBatch(raw)
			if err != nil {
				return out, err
			}
			if !complete {
				break
			}
			raw = rest
			if b.LastOffset < next {
				continue
			}
			next, moved = b.LastOffset+1, true
			if b.Magic != 2 || b.control() {
				continue
			}
			if err := i.replayShareBatch(&b, key, &out); err != nil {
				return out, err
			}
		}
		if !moved {
			break
		}
	}
	return out, nil
}

// fetchBytes is the size of one raw fetch.
func (i *Inspector) fetchBytes() int32 {
	if i.FetchBytes > 0 {
		return i.FetchBytes
	}
	return DefaultFetchBytes
}

// partitionCount is how many partitions topic has; 0 when it does not
// exist.
func (i *Inspector) partitionCount(ctx context.Context, topic string) (int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, i.client)
	if err != nil {
		return 0, fmt.Errorf("inspect: metadata %s: %w", topic, err)
	}
	if len(resp.Topics) != 1 {
		return 0, nil
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
		if errors.Is(err, kerr.UnknownTopicOrPartition) {
			return 0, nil
		}
		return 0, fmt.Errorf("inspect: metadata %s: %w", topic, err)
	}
	return int32(len(resp.Topics[0].Partitions)), nil
}

// ShareStatePartition is the partition of the state topic (of partitions
// partitions) that holds group's state on the partition of topicID: Kafka
// hashes "group:topicId:partition" with Java's String.hashCode (the topic
// id as Kafka prints it, URL-safe base64 without padding) and takes its
// absolute value (Utils.abs: 0 for the smallest int) modulo partitions.
func ShareStatePartition(group string, topicID [16]byte, partition, partitions int32) int32 {
	key := group + ":" + base64.RawURLEncoding.EncodeToString(topicID[:]) + ":" + strconv.Itoa(int(partition))
	var h int32
	for _, c := range utf16(key) {
		h = 31*h + int32(c)
	}
	return javaAbs(h) % partitions
}

// javaAbs is Kafka's Utils.abs.
func javaAbs(n int32) int32 {
	switch {
	case n == math.MinInt32:
		return 0
	case n < 0:
		return -n
	}
	return n
}

// utf16 is s as the UTF-16 code units Java's String.hashCode walks.
func utf16(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}

// shareStateKey is the share-partition whose records a replay keeps.
type shareStateKey struct {
	group     string
	topicID   [16]byte
	partition int32
}

// replayShareBatch applies the state records of one batch that belong to
// key.
func (i *Inspector) replayShareBatch(b *rawBatch, key shareStateKey, out *PersistedShareState) error {
	src, err := i.codecs.Decompress(b.codec(), b.Records)
	if err != nil {
		return err
	}
	records := &recordReader{src: src}
	for range b.NumRecords {
		rec, err := records.next()
		if err != nil {
			return fmt.Errorf("inspect: %s: %w", ShareStateTopic, err)
		}
		kind, ok := decodeShareStateKey(rec.Key, key)
		if !ok {
			continue
		}
		out.Found = true
		out.Records++
		if rec.Value == nil { // a tombstone: the group's state was deleted
			out.StartOffset, out.Batches, out.Settled = -1, nil, nil
			continue
		}
		v, err := decodeShareStateValue(kind, rec.Value)
		if err != nil {
			return fmt.Errorf("inspect: %s: %w", ShareStateTopic, err)
		}
		if kind == shareSnapshot {
			out.StateEpoch, out.StartOffset, out.Batches = v.stateEpoch, v.startOffset, v.batches
			continue
		}
		if v.startOffset >= 0 {
			out.StartOffset = v.startOffset
		}
		for _, nb := range v.batches {
			out.Batches = overlay(out.Batches, nb)
		}
		out.settle()
	}
	return nil
}

// Record kinds of the state topic (the key's version field).
const (
	shareSnapshot int16 = 0
	shareUpdate   int16 = 1
)

// decodeShareStateKey reads a state record's key (version int16, then
// group string, topic id, partition int32; not flexible) and reports
// whether it is a snapshot or update of key.
func decodeShareStateKey(raw []byte, key shareStateKey) (int16, bool) {
	if len(raw) < 4 {
		return 0, false
	}
	kind := int16(binary.BigEndian.Uint16(raw))
	if kind != shareSnapshot && kind != shareUpdate {
		return 0, false
	}
	n := int(int16(binary.BigEndian.Uint16(raw[2:])))
	rest := raw[4:]
	if n < 0 || len(rest) != n+16+4 {
		return 0, false
	}
	if string(rest[:n]) != key.group || [16]byte(rest[n:n+16]) != key.topicID {
		return 0, false
	}
	return kind, int32(binary.BigEndian.Uint32(rest[n+16:])) == key.partition
}

// shareStateValue is what a snapshot or update says.
type shareStateValue struct {
	stateEpoch  int32
	startOffset int64
	batches     []ShareStateBatch
}

// decodeShareStateValue reads a ShareSnapshotValue or ShareUpdateValue
// (version int16, then flexible fields: epochs, start offset, the
// timestamps of a snapshot, a compact array of state batches, tagged
// fields).
func decodeShareStateValue(kind int16, raw []byte) (shareStateValue, error) {
	r := flexReader{src: raw}
	var v shareStateValue
	r.int16() // version 0
	r.int32() // snapshot epoch
	if kind == shareSnapshot {
		v.stateEpoch = r.int32()
	}
	r.int32() // leader epoch
	v.startOffset = r.int64()
	if kind == shareSnapshot {
		r.int64() // create timestamp
		r.int64() // write timestamp
	}
	n := r.uvarint()
	if r.err == nil && (n == 0 || n-1 > uint64(len(r.src))/19) {
		r.err = fmt.Errorf("%d state batches in %d bytes", int64(n)-1, len(r.src))
	}
	for range max(int(n)-1, 0) {
		if r.err != nil {
			break
		}
		b := ShareStateBatch{FirstOffset: r.int64(), LastOffset: r.int64(), DeliveryState: int8(r.int8()), DeliveryCount: r.int16()}
		r.tags()
		v.batches = append(v.batches, b)
	}
	r.tags()
	slices.SortFunc(v.batches, func(a, b ShareStateBatch) int { return int(min(max(a.FirstOffset-b.FirstOffset, -1), 1)) })
	return v, r.err
}

// overlay writes nb over the disjoint ascending batches bs, cutting what
// it covers.
func overlay(bs []ShareStateBatch, nb ShareStateBatch) []ShareStateBatch {
	out := make([]ShareStateBatch, 0, len(bs)+2)
	for _, b := range bs {
		if b.LastOffset < nb.FirstOffset || b.FirstOffset > nb.LastOffset {
			out = append(out, b)
			continue
		}
		if b.FirstOffset < nb.FirstOffset {
			left := b
			left.LastOffset = nb.FirstOffset - 1
			out = append(out, left)
		}
		if b.LastOffset > nb.LastOffset {
			right := b
			right.FirstOffset = nb.LastOffset + 1
			out = append(out, right)
		}
	}
	out = append(out, nb)
	slices.SortFunc(out, func(a, b ShareStateBatch) int { return int(min(max(a.FirstOffset-b.FirstOffset, -1), 1)) })
	return out
}

// settle moves what lies below the start offset from Batches to Settled,
// and forgets what lies MaxSettledShareOffsets below it.
func (s *PersistedShareState) settle() {
	for _, b := range s.Batches {
		if b.FirstOffset >= s.StartOffset {
			break
		}
		b.LastOffset = min(b.LastOffset, s.StartOffset-1)
		s.Settled = overlay(s.Settled, b)
	}
	s.Batches = trimBelow(s.Batches, s.StartOffset)
	s.Settled = trimBelow(s.Settled, s.StartOffset-MaxSettledShareOffsets)
}

// trimBelow drops what lies below start.
func trimBelow(bs []ShareStateBatch, start int64) []ShareStateBatch {
	out := bs[:0]
	for _, b := range bs {
		if b.LastOffset < start {
			continue
		}
		b.FirstOffset = max(b.FirstOffset, start)
		out = append(out, b)
	}
	return out
}

// flexReader reads Kafka's fixed-width and flexible encodings; the first
// failure sticks.
type flexReader struct {
	src []byte
	err error
}

func (r *flexReader) take(n int) []byte {
	if r.err != nil {
		return make([]byte, n)
	}
	if len(r.src) < n {
		r.err = fmt.Errorf("value ends %d bytes short", n-len(r.src))
		return make([]byte, n)
	}
	b := r.src[:n]
	r.src = r.src[n:]
	return b
}

func (r *flexReader) int8() byte   { return r.take(1)[0] }
func (r *flexReader) int16() int16 { return int16(binary.BigEndian.Uint16(r.take(2))) }
func (r *flexReader) int32() int32 { return int32(binary.BigEndian.Uint32(r.take(4))) }
func (r *flexReader) int64() int64 { return int64(binary.BigEndian.Uint64(r.take(8))) }
func (r *flexReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.src)
	if n <= 0 {
		r.err = errors.New("bad unsigned varint")
		return 0
	}
	r.src = r.src[n:]
	return v
}

// tags skips a tagged-field section.
func (r *flexReader) tags() {
	for range r.uvarint() {
		if r.err != nil {
			return
		}
		r.uvarint() // tag
		size := r.uvarint()
		if size > uint64(len(r.src)) {
			r.err = fmt.Errorf("tagged field of %d bytes in %d", size, len(r.src))
			return
		}
		r.take(int(size))
	}
}
