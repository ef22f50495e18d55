package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// partitionShape reads a partition from the start, control records
// included, as "offset:COMMIT|ABORT|data" cells, and what a read_committed
// consumer receives.
func partitionShape(t *testing.T, c *cluster.Cluster, topic string) (cells, committed []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ends, err := c.Admin().ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	stables, err := c.Admin().ListCommittedOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, iso := range []kgo.IsolationLevel{kgo.ReadUncommitted(), kgo.ReadCommitted()} {
		// read_committed consumers read up to the last stable offset.
		end, _ := ends.Lookup(topic, 0)
		if iso == kgo.ReadCommitted() {
			end, _ = stables.Lookup(topic, 0)
		}
		cl, err := kgo.NewClient(append(c.ClientOpts(),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
			kgo.KeepControlRecords(), kgo.FetchIsolationLevel(iso))...)
		if err != nil {
			t.Fatal(err)
		}
		for next := int64(0); next < end.Offset; {
			fs := cl.PollFetches(ctx)
			if ctx.Err() != nil {
				t.Fatalf("read %s: %v (at %d of %d)", topic, ctx.Err(), next, end.Offset)
			}
			fs.EachRecord(func(r *kgo.Record) {
				next = r.Offset + 1
				switch {
				case iso == kgo.ReadCommitted() && !r.Attrs.IsControl():
					committed = append(committed, fmt.Sprintf("%d:%s", r.Offset, r.Value))
				case iso == kgo.ReadCommitted():
				case r.Attrs.IsControl() && len(r.Key) >= 4 && r.Key[3] == 1:
					cells = append(cells, fmt.Sprintf("%d:COMMIT", r.Offset))
				case r.Attrs.IsControl():
					cells = append(cells, fmt.Sprintf("%d:ABORT", r.Offset))
				default:
					cells = append(cells, fmt.Sprintf("%d:%s", r.Offset, r.Value))
				}
			})
		}
		cl.Close()
	}
	return cells, committed
}

// openTransactionOn begins a transaction with id and writes value to topic
// without ending it.
func openTransactionOn(t *testing.T, c *cluster.Cluster, topic, id, value string) *kgo.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(append(c.ClientOpts(), kgo.TransactionalID(id), kgo.DefaultProduceTopic(topic))...)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, kgo.StringRecord(value)).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return cl
}

// commitOne writes value in a committed transaction with id.
func commitOne(t *testing.T, c *cluster.Cluster, topic, id, value string) {
	t.Helper()
	cl := openTransactionOn(t, c, topic, id, value)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
}

// openTransactionTimeout is openTransactionOn with a transaction timeout.
func openTransactionTimeout(t *testing.T, c *cluster.Cluster, topic, id, value string, timeout time.Duration) *kgo.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(append(c.ClientOpts(), kgo.TransactionalID(id), kgo.DefaultProduceTopic(topic), kgo.TransactionTimeout(timeout))...)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, kgo.StringRecord(value)).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return cl
}

