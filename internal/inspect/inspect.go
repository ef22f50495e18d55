// Package inspect reads Kafka partitions offset by offset, the way the
// dashboard shows them: data records, transaction markers (control
// records) and gaps, each with its transaction outcome and whether a
// read_committed or a read_uncommitted consumer receives it.
//
// ReadLog sends raw Fetch requests (kmsg) to the partition leader, because
// a consumer never hands out control records or aborted data with their
// batch headers; it decodes the record batches itself (magic 2, every codec
// Kafka defines). ReadRecords instead runs a real franz-go consumer at the
// chosen isolation level, so that what ReadLog computes can be checked
// against what a consumer actually delivers.
//
// Costs: a ReadLog call is one metadata request, three ListOffsets requests
// and a few fetches sized to the window (the first of 16 KiB, doubling up
// to Inspector.FetchBytes). When transactions in the window are not
// resolved inside it, one DescribeProducers request settles those still
// ongoing, and the rest are resolved by reading on, batch headers only, for
// at most Inspector.ScanBudget bytes. Memory grows with the window, never
// with the partition, and both are bounded in bytes: a record shows at
// most MaxHeaders headers, each key and value cut, and an answer holds at
// most Inspector.AnswerBytes of entries (see budget.go).
//
// The explorer's reads look at a whole partition, or a large part of it,
// with one scanner that walks record batches by their headers and resolves
// outcomes exactly as ReadLog does: MapPartition counts each offset's kind
// in equal buckets, Jump finds the next or previous offset of a kind,
// Search finds records by key, value, header or JSON field, RecordLag
// counts what a read_committed consumer would still receive, and
// OffsetForTimestamp seeks by time. Each states its cost; all keep memory
// to one fetch plus what the caller asked for (buckets, matches), honour
// their context, and bound the bytes they read where a caller could make
// them read without end (Search, Jump, RecordLag).
//
// The package imports neither net/http nor anything of the web layer.
package inspect

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Errors: the Inspector returns internal/problem errors — the shared
// unknown topic, unknown partition and broker unreachable ones, and a
// Kafka error for a batch it cannot decode (ErrCorruptBatch is its cause).

// Default sizes of an Inspector.
const (
	// DefaultFetchBytes is the size of one raw fetch.
	DefaultFetchBytes = 1 << 20
	// DefaultScanBudget caps how many bytes ReadLog reads past the window
	// looking for the markers of transactions still open in it.
	DefaultScanBudget = 64 << 20
)

// Inspector reads partitions through a kgo.Client it does not own: the
// caller closes that client, after which the Inspector's methods fail.
// An Inspector is safe for concurrent use.
type Inspector struct {
	client       *kgo.Client
	consumerOpts []kgo.Opt
	codecs       *codecs

	// FetchBytes is the maximum size of one raw fetch (default
	// DefaultFetchBytes). The broker still returns a larger batch whole
	// when it is the first of a response. Set it, and ScanBudget, before
	// the Inspector is shared.
	FetchBytes int32
	// ScanBudget caps the bytes ReadLog reads past its window to find the
	// markers of transactions that are open inside it (default
	// DefaultScanBudget). A record whose marker lies further away is
	// reported as "open" although it may be resolved: the budget keeps a
	// request's cost bounded when a transaction is left hanging in a
	// large partition.
	ScanBudget int64
	// AnswerBytes caps the decoded size (as JSON, see EncodedSize) of
	// what one ReadLog, ReadRecords or Search call returns (default
	// DefaultAnswerBytes); each says when it stopped early for it.
	AnswerBytes int64
	// Values decodes values framed by a schema registry (nil: none are);
	// set it before the Inspector is shared.
	Values ValueDecoder
}

// New returns an Inspector that sends raw requests through client.
//
// ReadRecords starts a fresh consumer client for each call, built from
// consumerOpts followed by its own consumer options. consumerOpts must say
// how to reach the brokers (seed brokers, dialer, TLS, SASL) and nothing
// about consuming, producing or groups. When none are given, they are
// copied from client: its seed brokers, client ID, dialer, TLS config,
// SASL mechanisms and maximum versions.
func New(client *kgo.Client, consumerOpts ...kgo.Opt) *Inspector {
	if len(consumerOpts) == 0 {
		consumerOpts = connectionOpts(client)
	}
	return &Inspector{
		client:       client,
		consumerOpts: consumerOpts,
		codecs:       newCodecs(DefaultMaxDecompressedBytes),
		FetchBytes:   DefaultFetchBytes,
		ScanBudget:   DefaultScanBudget,
		AnswerBytes:  DefaultAnswerBytes,
	}
}

