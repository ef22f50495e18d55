package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// TransactionStates are the states a transaction coordinator reports, as
// Kafka spells them.
var transactionStates = []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// TransactionSummary is one transactional.id as kafka-transactions.sh list
// prints it.
type TransactionSummary struct {
	TransactionalID string `json:"transactionalId"`
	State           string `json:"state"`
	ProducerID      int64  `json:"producerId"`
	Coordinator     int32  `json:"coordinator"`
}

// ListTransactions lists the transactional ids every coordinator knows,
// sorted by id, keeping those in one of states when any are given (Kafka's
// spelling: Ongoing, CompleteCommit, …; anything else is problem.Invalid).
// Cost: one ListTransactions per broker.
func (c *Cluster) ListTransactions(ctx context.Context, states ...string) ([]TransactionSummary, error) {
	for _, s := range states {
		if !slices.Contains(transactionStates, s) {
			return nil, problem.New(problem.Invalid, "error.transactionStateUnknown", "state", s, "states", strings.Join(transactionStates, ", "))
		}
	}
	var listed kadm.ListedTransactions
	err := wait.Retry(ctx, func() (err error) {
		listed, err = c.admin.ListTransactions(ctx, nil, states)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: list transactions: %w", err)
	}
	out := []TransactionSummary{}
	for _, t := range listed.Sorted() {
		out = append(out, TransactionSummary{TransactionalID: t.TxnID, State: t.State, ProducerID: t.ProducerID, Coordinator: t.Coordinator})
	}
	return out, nil
}

// DefaultMaxTransactionTimeout is Kafka's default transaction.max.timeout.ms
// and kafka-transactions.sh find-hanging's default --max-transaction-timeout
// (15 minutes): an open transaction whose producer wrote nothing for longer
// cannot still be legitimately open.
const DefaultMaxTransactionTimeout = 15 * time.Minute

// ProducerState is one producer with state on a partition, as
// kafka-transactions.sh describe-producers prints it, plus what
// find-hanging decides about it.
type ProducerState struct {
	ProducerID    int64 `json:"producerId"`
	ProducerEpoch int16 `json:"producerEpoch"`
	// CoordinatorEpoch is the epoch of the transaction coordinator that
	// wrote the producer's last marker, -1 before any.
	CoordinatorEpoch int32 `json:"coordinatorEpoch"`
	LastSequence     int32 `json:"lastSequence"`
	// LastTimestamp is the timestamp (ms) of the producer's last batch.
	LastTimestamp int64 `json:"lastTimestamp"`
	// CurrentTransactionStartOffset is the first offset of the
	// producer's open transaction on the partition, -1 when none.
	CurrentTransactionStartOffset int64 `json:"currentTransactionStartOffset"`
	// TransactionalID is the id whose current producer id this is, when
	// the producer has a transaction open and a coordinator knows it.
	TransactionalID string `json:"transactionalId,omitempty"`
	// TransactionState, TransactionStartTimestamp (ms) and
	// TransactionTimeoutMs are what the coordinator of TransactionalID
	// says of its transaction (DescribeTransactions), when it describes
	// one of this producer id; empty and zero otherwise.
	TransactionState          string `json:"transactionState,omitempty"`
	TransactionStartTimestamp int64  `json:"transactionStartTimestamp,omitempty"`
	TransactionTimeoutMs      int32  `json:"transactionTimeoutMs,omitempty"`
	// Hanging is find-hanging's verdict: the transaction is open, its
	// producer has written nothing for longer than the maximum
	// transaction timeout, and no coordinator expects to write its
	// marker here (no transactional id has this producer id, or the one
	// that has it does not list this partition).
	Hanging bool `json:"hanging"`
}

// PartitionProducers are the producers of one partition.
type PartitionProducers struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Leader    int32  `json:"leader"`
	// MaxTransactionTimeoutMs is the age past which an open transaction
	// is examined as possibly hanging: the leader's
	// transaction.max.timeout.ms.
	MaxTransactionTimeoutMs int64           `json:"maxTransactionTimeoutMs"`
	Producers               []ProducerState `json:"producers"`
}

// HangingTransaction is a hanging transaction, as find-hanging lists it.
type HangingTransaction struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	ProducerState
}

// DescribeProducers describes the producers with state on one partition
// (DescribeProducers at its leader) and marks hanging transactions the way
// kafka-transactions.sh find-hanging does (see ProducerState.Hanging).
// Cost: a DescribeProducers, a DescribeConfigs for the leader's
// transaction.max.timeout.ms, and when a transaction is open a
// ListTransactions per broker and a DescribeTransactions per coordinator.
func (c *Cluster) DescribeProducers(ctx context.Context, topic string, partition int32) (PartitionProducers, error) {
	if err := ValidateTopicName(topic); err != nil {
		return PartitionProducers{}, err
	}
	if partition < 0 {
		return PartitionProducers{}, problem.New(problem.Invalid, "error.partitionNegative")
	}
	parts, err := c.describeProducers(ctx, kadm.TopicsSet{topic: {partition: {}}})
	if err != nil {
		return PartitionProducers{}, err
	}
	p := parts[0]
	if p.err != nil {
		if errors.Is(p.err, kerr.UnknownTopicOrPartition) {
			return PartitionProducers{}, problem.New(problem.NotFound, "error.noSuchPartition", "topic", topic, "partition", strconv.Itoa(int(partition)))
		}
		return PartitionProducers{}, fmt.Errorf("cluster: describe producers of %s-%d: %w", topic, partition, p.err)
	}
	return p.PartitionProducers, nil
}

