package lessons

import (
	"slices"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/live"
)

// DescribeTransaction is kafka-transactions.sh describe. It waits until
// the coordinator has finished writing markers (no Prepare* state).
type DescribeTransaction struct{ TransactionalID string }

// Kind implements Action.
func (DescribeTransaction) Kind() string { return "describe-transaction" }

// Facts implements Action: FactLists says whether partition 0 of topic Arg
// is in the transaction, FactOffsetsPartition whether a __consumer_offsets
// partition is, FactEpochBumped whether the epoch is above that of the
// producer that crashed or was fenced earlier in the run.
func (DescribeTransaction) Facts() []Fact {
	return []Fact{FactState, FactLists, FactOffsetsPartition, FactEpochBumped, FactTimeoutMs}
}

// Names implements Action.
func (a DescribeTransaction) Names() []string { return []string{a.TransactionalID} }

// TopicNames implements Action.
func (DescribeTransaction) TopicNames() []string { return nil }

// Icon implements Action.
func (DescribeTransaction) Icon() string { return live.EventInfo }

func (a DescribeTransaction) run(sc *stepContext) (*observation, error) {
	id := sc.name(a.TransactionalID)
	obs := newObservation("", 0)
	settle(sc, id)
	t, err := sc.lab.Transaction(sc, id)
	if err != nil {
		return obs, err
	}
	obs.tool("%-28s %-12s %-14s %-18s %-20s %s", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs", "TopicPartitions")
	obs.tool("%-28s %-12d %-14d %-18s %-20d %s", id, t.ProducerID, t.ProducerEpoch, t.State, t.TimeoutMs, strings.Join(t.Partitions, ","))
	obs.set(FactState, string(t.State))
	obs.set(FactTimeoutMs, strconv.Itoa(int(t.TimeoutMs)))
	obs.set(FactOffsetsPartition, yesNo(slices.ContainsFunc(t.Partitions, func(p string) bool { return strings.HasPrefix(p, "__consumer_offsets-") })))
	for _, topic := range sc.args(FactLists) {
		obs.setArg(FactLists, topic, yesNo(slices.Contains(t.Partitions, topic+"-0")))
	}
	if crashed, ok := sc.memory().crashedAt(id); ok {
		obs.set(FactEpochBumped, yesNo(t.ProducerEpoch > crashed))
	}
	ref, offset, anchor := transactionAnchor(sc, t)
	obs.topic, obs.partition = ref.Topic, ref.Partition
	obs.answer = &Answer{Transaction: &TransactionAnswer{
		TransactionalID: id, State: t.State, ProducerID: t.ProducerID, ProducerEpoch: t.ProducerEpoch,
		Offset: offset, Anchor: anchor,
	}}
	return obs, nil
}
