package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// runningFile marks a data directory as in use by a running embedded
// broker. It is created at start and removed by Close, so finding it at
// start means the last process died without closing (kill -9, a power cut).
const runningFile = "offsetlab-running"

// markRunning creates the running marker and reports whether one was
// already there, i.e. whether the previous shutdown was unclean.
func markRunning(dataDir string) (unclean bool, err error) {
	path := filepath.Join(dataDir, runningFile)
	if _, err := os.Stat(path); err == nil {
		unclean = true
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return unclean, fmt.Errorf("embedded: mark data dir %s in use: %w", dataDir, err)
	}
	return unclean, nil
}

func unmarkRunning(dataDir string) {
	_ = os.Remove(filepath.Join(dataDir, runningFile))
}

// openTransaction is a transactional producer whose records on a partition
// are not followed by a COMMIT or ABORT marker.
type openTransaction struct {
	topic         string
	partition     int32
	producerID    int64
	producerEpoch int16
	firstOffset   int64
}

// abortOrphanedTransactions finishes what an unclean shutdown left half
// done where the embedded broker could not. Kafka keeps an open transaction
// across a broker restart and aborts it, with an ABORT marker, when the
// producer is fenced or its transaction.timeout.ms passes; our kfake does
// the same for every transaction whose producer its coordinator log still
// holds at the epoch of the open records (third_party/kfake,
// resumeUncleanOpen). A transaction it cannot resume (its producer unknown
// to that log, or at another epoch) is forgotten: kfake treats its records
// as aborted but writes no marker, and without a marker a consumer's view
// goes wrong — read_committed consumers (and the log view) count every
// later transactional record of that producer id as aborted, committed
// ones included, because the aborted range has no end. For those, the
// ABORT marker is written here, at start, with the epoch raised once.
//
// It reads only where an open transaction can be: on a partition the
// broker replayed (third_party/kfake persist_load.go), from the first
// record of the earliest transaction the replay could not resume, and on
// one it loaded from its snapshot, from its last stable offset if that is
// below the high watermark — each to the high watermark it had at start
// (records written afterwards belong to new producers). It skips producers
// the broker itself reports as in a transaction (the resumed ones).
func abortOrphanedTransactions(ctx context.Context, c *cluster.Cluster, fake *kfake.Cluster, log *slog.Logger) ([]openTransaction, error) {
	topics, err := c.Admin().ListTopics(ctx)
	if err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	topics.FilterInternal()
	if len(topics) == 0 {
		return nil, nil
	}
	starts, err := c.Admin().ListStartOffsets(ctx, topics.Names()...)
	if err != nil {
		return nil, fmt.Errorf("list start offsets: %w", err)
	}
	ends, err := c.Admin().ListEndOffsets(ctx, topics.Names()...)
	if err != nil {
		return nil, fmt.Errorf("list end offsets: %w", err)
	}
	stables, err := c.Admin().ListCommittedOffsets(ctx, topics.Names()...)
	if err != nil {
		return nil, fmt.Errorf("list last stable offsets: %w", err)
	}
	type tp struct {
		topic     string
		partition int32
	}
	replayedFrom := map[tp]int64{}
	for _, o := range fake.UncleanOpenTransactions() {
		k := tp{o.Topic, o.Partition}
		if from, ok := replayedFrom[k]; !ok || o.FirstOffset < from {
			replayedFrom[k] = o.FirstOffset
		}
	}
	var open []openTransaction
	for _, t := range topics.Sorted() {
		for _, p := range t.Partitions.Sorted() {
			start, okS := starts.Lookup(t.Topic, p.Partition)
			end, okE := ends.Lookup(t.Topic, p.Partition)
			if !okS || !okE || start.Err != nil || end.Err != nil || end.Offset <= start.Offset {
				continue
			}
			from := end.Offset
			if o, ok := replayedFrom[tp{t.Topic, p.Partition}]; ok {
				from = o
			}
			if lso, ok := stables.Lookup(t.Topic, p.Partition); ok && lso.Err == nil && lso.Offset < end.Offset {
				from = min(from, lso.Offset)
			}
			if from = max(from, start.Offset); from >= end.Offset {
				continue
			}
			found, err := scanOpenTransactions(ctx, c, t.Topic, p.Partition, from, end.Offset)
			if err != nil {
				return open, err
			}
			open = append(open, found...)
		}
	}
	open = dropOngoing(ctx, c, open)
	var errs []error
	for _, o := range open {
		if err := writeAbortMarker(ctx, c, o); err != nil {
			errs = append(errs, err)
			continue
		}
		log.Warn("embedded broker: wrote the ABORT marker of a transaction left open by the unclean shutdown",
			"topic", o.topic, "partition", o.partition, "producerId", o.producerID, "firstOffset", o.firstOffset)
	}
	return open, errors.Join(errs...)
}