// HangingTransactions lists the hanging transactions on every partition of
// topics (every non-internal topic when none are given), as
// kafka-transactions.sh find-hanging --topic does. Cost: a Metadata, a
// DescribeProducers per leader, and the requests DescribeProducers makes
// for open transactions.
func (c *Cluster) HangingTransactions(ctx context.Context, topics ...string) ([]HangingTransaction, error) {
	details, err := c.admin.ListTopics(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("cluster: list topics: %w", err)
	}
	set := kadm.TopicsSet{}
	for _, d := range details.Sorted() {
		if d.Err != nil {
			if len(topics) > 0 {
				return nil, problem.UnknownTopic(d.Topic)
			}
			continue
		}
		for _, p := range d.Partitions.Sorted() {
			set.Add(d.Topic, p.Partition)
		}
	}
	out := []HangingTransaction{}
	if len(set) == 0 {
		return out, nil
	}
	parts, err := c.describeProducers(ctx, set)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if p.err != nil {
			return nil, fmt.Errorf("cluster: describe producers of %s-%d: %w", p.Topic, p.Partition, p.err)
		}
		for _, s := range p.Producers {
			if s.Hanging {
				out = append(out, HangingTransaction{Topic: p.Topic, Partition: p.Partition, ProducerState: s})
			}
		}
	}
	return out, nil
}

// describedPartition is a partition's producers, or why they could not be
// described.
type describedPartition struct {
	PartitionProducers
	err error
}

