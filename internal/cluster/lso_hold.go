package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// LSOHold says why a read_committed consumer of a partition is stuck: the
// open transaction that holds the last stable offset below the high
// watermark, and how many records wait behind it. internal/lab fills it:
// the holder from the cluster (LSOHolder), the count from the inspector.
type LSOHold struct {
	Topic            string `json:"topic"`
	Partition        int32  `json:"partition"`
	LastStableOffset int64  `json:"lastStableOffset"`
	HighWatermark    int64  `json:"highWatermark"`
	// Held is true when the LSO is below the high watermark.
	Held bool `json:"held"`
	// Holder is the open transaction starting at the LSO; nil when the
	// LSO is not held or the broker names no producer for it.
	Holder *LSOHolder `json:"holder,omitempty"`
	// Waiting counts the plain and committed data records in [LSO, HW):
	// what read_committed consumers receive as soon as the holder ends.
	// A lower bound when WaitingComplete is false.
	Waiting         int64 `json:"waiting"`
	WaitingComplete bool  `json:"waitingComplete"`
}

// LSOHolder is the open transaction whose first offset on a partition is
// its last stable offset, named as the coordinator names it.
type LSOHolder struct {
	// TransactionalID is empty when no coordinator has a transactional
	// id with this producer id (a hanging transaction).
	TransactionalID string `json:"transactionalId,omitempty"`
	ProducerID      int64  `json:"producerId"`
	ProducerEpoch   int16  `json:"producerEpoch"`
	StartOffset     int64  `json:"startOffset"`
	// State is the coordinator's state of TransactionalID ("Ongoing"),
	// empty when it is unknown.
	State string `json:"state,omitempty"`
	// StartTimestamp (ms) is when the coordinator began the transaction,
	// else the producer's last write on the partition; AgeMs is the time
	// since, when the answer was made.
	StartTimestamp int64 `json:"startTimestamp"`
	AgeMs          int64 `json:"ageMs"`
	// TimeoutMs is the transaction's transaction.timeout.ms, 0 when no
	// coordinator says.
	TimeoutMs int64 `json:"timeoutMs"`
	Hanging   bool  `json:"hanging"`
}

// LSOHolder finds the open transaction that starts at offset lso of a
// partition (the earliest open one when none starts exactly there, as
// after a leader change): DescribeProducers, then ListTransactions and
// DescribeTransactions for its transactional id (see DescribeProducers).
// No open transaction on the partition is (nil, nil).
func (c *Cluster) LSOHolder(ctx context.Context, topic string, partition int32, lso int64) (*LSOHolder, error) {
	pp, err := c.DescribeProducers(ctx, topic, partition)
	if err != nil {
		return nil, err
	}
	var found *ProducerState
	for i := range pp.Producers {
		s := &pp.Producers[i]
		if s.CurrentTransactionStartOffset < 0 {
			continue
		}
		if found == nil || s.CurrentTransactionStartOffset == lso || found.CurrentTransactionStartOffset != lso && s.CurrentTransactionStartOffset < found.CurrentTransactionStartOffset {
			found = s
		}
	}
	if found == nil {
		return nil, nil
	}
	h := &LSOHolder{
		TransactionalID: found.TransactionalID, ProducerID: found.ProducerID, ProducerEpoch: found.ProducerEpoch,
		StartOffset: found.CurrentTransactionStartOffset, State: found.TransactionState,
		StartTimestamp: found.LastTimestamp, TimeoutMs: int64(found.TransactionTimeoutMs), Hanging: found.Hanging,
	}
	if found.TransactionStartTimestamp > 0 {
		h.StartTimestamp = found.TransactionStartTimestamp
	}
	if h.StartTimestamp > 0 {
		h.AgeMs = max(time.Now().UnixMilli()-h.StartTimestamp, 0)
	}
	return h, nil
}

// TerminatedTransaction is the transaction ForceTerminateTransaction ended.
type TerminatedTransaction struct {
	TransactionalID string `json:"transactionalId"`
	// ProducerID and ProducerEpoch are the producer the abort fenced.
	ProducerID    int64 `json:"producerId"`
	ProducerEpoch int16 `json:"producerEpoch"`
	// Partitions are those the transaction wrote to ("topic-p"): each
	// received an ABORT marker from the coordinator.
	Partitions []string `json:"partitions"`
	// State is the coordinator's state of the id afterwards (Kafka 4.3.1
	// and the embedded broker: Empty).
	State TxnState `json:"state"`
	// NewProducerEpoch is the id's epoch after the fence.
	NewProducerEpoch int16 `json:"newProducerEpoch"`
}

// ForceTerminateTransaction aborts the ongoing transaction of a
// transactional id through its coordinator, as kafka-transactions.sh
// forceTerminateTransaction (Kafka 4.1+) and a restarted producer with the
// same transactional.id do: an InitProducerID for the id fences the
// producer that holds it (its next write or EndTxn fails), the
// coordinator writes ABORT markers to every partition of the transaction
// and leaves the id Empty, so that the LSO moves and no list says Ongoing.
// It is retried while the coordinator answers CONCURRENT_TRANSACTIONS
// (Kafka, while it writes the markers). An id with no ongoing transaction
// is problem.Conflict; an unknown one problem.NotFound.
func (c *Cluster) ForceTerminateTransaction(ctx context.Context, id string) (TerminatedTransaction, error) {
	before, err := c.Transaction(ctx, id)
	if err != nil {
		return TerminatedTransaction{}, err
	}
	if before.State != TxnOngoing {
		return TerminatedTransaction{}, problem.New(problem.Conflict, "error.transactionNotOngoing", "id", id, "state", string(before.State))
	}
	out := TerminatedTransaction{TransactionalID: id, ProducerID: before.ProducerID, ProducerEpoch: before.ProducerEpoch, Partitions: before.Partitions}
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = &id
	req.TransactionTimeoutMillis = before.TimeoutMs
	req.ProducerID, req.ProducerEpoch = -1, -1
	err = wait.Until(ctx, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		resp, err := req.RequestWith(ctx, c.client)
		if err != nil {
			return false, err
		}
		switch err := kerr.ErrorForCode(resp.ErrorCode); {
		case err == nil:
			out.NewProducerEpoch = resp.ProducerEpoch
			return true, nil
		case errors.Is(err, kerr.ConcurrentTransactions), errors.Is(err, kerr.CoordinatorLoadInProgress), errors.Is(err, kerr.NotCoordinator):
			return false, nil // the coordinator is still writing the abort's markers
		default:
			return false, err
		}
	})
	if err != nil {
		return out, fmt.Errorf("cluster: terminate the transaction of %s: %w", id, err)
	}
	after, err := c.Transaction(ctx, id)
	if err != nil {
		return out, err
	}
	out.State = after.State
	return out, nil
}