// scanOpenTransactions reads [start, end) of a partition, control records
// included, and returns the producers whose last transactional records
// have no marker after them.
func scanOpenTransactions(ctx context.Context, c *cluster.Cluster, topic string, partition int32, start, end int64) ([]openTransaction, error) {
	cl, err := kgo.NewClient(append(c.ClientOpts(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(start)}}),
		kgo.KeepControlRecords(),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
		// One partition at a time, a megabyte per fetch: the scan's
		// memory does not grow with the data it reads.
		kgo.FetchMaxBytes(1<<20),
		kgo.FetchMaxPartitionBytes(1<<20),
	)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	open := map[int64]openTransaction{}
	for next := start; next < end; {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("scan %s-%d for open transactions: %w", topic, partition, err)
		}
		for _, fe := range fetches.Errors() {
			return nil, fmt.Errorf("scan %s-%d for open transactions: %w", topic, partition, fe.Err)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if r.Offset >= end {
				return
			}
			next = r.Offset + 1
			switch {
			case r.Attrs.IsControl():
				delete(open, r.ProducerID)
			case r.Attrs.IsTransactional():
				if _, ok := open[r.ProducerID]; !ok {
					open[r.ProducerID] = openTransaction{topic: topic, partition: partition,
						producerID: r.ProducerID, producerEpoch: r.ProducerEpoch, firstOffset: r.Offset}
				}
			}
		})
	}
	out := make([]openTransaction, 0, len(open))
	for _, o := range open {
		out = append(out, o)
	}
	return out, nil
}

// dropOngoing removes the producers that the broker reports as still in a
// transaction on the partition (DescribeProducers): those it kept, which
// must not be aborted behind their back.
func dropOngoing(ctx context.Context, c *cluster.Cluster, open []openTransaction) []openTransaction {
	var keep []openTransaction
	for _, o := range open {
		req := kmsg.NewPtrDescribeProducersRequest()
		rt := kmsg.NewDescribeProducersRequestTopic()
		rt.Topic, rt.Partitions = o.topic, []int32{o.partition}
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, c.Client())
		ongoing := false
		if err == nil {
			for _, t := range resp.Topics {
				for _, p := range t.Partitions {
					for _, ap := range p.ActiveProducers {
						if ap.ProducerID == o.producerID && ap.CurrentTxnStartOffset >= 0 {
							ongoing = true
						}
					}
				}
			}
		}
		if !ongoing {
			keep = append(keep, o)
		}
	}
	return keep
}

// writeAbortMarker writes an ABORT control record for the producer, as the
// coordinator does when it fences a producer (hence the bumped epoch).
func writeAbortMarker(ctx context.Context, c *cluster.Cluster, o openTransaction) error {
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	m := kmsg.NewWriteTxnMarkersRequestMarker()
	m.ProducerID = o.producerID
	m.ProducerEpoch = o.producerEpoch
	if m.ProducerEpoch < 1<<15-1 {
		m.ProducerEpoch++
	}
	m.Committed = false
	mt := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
	mt.Topic, mt.Partitions = o.topic, []int32{o.partition}
	m.Topics = append(m.Topics, mt)
	req.Markers = append(req.Markers, m)
	resp, err := req.RequestWith(ctx, c.Client())
	if err != nil {
		return fmt.Errorf("write the ABORT marker of producer %d on %s-%d: %w", o.producerID, o.topic, o.partition, err)
	}
	for _, rm := range resp.Markers {
		for _, rt := range rm.Topics {
			for _, rp := range rt.Partitions {
				if rp.ErrorCode != 0 {
					return fmt.Errorf("write the ABORT marker of producer %d on %s-%d: error code %d", o.producerID, o.topic, o.partition, rp.ErrorCode)
				}
			}
		}
	}
	return nil
}

// recoverTimeout bounds the scan after an unclean shutdown.
const recoverTimeout = 2 * time.Minute
