package kfake

import (
	"net"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Storage accounting and the storage hook (Offset Lab patch, see
// PATCHES.md). kfake stores whatever it is sent: nothing bounds its disk
// (retention applies only to topics that set it) nor the in-memory index
// it keeps for every stored batch. StorageUsage says what the cluster
// holds (EachTopicStorage, per topic), and StorageHook lets the embedder
// refuse a produced batch before it is stored — a budget — and map a
// failed segment write (a full disk) to the error the client should see.

// StorageUsage is what the cluster stores.
type StorageUsage struct {
	// SegmentBytes is the size of every partition's segment files:
	// the record batches as they were produced (in memory when the
	// cluster has no data directory). Each batch also has a 15-byte
	// entry in an index file beside its segment.
	SegmentBytes int64
	// Batches is the number of batches in the in-memory index, one
	// entry per stored batch, held for as long as the batch is.
	Batches int64
}

// ProducedBatch is a batch a Produce request asks the cluster to store.
type ProducedBatch struct {
	// Remote and Local are the addresses of the client's connection.
	Remote, Local net.Addr
	Topic         string
	TopicID       [16]byte
	Partition     int32
	// Bytes is the batch's size as stored; Records its record count.
	Bytes   int
	Records int32
	// Usage is what the cluster stores before this batch.
	Usage StorageUsage
}

// StorageHooks are called on the cluster's run goroutine, where a hook
// must neither block nor call a Cluster method.
type StorageHooks struct {
	// Admit, if set, is called for each batch a Produce request
	// would store, after every check kfake makes passed and only if the
	// batch would be stored (not for a duplicate of a stored idempotent
	// batch). A non-zero code refuses the batch: nothing is stored, the
	// producer's sequence state stays as it was, and the partition is
	// answered with code and msg (the ErrorMessage of Produce v8+).
	Admit func(ProducedBatch) (code int16, msg string)
	// WriteFailed, if set, maps the error of a segment write that
	// failed (a full disk, say) to the partition's answer. Without it
	// the answer is KAFKA_STORAGE_ERROR, as Kafka answers a log
	// directory that fails. The batch is not stored either way.
	WriteFailed func(b ProducedBatch, err error) (code int16, msg string)
	// TopicDeleted, if set, is called once a topic's data is gone.
	TopicDeleted func(topic string, id [16]byte)
	// Freed, if set, is called when a partition of a topic that stays
	// stores less than before: retention (retention.ms,
	// retention.bytes) or DeleteRecords removed batches from its start,
	// or compaction removed or thinned batches. freed is what went,
	// as StorageUsage counts it.
	Freed func(topic string, id [16]byte, freed StorageUsage)
}

// StorageHook installs h; see StorageHooks.
func StorageHook(h StorageHooks) Opt {
	return opt{func(cfg *cfg) { cfg.storageHooks = h }}
}

// StorageUsage returns what the cluster stores now. It is safe to call
// from any goroutine, including from a control function.
func (c *Cluster) StorageUsage() StorageUsage { return c.storage.usage() }

// TopicStorage is what one topic stores, summed over its partitions.
type TopicStorage struct {
	Topic string
	ID    [16]byte
	Usage StorageUsage
}

// EachTopicStorage calls fn with what each topic stores now, in no
// particular order. fn runs on the cluster's run goroutine, as the
// storage hooks do, and like them must neither block nor call a Cluster
// method. No hook runs and nothing stored changes until the last call
// returned, so that an embedder that counts storage per topic through the
// hooks can start its counts from these, at start say, with nothing
// missed or counted twice. Only the sizes kept in memory are read, never
// a segment. Call it from any goroutine but a hook's or fn's, while the
// cluster runs.
func (c *Cluster) EachTopicStorage(fn func(TopicStorage)) {
	c.admin(func() {
		for topic, ps := range c.data.tps {
			ts := TopicStorage{Topic: topic, ID: c.data.t2id[topic]}
			for _, pd := range ps {
				u := pd.storage()
				ts.Usage.SegmentBytes += u.SegmentBytes
				ts.Usage.Batches += u.Batches
			}
			fn(ts)
		}
	})
}

// storageTotals is the cluster-wide sum of every partition's storage,
// changed on the run goroutine (and by the loaders at start), read from
// anywhere.
type storageTotals struct {
	segmentBytes atomic.Int64
	batches      atomic.Int64
}

func (s *storageTotals) usage() StorageUsage {
	return StorageUsage{SegmentBytes: s.segmentBytes.Load(), Batches: s.batches.Load()}
}

func (s *storageTotals) add(u StorageUsage) {
	s.segmentBytes.Add(u.SegmentBytes)
	s.batches.Add(u.Batches)
}

func (s *storageTotals) remove(u StorageUsage) {
	s.add(StorageUsage{-u.SegmentBytes, -u.Batches})
}

// change replaces a partition's share before with after.
func (s *storageTotals) change(before, after StorageUsage) {
	s.add(StorageUsage{after.SegmentBytes - before.SegmentBytes, after.Batches - before.Batches})
}

// storageChanged counts pd's storage, before it was trimmed or
// compacted, as what it stores now, and tells the Freed hook what went.
func (c *Cluster) storageChanged(pd *partData, before StorageUsage) {
	after := pd.storage()
	c.storage.change(before, after)
	freed := StorageUsage{SegmentBytes: before.SegmentBytes - after.SegmentBytes, Batches: before.Batches - after.Batches}
	if f := c.cfg.storageHooks.Freed; f != nil && (freed.SegmentBytes > 0 || freed.Batches > 0) {
		f(pd.t, c.data.t2id[pd.t], freed)
	}
}

// storage is what the partition stores: its segment files' bytes and the
// batches in its index.
func (pd *partData) storage() StorageUsage {
	var u StorageUsage
	for i := range pd.segments {
		u.SegmentBytes += pd.segments[i].size
		u.Batches += int64(len(pd.segments[i].index))
	}
	return u
}

// producedBatch describes the batch creq asks pd to store.
func (c *Cluster) producedBatch(creq *clientReq, pd *partData, topicID [16]byte, nbytes int, records int32) ProducedBatch {
	b := ProducedBatch{
		Topic:     pd.t,
		TopicID:   topicID,
		Partition: pd.p,
		Bytes:     nbytes,
		Records:   records,
		Usage:     c.storage.usage(),
	}
	if creq.cc != nil && creq.cc.conn != nil {
		b.Remote, b.Local = creq.cc.conn.RemoteAddr(), creq.cc.conn.LocalAddr()
	}
	return b
}

// admitBatch asks the Admit hook whether the batch may be stored.
func (c *Cluster) admitBatch(b ProducedBatch) (int16, string) {
	if c.cfg.storageHooks.Admit == nil {
		return 0, ""
	}
	return c.cfg.storageHooks.Admit(b)
}

// writeFailed is the partition's answer to a batch whose segment write
// failed with the error persistBatchToSegment last saw.
func (c *Cluster) writeFailed(b ProducedBatch) (int16, string) {
	err := c.lastWriteErr
	c.lastWriteErr = nil
	if c.cfg.storageHooks.WriteFailed != nil && err != nil {
		return c.cfg.storageHooks.WriteFailed(b, err)
	}
	return kerr.KafkaStorageError.Code, ""
}
