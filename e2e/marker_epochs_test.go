package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/offsetlab/offsetlab/internal/wait"
)

// transactionVersions are the two kinds of transactional client, each with
// the producer epochs Apache Kafka 4.3.1 writes for it (measured with
// franz-go 1.22, the Java client 4.3.1 and librdkafka 2.15.1) in the
// scenario of TestMarkerEpochs: commit, abort, a transaction left open and
// fenced by a second producer with the same transactional.id, which then
// commits.
var transactionVersions = []struct {
	name string
	opts []kgo.Opt
	want []string
}{
	{
		// Transaction version 2 (KIP-890), what franz-go and the Java
		// client negotiate with Kafka 4.x: every COMMIT and ABORT carries
		// the epoch raised by one, which the next transaction uses; the
		// fence aborts with one more and the new producer gets another.
		name: "transaction version 2",
		want: []string{"0 data e0", "1 COMMIT e1", "2 data e1", "3 ABORT e2", "4 data e2", "5 ABORT e3", "6 data e4", "7 COMMIT e5"},
	},
	{
		// Transaction version 1, what librdkafka speaks (here franz-go
		// limited to Kafka 3.9's requests, EndTxn v4): the epoch stays
		// until the fence, whose ABORT carries it raised by one.
		name: "transaction version 1",
		opts: []kgo.Opt{kgo.MaxVersions(kversion.V3_9_0())},
		want: []string{"0 data e0", "1 COMMIT e0", "2 data e0", "3 ABORT e0", "4 data e0", "5 ABORT e1", "6 data e2", "7 COMMIT e2"},
	},
}

// TestMarkerEpochs drives transactions on each broker with a client of
// each transaction version and checks the producer epoch of every data
// batch and marker: the embedded broker must write the epochs Kafka
// writes.
func TestMarkerEpochs(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		for _, tv := range transactionVersions {
			t.Run(string(kind)+"/"+tv.name, func(t *testing.T) {
				t.Parallel()
				a := startApp(t, kind)
				topic, txnID := a.name("epochs"), a.name("epochs-app")
				a.createTopic(topic)
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				newProducer := func() *kgo.Client {
					t.Helper()
					opts := append([]kgo.Opt{
						kgo.SeedBrokers(a.kafka.Brokers()...),
						kgo.TransactionalID(txnID),
						kgo.TransactionTimeout(time.Minute),
						kgo.DefaultProduceTopic(topic),
						kgo.RecordPartitioner(kgo.ManualPartitioner()),
					}, tv.opts...)
					cl, err := kgo.NewClient(opts...)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(cl.Close)
					return cl
				}
				first := newProducer()
				transaction(ctx, t, first, "committed", kgo.TryCommit)
				transaction(ctx, t, first, "aborted", kgo.TryAbort)
				beginAndSend(ctx, t, first, "open")

				second := newProducer()
				if _, _, err := second.ProducerID(ctx); err != nil {
					t.Fatalf("the second producer's InitProducerID: %v", err)
				}
				transaction(ctx, t, second, "after the fence", kgo.TryCommit)
				err := first.EndTransaction(ctx, kgo.TryCommit)
				if !errors.Is(err, kerr.ProducerFenced) && !errors.Is(err, kerr.InvalidProducerEpoch) {
					t.Fatalf("the fenced producer's commit: %v, want PRODUCER_FENCED", err)
				}

				a.settledTransaction(txnID)
				equal(t, "epochs of "+topic, epochCells(a.log(topic)), tv.want)
			})
		}
	}
}

// TestReinitialisedTransactionTimeout initialises a transactional id with
// a timeout of 60 s, then again with 1 s, and leaves a transaction open:
// the broker must abort it on the new timeout, as Kafka applies the
// timeout of every InitProducerID (Kafka checks every 10 s, so the abort
// comes within about 11 s; the old timeout would take 60 s).
func TestReinitialisedTransactionTimeout(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			topic, txnID := a.name("reinit"), a.name("reinit-app")
			a.createTopic(topic)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			producer := func(timeout time.Duration) *kgo.Client {
				t.Helper()
				cl, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.TransactionalID(txnID),
					kgo.TransactionTimeout(timeout), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(cl.Close)
				return cl
			}
			patient := producer(time.Minute)
			transaction(ctx, t, patient, "committed", kgo.TryCommit)
			patient.Close()

			hasty := producer(time.Second)
			beginAndSend(ctx, t, hasty, "left open")
			var txn txnView
			a.do("GET", "/api/transactions/"+txnID, nil, 200, &txn)
			if txn.TimeoutMs != 1000 {
				t.Fatalf("the coordinator's timeout after the second InitProducerID = %d ms, want 1000", txn.TimeoutMs)
			}
			// Well before the first timeout's 60 s.
			within, stop := context.WithTimeout(ctx, 30*time.Second)
			defer stop()
			err := wait.Until(within, 100*time.Millisecond, func(context.Context) (bool, error) {
				l := a.log(topic)
				return len(l.Entries) == 4 && l.Entries[3].Marker == "ABORT", nil
			})
			if err != nil {
				t.Fatalf("the open transaction was not aborted within 30 s (on the 1 s timeout): %v; log %v", err, epochCells(a.log(topic)))
			}
			equal(t, "epochs of "+topic, epochCells(a.log(topic)), []string{"0 data e0", "1 COMMIT e1", "2 data e2", "3 ABORT e3"})
		})
	}
}

// transaction runs one transaction of one record and ends it.
func transaction(ctx context.Context, t *testing.T, cl *kgo.Client, value string, end kgo.TransactionEndTry) {
	t.Helper()
	beginAndSend(ctx, t, cl, value)
	if err := cl.EndTransaction(ctx, end); err != nil {
		t.Fatalf("end the transaction of %q: %v", value, err)
	}
}

// beginAndSend begins a transaction and writes one record to partition 0.
func beginAndSend(ctx context.Context, t *testing.T, cl *kgo.Client, value string) {
	t.Helper()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(value)}).FirstErr(); err != nil {
		t.Fatalf("produce %q: %v", value, err)
	}
}

// epochCells are "offset kind epoch" cells of a log: "3 ABORT e2".
func epochCells(l partitionLog) []string {
	var out []string
	for _, e := range l.Entries {
		kind := e.Kind
		if e.Kind == "control" {
			kind = e.Marker
		}
		out = append(out, fmt.Sprintf("%d %s e%d", e.Offset, kind, e.ProducerEpoch))
	}
	return out
}
