package e2e

import (
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

type runResult struct {
	Log     []string `json:"log"`
	Crashed bool     `json:"crashed"`
}

type groupView struct {
	State   string `json:"state"`
	Offsets []struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
		Committed int64  `json:"committed"`
		LogEnd    int64  `json:"logEnd"`
		Lag       int64  `json:"lag"`
	} `json:"offsets"`
}

type txnView struct {
	State         string   `json:"state"`
	ProducerID    int64    `json:"producerId"`
	ProducerEpoch int16    `json:"producerEpoch"`
	TimeoutMs     int32    `json:"timeoutMs"`
	Partitions    []string `json:"partitions"`
}

// settledTransaction waits until the coordinator has finished writing the
// markers of the transaction's last EndTxn (no Prepare* state) and the
// transaction's partitions have caught up, then returns its description.
func (a *app) settledTransaction(id string) txnView {
	a.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var txn txnView
		a.do("GET", "/api/transactions/"+id, nil, http.StatusOK, &txn)
		if !strings.HasPrefix(txn.State, "Prepare") {
			return txn
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("transaction %s still %s after 30s", id, txn.State)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// seedTopics creates the seed's topics and its three orders.
func (a *app) seedTopics() (orders, totals, totalsTx string) {
	a.t.Helper()
	orders, totals, totalsTx = a.name("orders"), a.name("order-totals"), a.name("order-totals-tx")
	for _, topic := range []string{orders, totals, totalsTx} {
		a.createTopic(topic)
	}
	a.do("POST", "/api/produce", map[string]any{
		"topic": orders, "values": []string{"O-1 2x15000", "O-2 1x42000", "O-3 3x9000"}, "acks": "all",
	}, http.StatusOK, nil)
	return orders, totals, totalsTx
}

func (a *app) group(name string) groupView {
	a.t.Helper()
	var g groupView
	a.do("GET", "/api/groups/"+name, nil, http.StatusOK, &g)
	return g
}

func (a *app) assertGroup(name, topic string, committed, logEnd, lag int64) {
	a.t.Helper()
	g := a.group(name)
	if len(g.Offsets) != 1 {
		a.t.Fatalf("group %s offsets = %+v, want one partition", name, g.Offsets)
	}
	o := g.Offsets[0]
	if o.Topic != topic || o.Committed != committed || o.LogEnd != logEnd || o.Lag != lag {
		a.t.Fatalf("group %s = %+v, want %s committed %d, log end %d, lag %d", name, o, topic, committed, logEnd, lag)
	}
}

// TestLessons runs lessons 1-3 of docs/lessons.md (seed 000) through the HTTP API
// and asserts the offsets Apache Kafka 4.3.1 showed in the seed.
func TestLessons(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			orders, totals, totalsTx := a.seedTopics()
			plainGroup, txGroup, txnID := a.name("totals-plain"), a.name("totals-tx"), a.name("order-totals-app")

			// Lesson 1: crash before the offset commit, no transaction.
			var run runResult
			a.do("POST", "/api/processor/runs", map[string]any{
				"mode": "plain", "input": orders, "output": totals, "group": plainGroup, "crashAt": "O-2",
			}, http.StatusOK, &run)
			if !run.Crashed {
				t.Fatalf("plain run with crashAt O-2: crashed = false; log %q", run.Log)
			}
			equal(t, "lesson 1 crashed run log", run.Log, []string{
				"offset 0 O-1 processed, wrote 'O-1 total=30000' to " + totals,
				"offset 1 O-2 processed, wrote 'O-2 total=42000' to " + totals,
				"O-2: process killed before the offset commit",
			})
			a.assertGroup(plainGroup, orders, 1, 3, 2)
			a.do("POST", "/api/processor/runs", map[string]any{
				"mode": "plain", "input": orders, "output": totals, "group": plainGroup,
			}, http.StatusOK, &run)
			equal(t, "lesson 1 restarted run log", run.Log, []string{
				"offset 1 O-2 processed, wrote 'O-2 total=42000' to " + totals,
				"offset 2 O-3 processed, wrote 'O-3 total=27000' to " + totals,
			})
			equal(t, "lesson 1 order-totals read_committed", a.consumed(totals, "read_committed"), []string{
				"0: O-1 total=30000", "1: O-2 total=42000", "2: O-2 total=42000", "3: O-3 total=27000",
			})
			a.assertGroup(plainGroup, orders, 3, 3, 0)

			// Lesson 2: the same crash inside a transaction.
			a.do("POST", "/api/processor/runs", map[string]any{
				"mode": "tx", "input": orders, "output": totalsTx, "group": txGroup,
				"transactionalId": txnID, "crashAt": "O-2",
			}, http.StatusOK, &run)
			if !run.Crashed {
				t.Fatalf("tx run with crashAt O-2: crashed = false; log %q", run.Log)
			}
			var txn txnView
			a.do("GET", "/api/transactions/"+txnID, nil, http.StatusOK, &txn)
			if txn.State != "Ongoing" || !slices.Contains(txn.Partitions, totalsTx+"-0") || txn.TimeoutMs != 60000 {
				t.Fatalf("transaction after the crash = %+v, want Ongoing with %s-0, timeout 60000", txn, totalsTx)
			}
			if !slices.ContainsFunc(txn.Partitions, func(p string) bool { return strings.HasPrefix(p, "__consumer_offsets-") }) {
				t.Fatalf("%s: ongoing transaction partitions %v: want a __consumer_offsets partition listed", kind, txn.Partitions)
			}
			// The crash left O-2 open at epoch 1: O-1's COMMIT raised it
			// (transaction version 2), on both brokers.
			crashedEpoch := txn.ProducerEpoch
			if crashedEpoch != 1 {
				t.Fatalf("%s: epoch of the crashed transaction = %d, want 1", kind, crashedEpoch)
			}
			a.do("POST", "/api/processor/runs", map[string]any{
				"mode": "tx", "input": orders, "output": totalsTx, "group": txGroup, "transactionalId": txnID,
			}, http.StatusOK, &run)
			retried := slices.ContainsFunc(run.Log, func(l string) bool { return strings.Contains(l, "CONCURRENT_TRANSACTIONS") })
			if !retried {
				t.Fatalf("%s: restart log %q: want the CONCURRENT_TRANSACTIONS retry shown", kind, run.Log)
			}
			processed := slices.DeleteFunc(slices.Clone(run.Log), func(l string) bool { return strings.Contains(l, "CONCURRENT_TRANSACTIONS") })
			equal(t, "lesson 2 restarted run log", processed, []string{
				"offset 1 O-2 processed, wrote 'O-2 total=42000' to " + totalsTx,
				"offset 2 O-3 processed, wrote 'O-3 total=27000' to " + totalsTx,
			})
			// Kafka answers EndTxn once PrepareCommit is logged and writes
			// the markers afterwards: wait for the coordinator to settle.
			txn = a.settledTransaction(txnID)
			// The fence aborted with epoch 2 and gave the restart 3; its
			// two commits raised it to 5.
			if txn.State != "CompleteCommit" || txn.ProducerEpoch != 5 {
				t.Fatalf("%s: transaction after the restart = %+v, want state CompleteCommit, epoch 5", kind, txn)
			}
			equal(t, "lesson 2 order-totals-tx read_committed", a.consumed(totalsTx, "read_committed"), []string{
				"0: O-1 total=30000", "4: O-2 total=42000", "6: O-3 total=27000",
			})
			a.assertGroup(txGroup, orders, 3, 3, 0)

			// Lesson 3: what read_uncommitted sees, and the markers.
			equal(t, "lesson 3 order-totals-tx read_uncommitted", a.consumed(totalsTx, "read_uncommitted"), []string{
				"0: O-1 total=30000", "2: O-2 total=42000", "4: O-2 total=42000", "6: O-3 total=27000",
			})
			l := a.log(totalsTx)
			equal(t, "lesson 3 log", l.shape(), []string{
				"0:committed", "1:COMMIT", "2:aborted", "3:ABORT", "4:committed", "5:COMMIT", "6:committed", "7:COMMIT",
			})
			equal(t, "lesson 3 epochs", epochCells(l), processorEpochs)
			if l.LastStableOffset != 8 || l.HighWatermark != 8 || l.LogStartOffset != 0 {
				t.Fatalf("lesson 3 pointers: log start %d, LSO %d, HW %d; want 0, 8, 8", l.LogStartOffset, l.LastStableOffset, l.HighWatermark)
			}
			var rc, ru []int64
			for _, e := range l.Entries {
				if e.ReadCommitted {
					rc = append(rc, e.Offset)
				}
				if e.ReadUncommitted {
					ru = append(ru, e.Offset)
				}
			}
			equal(t, "lesson 3 log read_committed visibility", rc, []int64{0, 4, 6})
			equal(t, "lesson 3 log read_uncommitted visibility", ru, []int64{0, 2, 4, 6})

			// The seeds' own client must receive exactly what the API says.
			if testenv.May(testenv.Python) && os.Getenv(pythonEnv) != "" {
				for _, topic := range []string{orders, totals, totalsTx} {
					for _, iso := range []string{"read_committed", "read_uncommitted"} {
						equal(t, "confluent-kafka vs API on "+topic+" at "+iso, a.pythonConsumed(topic, iso), a.consumed(topic, iso))
					}
				}
			}
		})
	}
}