// connectionOpts copies from client the options that say how to reach its
// brokers.
func connectionOpts(client *kgo.Client) []kgo.Opt {
	var opts []kgo.Opt
	if seeds, ok := client.OptValue(kgo.SeedBrokers).([]string); ok && len(seeds) > 0 {
		opts = append(opts, kgo.SeedBrokers(seeds...))
	}
	if id, ok := client.OptValue(kgo.ClientID).(string); ok && id != "" {
		opts = append(opts, kgo.ClientID(id))
	}
	if dial, ok := client.OptValue(kgo.Dialer).(func(context.Context, string, string) (net.Conn, error)); ok && dial != nil {
		opts = append(opts, kgo.Dialer(dial))
	}
	if cfg, ok := client.OptValue(kgo.DialTLSConfig).(*tls.Config); ok && cfg != nil {
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if mechs, ok := client.OptValue(kgo.SASL).([]sasl.Mechanism); ok && len(mechs) > 0 {
		opts = append(opts, kgo.SASL(mechs...))
	}
	if v, ok := client.OptValue(kgo.MaxVersions).(*kversion.Versions); ok && v != nil {
		opts = append(opts, kgo.MaxVersions(v))
	}
	return opts
}

// partitionRef names a partition and where to fetch it.
type partitionRef struct {
	topic     string
	topicID   [16]byte
	partition int32
	leader    int32
}

func (r partitionRef) String() string { return fmt.Sprintf("%s/%d", r.topic, r.partition) }

// locate asks the cluster for the topic's ID and the partition's leader.
func (i *Inspector) locate(ctx context.Context, topic string, partition int32) (partitionRef, error) {
	ref := partitionRef{topic: topic, partition: partition}
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	req.AllowAutoTopicCreation = false
	resp, err := req.RequestWith(ctx, i.client)
	if err != nil {
		return ref, requestErr("metadata", ref, err)
	}
	if len(resp.Topics) != 1 {
		return ref, fmt.Errorf("inspect: metadata %s: broker returned %d topics", ref, len(resp.Topics))
	}
	t := resp.Topics[0]
	if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
		if errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.InvalidTopicException) || errors.Is(err, kerr.UnknownTopicID) {
			return ref, problem.UnknownTopic(topic)
		}
		return ref, fmt.Errorf("inspect: metadata %s: %w", ref, err)
	}
	ref.topicID = t.TopicID
	for _, p := range t.Partitions {
		if p.Partition != partition {
			continue
		}
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil && !errors.Is(err, kerr.ReplicaNotAvailable) {
			return ref, fmt.Errorf("inspect: metadata %s: %w", ref, err)
		}
		if p.Leader < 0 {
			return ref, fmt.Errorf("inspect: metadata %s: %w", ref, kerr.LeaderNotAvailable)
		}
		ref.leader = p.Leader
		return ref, nil
	}
	return ref, problem.UnknownPartition(topic, len(t.Partitions), partition)
}

// requestErr wraps a failed request, marking network failures as the
// broker being unreachable.
func requestErr(what string, ref partitionRef, err error) error {
	err = fmt.Errorf("inspect: %s %s: %w", what, ref, err)
	if problem.Unreachable(err) {
		return problem.BrokerUnreachable(err)
	}
	return err
}

// leaderMoved reports partition errors after which fresh metadata may help.
func leaderMoved(err error) bool {
	return errors.Is(err, kerr.NotLeaderForPartition) ||
		errors.Is(err, kerr.FencedLeaderEpoch) ||
		errors.Is(err, kerr.UnknownLeaderEpoch) ||
		errors.Is(err, kerr.UnknownTopicID) ||
		errors.Is(err, kerr.UnknownTopicOrPartition) ||
		errors.Is(err, kerr.LeaderNotAvailable)
}

// Pointers returns the partition's log start offset, last stable offset
// and high watermark, read from the leader with three ListOffsets requests
// in that order, so that LogStartOffset <= LastStableOffset <= HighWatermark.
func (i *Inspector) Pointers(ctx context.Context, topic string, partition int32) (Pointers, error) {
	_, ptrs, err := i.locatePointers(ctx, topic, partition)
	return ptrs, err
}

// locatePointers finds the partition's leader and reads its pointers: the
// first two steps of every read.
func (i *Inspector) locatePointers(ctx context.Context, topic string, partition int32) (partitionRef, Pointers, error) {
	ref, err := i.locate(ctx, topic, partition)
	if err != nil {
		return ref, Pointers{}, err
	}
	ptrs, err := i.pointers(ctx, &ref)
	return ref, ptrs, err
}

func (i *Inspector) pointers(ctx context.Context, ref *partitionRef) (Pointers, error) {
	var p Pointers
	var err error
	if p.LogStartOffset, err = i.listOffset(ctx, ref, -2, 0); err != nil {
		return p, err
	}
	if p.LastStableOffset, err = i.listOffset(ctx, ref, -1, 1); err != nil {
		return p, err
	}
	if p.HighWatermark, err = i.listOffset(ctx, ref, -1, 0); err != nil {
		return p, err
	}
	p.HighWatermark = max(p.HighWatermark, p.LogStartOffset)
	p.LastStableOffset = min(max(p.LastStableOffset, p.LogStartOffset), p.HighWatermark)
	return p, nil
}