// describeProducers describes the producers of every partition of set and
// decides which open transactions hang, as find-hanging does: candidates
// are open transactions whose producer's last write is older than the
// maximum transaction timeout; a candidate hangs when ListTransactions
// finds no transactional id with its producer id, DescribeTransactions
// does not know that id, or the description does not list the partition.
func (c *Cluster) describeProducers(ctx context.Context, set kadm.TopicsSet) ([]describedPartition, error) {
	var described kadm.DescribedProducersTopics
	err := wait.Retry(ctx, func() (err error) {
		described, err = c.admin.DescribeProducers(ctx, set)
		return err
	})
	if err != nil && len(described) == 0 {
		return nil, fmt.Errorf("cluster: describe producers: %w", err)
	}
	var out []describedPartition
	timeouts := map[int32]time.Duration{}
	open := map[int64]bool{}
	for _, t := range described.Sorted() {
		for _, dp := range t.Partitions.Sorted() {
			p := describedPartition{PartitionProducers: PartitionProducers{Topic: dp.Topic, Partition: dp.Partition, Leader: dp.Leader, Producers: []ProducerState{}}, err: dp.Err}
			if dp.Err == nil {
				if _, ok := timeouts[dp.Leader]; !ok {
					timeouts[dp.Leader] = c.maxTransactionTimeout(ctx, dp.Leader)
				}
				p.MaxTransactionTimeoutMs = timeouts[dp.Leader].Milliseconds()
				for _, s := range dp.ActiveProducers.Sorted() {
					p.Producers = append(p.Producers, ProducerState{
						ProducerID: s.ProducerID, ProducerEpoch: s.ProducerEpoch, CoordinatorEpoch: s.CoordinatorEpoch,
						LastSequence: s.LastSequence, LastTimestamp: s.LastTimestamp, CurrentTransactionStartOffset: s.CurrentTxnStartOffset,
					})
					if s.CurrentTxnStartOffset >= 0 {
						open[s.ProducerID] = true
					}
				}
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cluster: describe producers: no partition in the answer: %w", err)
	}
	if len(open) == 0 {
		return out, nil
	}
	ids, descriptions, err := c.openTransactions(ctx, open)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixMilli()
	for k := range out {
		p := &out[k]
		for i := range p.Producers {
			s := &p.Producers[i]
			if s.CurrentTransactionStartOffset < 0 {
				continue
			}
			s.TransactionalID = ids[s.ProducerID]
			d, known := descriptions[s.TransactionalID]
			if known && d.ProducerID == s.ProducerID {
				s.TransactionState, s.TransactionStartTimestamp, s.TransactionTimeoutMs = d.State, d.StartTimestamp, d.TimeoutMillis
			}
			if now-s.LastTimestamp <= p.MaxTransactionTimeoutMs {
				continue // not a candidate: it may still be legitimately open
			}
			s.Hanging = s.TransactionalID == "" || !known || !d.Topics.Lookup(p.Topic, p.Partition)
		}
	}
	return out, nil
}

// openTransactions finds the transactional ids of producer ids and
// describes them.
func (c *Cluster) openTransactions(ctx context.Context, pids map[int64]bool) (map[int64]string, kadm.DescribedTransactions, error) {
	var list []int64
	for pid := range pids {
		list = append(list, pid)
	}
	var listed kadm.ListedTransactions
	err := wait.Retry(ctx, func() (err error) {
		listed, err = c.admin.ListTransactions(ctx, list, nil)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: list transactions of %d producers: %w", len(list), err)
	}
	ids := map[int64]string{}
	var names []string
	for _, t := range listed.Sorted() {
		if pids[t.ProducerID] {
			ids[t.ProducerID] = t.TxnID
			names = append(names, t.TxnID)
		}
	}
	descriptions := kadm.DescribedTransactions{}
	if len(names) == 0 {
		return ids, descriptions, nil
	}
	err = wait.Retry(ctx, func() error {
		described, err := c.admin.DescribeTransactions(ctx, names...)
		if err != nil && len(described) == 0 {
			return err
		}
		for name, d := range described {
			if d.Err == nil {
				descriptions[name] = d
			} else if !errors.Is(d.Err, kerr.TransactionalIDNotFound) {
				return d.Err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: describe %d transactions: %w", len(names), err)
	}
	return ids, descriptions, nil
}

// maxTransactionTimeout reads broker's transaction.max.timeout.ms, or
// DefaultMaxTransactionTimeout when it cannot.
func (c *Cluster) maxTransactionTimeout(ctx context.Context, broker int32) time.Duration {
	configs, err := c.admin.DescribeBrokerConfigs(ctx, broker)
	if err != nil {
		return DefaultMaxTransactionTimeout
	}
	for _, rc := range configs {
		for _, cfg := range rc.Configs {
			if cfg.Key != "transaction.max.timeout.ms" || cfg.Value == nil {
				continue
			}
			if ms, err := strconv.ParseInt(*cfg.Value, 10, 64); err == nil && ms > 0 {
				return time.Duration(ms) * time.Millisecond
			}
		}
	}
	return DefaultMaxTransactionTimeout
}

// AbortedTransaction is the transaction AbortTransaction aborted.
type AbortedTransaction struct {
	Topic            string `json:"topic"`
	Partition        int32  `json:"partition"`
	StartOffset      int64  `json:"startOffset"`
	ProducerID       int64  `json:"producerId"`
	ProducerEpoch    int16  `json:"producerEpoch"`
	CoordinatorEpoch int32  `json:"coordinatorEpoch"`
}

// AbortTransaction aborts the open transaction that starts at startOffset
// on a partition, as kafka-transactions.sh abort --start-offset does: it
// finds the producer whose current transaction starts there
// (DescribeProducers) and asks the partition leader to write an ABORT
// marker for its producer id and epoch (WriteTxnMarkers, with the
// producer's coordinator epoch, 0 when it has none yet). It is meant for
// hanging transactions: aborting one a live producer still writes to makes
// that producer fail. No open transaction starting at startOffset is
// problem.NotFound. The marker ends the producer's transaction on that
// partition (DescribeProducers no longer lists it as open); the
// coordinator's own transaction stays Ongoing until its producer ends it,
// is fenced or times out.
func (c *Cluster) AbortTransaction(ctx context.Context, topic string, partition int32, startOffset int64) (AbortedTransaction, error) {
	producers, err := c.DescribeProducers(ctx, topic, partition)
	if err != nil {
		return AbortedTransaction{}, err
	}
	i := slices.IndexFunc(producers.Producers, func(s ProducerState) bool { return s.CurrentTransactionStartOffset == startOffset })
	if startOffset < 0 || i < 0 {
		return AbortedTransaction{}, problem.New(problem.NotFound, "error.noOpenTransactionAt", "offset", strconv.FormatInt(startOffset, 10), "topic", topic, "partition", strconv.Itoa(int(partition)))
	}
	s := producers.Producers[i]
	aborted := AbortedTransaction{Topic: topic, Partition: partition, StartOffset: startOffset, ProducerID: s.ProducerID, ProducerEpoch: s.ProducerEpoch, CoordinatorEpoch: max(s.CoordinatorEpoch, 0)}
	resp, err := c.admin.WriteTxnMarkers(ctx, kadm.TxnMarkers{
		ProducerID: s.ProducerID, ProducerEpoch: s.ProducerEpoch, CoordinatorEpoch: aborted.CoordinatorEpoch,
		Commit: false, Topics: kadm.TopicsSet{topic: {partition: {}}},
	})
	if err == nil {
		resp.EachPartition(func(p kadm.TxnMarkersPartitionResponse) {
			if err == nil && p.Err != nil {
				err = p.Err
			}
		})
	}
	if err != nil {
		return AbortedTransaction{}, fmt.Errorf("cluster: abort the transaction of producer %d at offset %d of %s-%d: %w", s.ProducerID, startOffset, topic, partition, err)
	}
	return aborted, nil
}
