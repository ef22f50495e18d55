package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestKillNineKeepsLesson2 runs
// lesson 2 on the server binary (a child process over the embedded broker
// and a data directory) up to the crash, kills the server with SIGKILL in
// the middle of the open transaction, starts it again on the same data
// directory and finishes the lesson (the restarted processor run). The log
// of both topics (offsets, kinds, markers, outcomes, values, visibility),
// the pointers, the group's offsets, what read_committed and
// read_uncommitted consumers receive and the coordinator's state must equal
// those of the same lesson run on a second server that was never killed.
func TestKillNineKeepsLesson2(t *testing.T) {
	t.Parallel()
	testenv.Long(t, "it kills and restarts the server binary in the middle of lesson 2")

	// The interrupted run.
	dir := t.TempDir()
	first := startServerProcess(t, "--data-dir", dir)
	a := first.app("kill9")
	orders, _, totalsTx := a.seedTopics()
	group, txnID := a.name("totals-tx"), a.name("order-totals-app")
	run := map[string]any{"mode": "tx", "input": orders, "output": totalsTx, "group": group, "transactionalId": txnID}
	crash := map[string]any{"crashAt": "O-2"}
	for k, v := range run {
		crash[k] = v
	}
	var res runResult
	a.do("POST", "/api/processor/runs", crash, http.StatusOK, &res)
	if !res.Crashed {
		t.Fatalf("the crash run did not crash: %q", res.Log)
	}
	var txn txnView
	a.do("GET", "/api/transactions/"+txnID, nil, http.StatusOK, &txn)
	if txn.State != "Ongoing" {
		t.Fatalf("transaction after the crash run = %+v, want Ongoing", txn)
	}
	beforeKill := a.log(totalsTx)
	first.kill()

	second := startServerProcess(t, "--data-dir", dir)
	b := second.app("kill9")
	afterKill := b.log(totalsTx)
	for i, e := range beforeKill.Entries {
		if i >= len(afterKill.Entries) || afterKill.Entries[i].Offset != e.Offset || afterKill.Entries[i].Kind != e.Kind ||
			!equalStrPtr(afterKill.Entries[i].Value, e.Value) {
			t.Fatalf("after kill -9 the log lost offsets:\n before %s\n after  %s", jsonText(beforeKill.Entries), jsonText(afterKill.Entries))
		}
	}
	// As on Kafka, the transaction open at the kill is still open: no
	// marker was written at start; the restarted processor's fence
	// aborts it.
	var resumed txnView
	b.do("GET", "/api/transactions/"+txnID, nil, http.StatusOK, &resumed)
	if resumed.State != "Ongoing" || len(afterKill.Entries) != len(beforeKill.Entries) || afterKill.LastStableOffset != beforeKill.LastStableOffset {
		t.Fatalf("after kill -9 the transaction is %+v, the log %s (LSO %d); want it Ongoing and the log as before the kill %s (LSO %d)",
			resumed, jsonText(afterKill.Entries), afterKill.LastStableOffset, jsonText(beforeKill.Entries), beforeKill.LastStableOffset)
	}
	b.do("POST", "/api/processor/runs", run, http.StatusOK, &res)
	if !slices.ContainsFunc(res.Log, func(l string) bool { return strings.Contains(l, "CONCURRENT_TRANSACTIONS") }) {
		t.Errorf("the restarted run's log %q: want the CONCURRENT_TRANSACTIONS retry of its fence", res.Log)
	}
	if res.Crashed {
		t.Fatalf("the restarted run crashed: %q", res.Log)
	}
	b.settledTransaction(txnID)
	interrupted := lessonState(b, orders, totalsTx, group, txnID)
	// The epochs Kafka writes when the fence comes after its restart.
	equal(t, "epochs after kill -9 and restart", epochCells(b.log(totalsTx)), processorEpochs)

	// The same lesson on a server that is never killed.
	fresh := startServerProcess(t, "--data-dir", t.TempDir())
	c := fresh.app("kill9")
	c.seedTopics()
	c.do("POST", "/api/processor/runs", crash, http.StatusOK, &res)
	c.do("POST", "/api/processor/runs", run, http.StatusOK, &res)
	c.settledTransaction(txnID)
	uninterrupted := lessonState(c, orders, totalsTx, group, txnID)

	for _, k := range slices.Sorted(maps.Keys(uninterrupted)) {
		if interrupted[k] != uninterrupted[k] {
			t.Errorf("%s after kill -9 and restart:\n got  %s\n want %s (uninterrupted run)", k, interrupted[k], uninterrupted[k])
		}
	}
	if os.Getenv("OFFSETLAB_TEST_LOG") != "" {
		t.Logf("server log after the restart:\n%s", second.logText())
	}
}

// lessonState is what lesson 2 leaves behind, as comparable text: each
// topic's log (with producer epochs, without producer ids and timestamps,
// which differ between any two runs), pointers, consumers' views, the group
// and the coordinator's state.
func lessonState(a *app, orders, totalsTx, group, txnID string) map[string]string {
	a.t.Helper()
	out := map[string]string{}
	for _, topic := range []string{orders, totalsTx} {
		l := a.log(topic)
		var cells []string
		for _, e := range l.Entries {
			v := "<null>"
			if e.Value != nil {
				v = *e.Value
			}
			cells = append(cells, fmt.Sprintf("%d %s %s %s e%d %q rc=%v ru=%v", e.Offset, e.Kind, e.Marker, e.Txn, e.ProducerEpoch, v, e.ReadCommitted, e.ReadUncommitted))
		}
		out["log of "+topic] = strings.Join(cells, "; ")
		out["pointers of "+topic] = fmt.Sprintf("log start %d, LSO %d, HW %d", l.LogStartOffset, l.LastStableOffset, l.HighWatermark)
		for _, iso := range []string{"read_committed", "read_uncommitted"} {
			out[iso+" of "+topic] = strings.Join(a.consumed(topic, iso), "; ")
		}
	}
	g := a.group(group)
	out["group "+group] = fmt.Sprintf("%s %s", g.State, jsonText(g.Offsets))
	var txn txnView
	a.do("GET", "/api/transactions/"+txnID, nil, http.StatusOK, &txn)
	out["transaction "+txnID] = fmt.Sprintf("%s %v", txn.State, txn.Partitions)
	return out
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func equalStrPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
