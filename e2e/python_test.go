package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// pythonEnv names a Python interpreter that has confluent-kafka installed
// (scripts/test.sh sets it to the venv it creates).
const pythonEnv = "OFFSETLAB_PYTHON"

// pythonPath is the Python with confluent-kafka a test runs: it skips the
// test under go test -short, and when pythonEnv is unset (failing under
// CI=true), saying that what is skipped.
func pythonPath(t *testing.T, what string) string {
	t.Helper()
	testenv.Needs(t, testenv.Python)
	python := os.Getenv(pythonEnv)
	if python == "" {
		testenv.MissingSetup(t, "%s skipped: set %s to a python with confluent-kafka (scripts/test.sh does)", what, pythonEnv)
	}
	return python
}

// seedClient runs scripts/py/seedclient.py, the seeds' own client, against
// this app's broker and decodes its JSON output into out.
func (a *app) seedClient(out any, args ...string) {
	a.t.Helper()
	python := pythonPath(a.t, "cross-client tests")
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "scripts", "py", "seedclient.py")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, append([]string{script}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil && !strings.Contains(string(stdout), `"crashed": true`) {
		a.t.Fatalf("seedclient.py %v: %v\nstdout: %s\nstderr: %s", args, err, stdout, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		a.t.Fatalf("seedclient.py %v printed %q: %v", args, stdout, err)
	}
}

func (a *app) bootstrap() string { return strings.Join(a.kafka.Brokers(), ",") }

// pythonConsumed is what confluent-kafka receives at iso, as "offset: value".
func (a *app) pythonConsumed(topic, iso string) []string {
	a.t.Helper()
	var r records
	a.seedClient(&r, "read", a.bootstrap(), topic, iso)
	var out []string
	for _, rec := range r.Records {
		out = append(out, fmt.Sprintf("%d: %s", rec.Offset, *rec.Value))
	}
	return out
}

// TestSeedClientTransactions: a transactional confluent-kafka producer
// commits, aborts and commits through the broker's Kafka port; the API
// reports exactly the log it wrote, and confluent-kafka's consumers at both
// isolation levels receive what the API says they receive.
func TestSeedClientTransactions(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			topic := a.name("python-txn")
			a.createTopic(topic)
			var ok map[string]any
			a.seedClient(&ok, "txn-demo", a.bootstrap(), topic, a.name("python-demo"))
			a.settledTransaction(a.name("python-demo"))
			equal(t, "log written by confluent-kafka", a.log(topic).shape(), []string{
				"0:committed", "1:COMMIT", "2:aborted", "3:ABORT", "4:committed", "5:COMMIT",
			})
			// librdkafka speaks transaction version 1: no epoch change
			// without a fence, on both brokers.
			equal(t, "epochs written by confluent-kafka", epochCells(a.log(topic)), []string{
				"0 data e0", "1 COMMIT e0", "2 data e0", "3 ABORT e0", "4 data e0", "5 COMMIT e0",
			})
			for _, iso := range []string{"read_committed", "read_uncommitted"} {
				equal(t, "confluent-kafka vs API at "+iso, a.pythonConsumed(topic, iso), a.consumed(topic, iso))
			}
		})
	}
}

// TestSeedProcessorLesson2: the seed's own processor (confluent-kafka,
// os._exit before commit_transaction) runs lesson 2 while Offset Lab only
// watches; the log shows the same offsets and markers as with ours.
func TestSeedProcessorLesson2(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			orders, _, totalsTx := a.seedTopics()
			group, txnID := a.name("totals-tx-py"), a.name("order-totals-app-py")
			var run runResult
			a.seedClient(&run, "processor", a.bootstrap(), "tx", orders, totalsTx, group, txnID, "O-2")
			if !run.Crashed {
				t.Fatalf("python processor did not crash: %q", run.Log)
			}
			var txn txnView
			a.do("GET", "/api/transactions/"+txnID, nil, http.StatusOK, &txn)
			if txn.State != "Ongoing" {
				t.Fatalf("transaction after the python crash: %+v, want Ongoing", txn)
			}
			a.seedClient(&run, "processor", a.bootstrap(), "tx", orders, totalsTx, group, txnID)
			a.settledTransaction(txnID)
			equal(t, "log after the python processor", a.log(totalsTx).shape(), []string{
				"0:committed", "1:COMMIT", "2:aborted", "3:ABORT", "4:committed", "5:COMMIT", "6:committed", "7:COMMIT",
			})
			// Transaction version 1: the fence's ABORT carries the
			// epoch raised once, the restarted producer twice.
			equal(t, "epochs after the python processor", epochCells(a.log(totalsTx)), []string{
				"0 data e0", "1 COMMIT e0", "2 data e0", "3 ABORT e1", "4 data e2", "5 COMMIT e2", "6 data e2", "7 COMMIT e2",
			})
			a.assertGroup(group, orders, 3, 3, 0)
			for _, iso := range []string{"read_committed", "read_uncommitted"} {
				equal(t, "confluent-kafka vs API at "+iso, a.pythonConsumed(totalsTx, iso), a.consumed(totalsTx, iso))
			}
		})
	}
}