// listOffset asks the leader for the offset at timestamp (-2 earliest, -1
// latest) seen at isolation (0 read_uncommitted, 1 read_committed: the
// latest offset is then the last stable offset). It refreshes the leader
// once if it moved.
func (i *Inspector) listOffset(ctx context.Context, ref *partitionRef, timestamp int64, isolation int8) (int64, error) {
	sp, err := i.listOffsetPartition(ctx, ref, timestamp, isolation)
	return sp.Offset, err
}

// listOffsetPartition is listOffset's request, returning the partition's
// whole answer (the offset and the timestamp found).
func (i *Inspector) listOffsetPartition(ctx context.Context, ref *partitionRef, timestamp int64, isolation int8) (kmsg.ListOffsetsResponseTopicPartition, error) {
	var none kmsg.ListOffsetsResponseTopicPartition
	for attempt := 0; ; attempt++ {
		req := kmsg.NewPtrListOffsetsRequest()
		req.IsolationLevel = isolation
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = ref.topic
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = ref.partition
		rp.Timestamp = timestamp
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, i.client.Broker(int(ref.leader)))
		if err != nil {
			return none, requestErr("list offsets", *ref, err)
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return none, fmt.Errorf("inspect: list offsets %s: malformed response", ref)
		}
		sp := resp.Topics[0].Partitions[0]
		err = kerr.ErrorForCode(sp.ErrorCode)
		if err == nil {
			return sp, nil
		}
		if attempt > 0 || !leaderMoved(err) {
			return none, fmt.Errorf("inspect: list offsets %s: %w", ref, err)
		}
		if err := i.relocate(ctx, ref); err != nil {
			return none, err
		}
	}
}

func (i *Inspector) relocate(ctx context.Context, ref *partitionRef) error {
	fresh, err := i.locate(ctx, ref.topic, ref.partition)
	if err != nil {
		return err
	}
	*ref = fresh
	return nil
}

// fetch sends one raw Fetch to the leader, without waiting for data and
// outside any fetch session. It refreshes the leader once if it moved.
// A partition-level error is returned as a *fetchError.
func (i *Inspector) fetch(ctx context.Context, ref *partitionRef, offset int64, committed bool, maxBytes int32) (*kmsg.FetchResponseTopicPartition, error) {
	for attempt := 0; ; attempt++ {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID = -1
		req.MaxWaitMillis = 0
		req.MinBytes = 1
		// The partition limit alone bounds the response. A request-level
		// limit as small would let kfake cut the response before it adds
		// the partition's aborted transactions (see fetchAborted test).
		req.MaxBytes = math.MaxInt32
		req.SessionID = 0
		req.SessionEpoch = -1
		if committed {
			req.IsolationLevel = 1
		}
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = ref.topic
		rt.TopicID = ref.topicID
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition = ref.partition
		rp.FetchOffset = offset
		rp.PartitionMaxBytes = maxBytes
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, i.client.Broker(int(ref.leader)))
		if err != nil {
			return nil, requestErr("fetch", *ref, err)
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			return nil, fmt.Errorf("inspect: fetch %s: %w", ref, err)
		}
		sp, err := findPartition(resp, ref)
		if err != nil {
			return nil, err
		}
		err = kerr.ErrorForCode(sp.ErrorCode)
		if err == nil {
			return sp, nil
		}
		if attempt > 0 || !leaderMoved(err) {
			return sp, &fetchError{ref: *ref, offset: offset, err: err}
		}
		if err := i.relocate(ctx, ref); err != nil {
			return nil, err
		}
	}
}

func findPartition(resp *kmsg.FetchResponse, ref *partitionRef) (*kmsg.FetchResponseTopicPartition, error) {
	for t := range resp.Topics {
		rt := &resp.Topics[t]
		if rt.Topic != ref.topic && rt.TopicID != ref.topicID {
			continue
		}
		for p := range rt.Partitions {
			if rt.Partitions[p].Partition == ref.partition {
				return &rt.Partitions[p], nil
			}
		}
	}
	return nil, fmt.Errorf("inspect: fetch %s: partition missing from the response", ref)
}

// fetchError is a partition-level error of a fetch.
type fetchError struct {
	ref    partitionRef
	offset int64
	err    error
}

func (e *fetchError) Error() string {
	return fmt.Sprintf("inspect: fetch %s at offset %d: %v", e.ref, e.offset, e.err)
}

func (e *fetchError) Unwrap() error { return e.err }