// killedAndRestarted runs open on a broker, then starts a second broker on
// its data directory while the first still runs and was never closed: the
// second sees what a restart after kill -9 sees (the batches on disk, the
// running marker, no saved session state).
func killedAndRestarted(t *testing.T, open func(c *cluster.Cluster) *kgo.Client) *cluster.Cluster {
	t.Helper()
	dir := t.TempDir()
	first, err := Start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := first.CreateTopic(ctx, cluster.TopicSpec{Name: "totals", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	crashed := open(first)
	if _, err := os.Stat(filepath.Join(dir, runningFile)); err != nil {
		t.Fatalf("a running broker left no marker in its data dir: %v", err)
	}
	second, err := Start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	crashed.Close()
	t.Cleanup(func() {
		second.Close()
		first.Close() // only now: its shutdown writes over the directory
	})
	return second
}

// TestUncleanShutdownKeepsOpenTransaction: a transaction open when the
// process is killed stays Ongoing across the restart, its records held
// above the LSO with no marker, as Kafka keeps it (its coordinator's state
// is on disk). The producer's restart fences it: the ABORT marker comes
// then, and the producer's next transaction is read as committed.
func TestUncleanShutdownKeepsOpenTransaction(t *testing.T) {
	t.Parallel()
	second := killedAndRestarted(t, func(c *cluster.Cluster) *kgo.Client {
		commitOne(t, c, "totals", "app", "O-1")
		return openTransactionOn(t, c, "totals", "app", "O-2")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cells, committed := partitionShape(t, second, "totals")
	if want := []string{"0:O-1", "1:COMMIT", "2:O-2"}; fmt.Sprint(cells) != fmt.Sprint(want) || fmt.Sprint(committed) != "[0:O-1]" {
		t.Fatalf("after the unclean shutdown the log is %v (read_committed %v), want %v with O-1 committed", cells, committed, want)
	}
	txn, err := second.Transaction(ctx, "app")
	if err != nil {
		t.Fatal(err)
	}
	if txn.State != cluster.TxnOngoing || fmt.Sprint(txn.Partitions) != "[totals-0]" {
		t.Fatalf("after the unclean shutdown the transaction is %+v, want Ongoing on totals-0", txn)
	}
	commitOne(t, second, "totals", "app", "O-2 again")
	cells, committed = partitionShape(t, second, "totals")
	if want := []string{"0:O-1", "1:COMMIT", "2:O-2", "3:ABORT", "4:O-2 again", "5:COMMIT"}; fmt.Sprint(cells) != fmt.Sprint(want) {
		t.Fatalf("after the restarted producer committed, the log is %v, want %v", cells, want)
	}
	if want := []string{"0:O-1", "4:O-2 again"}; fmt.Sprint(committed) != fmt.Sprint(want) {
		t.Fatalf("read_committed receives %v, want %v", committed, want)
	}
}

// TestUncleanShutdownTimesOutOpenTransaction: a transaction resumed after
// an unclean shutdown is aborted by the broker once its
// transaction.timeout.ms has passed since it began, with no producer.
func TestUncleanShutdownTimesOutOpenTransaction(t *testing.T) {
	t.Parallel()
	second := killedAndRestarted(t, func(c *cluster.Cluster) *kgo.Client {
		return openTransactionTimeout(t, c, "totals", "slow", "P-1", 2*time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := wait.Until(ctx, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		txn, err := second.Transaction(ctx, "slow")
		return err == nil && txn.State == cluster.TxnCompleteAbort, err
	})
	if err != nil {
		t.Fatalf("the resumed transaction was not aborted by its timeout: %v", err)
	}
	if cells, _ := partitionShape(t, second, "totals"); fmt.Sprint(cells) != "[0:P-1 1:ABORT]" {
		t.Fatalf("after the timeout the log is %v, want [0:P-1 1:ABORT]", cells)
	}
}

// TestCleanShutdownKeepsOpenTransaction: after Close, a restart on the same
// data directory writes no marker: the embedded broker keeps the open
// transaction (Ongoing), as Kafka does, until its producer is fenced.
func TestCleanShutdownKeepsOpenTransaction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := Start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := first.CreateTopic(ctx, cluster.TopicSpec{Name: "totals", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	open := openTransactionOn(t, first, "totals", "app", "O-2")
	first.Close()
	open.Close()
	if _, err := os.Stat(filepath.Join(dir, runningFile)); !os.IsNotExist(err) {
		t.Fatalf("Close left the running marker: %v", err)
	}
	second, err := Start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(second.Close)
	cells, _ := partitionShape(t, second, "totals")
	if want := []string{"0:O-2"}; fmt.Sprint(cells) != fmt.Sprint(want) {
		t.Fatalf("after a clean restart the log is %v, want %v (no marker)", cells, want)
	}
	txn, err := second.Transaction(ctx, "app")
	if err != nil {
		t.Fatal(err)
	}
	if txn.State != "Ongoing" {
		t.Fatalf("after a clean restart the transaction is %s, want Ongoing", txn.State)
	}
}
