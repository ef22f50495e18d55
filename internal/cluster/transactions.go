package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// TxnState is a transaction's state as its coordinator spells it (and as
// kafka-transactions.sh describe prints it).
type TxnState string

// The coordinator's transaction states (Kafka's TransactionState).
const (
	TxnEmpty             TxnState = "Empty"
	TxnOngoing           TxnState = "Ongoing"
	TxnPrepareCommit     TxnState = "PrepareCommit"
	TxnPrepareAbort      TxnState = "PrepareAbort"
	TxnCompleteCommit    TxnState = "CompleteCommit"
	TxnCompleteAbort     TxnState = "CompleteAbort"
	TxnPrepareEpochFence TxnState = "PrepareEpochFence"
	TxnDead              TxnState = "Dead"
)

// Preparing reports a state in which the coordinator has been told to end
// the transaction and is still writing its markers.
func (s TxnState) Preparing() bool {
	return s == TxnPrepareCommit || s == TxnPrepareAbort || s == TxnPrepareEpochFence
}

// TransactionInfo is what kafka-transactions.sh describe prints for a
// transactional.id, with State spelled as the coordinator spells it.
type TransactionInfo struct {
	TransactionalID string   `json:"transactionalId"`
	State           TxnState `json:"state"`
	ProducerID      int64    `json:"producerId"`
	ProducerEpoch   int16    `json:"producerEpoch"`
	TimeoutMs       int32    `json:"timeoutMs"`
	StartTimestamp  int64    `json:"startTimestamp"`
	Coordinator     int32    `json:"coordinator"`
	Partitions      []string `json:"partitions"`
}

// Transaction describes a transactional.id at its coordinator, verbatim.
func (c *Cluster) Transaction(ctx context.Context, id string) (TransactionInfo, error) {
	if id == "" {
		return TransactionInfo{}, problem.New(problem.Invalid, "error.transactionalIdRequired")
	}
	var d kadm.DescribedTransaction
	found := false
	err := wait.Retry(ctx, func() error {
		described, err := c.admin.DescribeTransactions(ctx, id)
		if err != nil {
			return err
		}
		d, found = described[id]
		return d.Err
	})
	if err != nil {
		return TransactionInfo{}, c.transactionErr(id, err)
	}
	if !found {
		return TransactionInfo{}, problem.New(problem.NotFound, "error.unknownTransaction", "id", id)
	}
	info := TransactionInfo{
		TransactionalID: id,
		State:           TxnState(d.State),
		ProducerID:      d.ProducerID,
		ProducerEpoch:   d.ProducerEpoch,
		TimeoutMs:       d.TimeoutMillis,
		StartTimestamp:  d.StartTimestamp,
		Coordinator:     d.Coordinator,
		Partitions:      []string{},
	}
	d.Topics.Each(func(t string, p int32) {
		info.Partitions = append(info.Partitions, t+"-"+strconv.Itoa(int(p)))
	})
	sort.Strings(info.Partitions)
	return info, nil
}

func (c *Cluster) transactionErr(id string, err error) error {
	if errors.Is(err, kerr.TransactionalIDNotFound) {
		return problem.New(problem.NotFound, "error.unknownTransaction", "id", id)
	}
	return fmt.Errorf("cluster: describe transaction %s: %w", id, err)
}
