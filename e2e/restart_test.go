package e2e

import (
	"net/http"
	"testing"

	embeddedbroker "github.com/offsetlab/offsetlab/internal/embedded"
)

// TestRestartKeepsLog runs lesson 2 on an embedded broker persisted under a
// data directory, restarts it on the same directory and checks that the
// log (every offset, marker and value), the group offsets and the
// coordinator's answer are byte-for-byte the same.
func TestRestartKeepsLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := func() *app {
		t.Helper()
		kafka, err := embeddedbroker.Start(embeddedbroker.Config{KafkaAddr: "127.0.0.1:0", DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		a := startAppOn(t, embedded, kafka)
		a.suffix = "persisted"
		return a
	}

	a := start()
	orders, _, totalsTx := a.seedTopics()
	group, txnID := a.name("totals-tx"), a.name("order-totals-app")
	run := map[string]any{"mode": "tx", "input": orders, "output": totalsTx, "group": group, "transactionalId": txnID}
	crash := map[string]any{"crashAt": "O-2"}
	for k, v := range run {
		crash[k] = v
	}
	a.do("POST", "/api/processor/runs", crash, http.StatusOK, nil)
	a.do("POST", "/api/processor/runs", run, http.StatusOK, nil)
	snapshot := func(a *app) map[string]string {
		t.Helper()
		paths := []string{
			"/api/topics/" + totalsTx + "/partitions/0/log?from=0&limit=100",
			"/api/topics/" + orders + "/partitions/0/log?from=0&limit=100",
			"/api/groups/" + group,
			"/api/transactions/" + txnID,
		}
		out := map[string]string{}
		for _, p := range paths {
			status, body := a.request("GET", p, nil)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", p, status, body)
			}
			out[p] = string(body)
		}
		return out
	}
	before := snapshot(a)
	a.kafka.Close()

	b := start()
	after := snapshot(b)
	for p, want := range before {
		if after[p] != want {
			t.Errorf("after restart GET %s:\n got  %s\n want %s", p, after[p], want)
		}
	}
	equal(t, "read_committed after restart", b.consumed(totalsTx, "read_committed"), []string{
		"0: O-1 total=30000", "4: O-2 total=42000", "6: O-3 total=27000",
	})
}
