package e2e

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// tripleEnv asks for the tests that start their own three-broker Apache
// Kafka with cmd/offsetlab-kafka or internal/localkafka (scripts/test.sh
// sets it).
const tripleEnv = "OFFSETLAB_KAFKA_TRIPLE"

// harness runs the repo's Kafka runner, cmd/offsetlab-kafka (built once
// per test binary), with args — fetch, start SHAPE DIR, stop DIR,
// stop-node DIR N, start-node DIR N, status DIR — and returns its stdout.
// The clusters it starts stop when this test binary exits, whatever ends
// it (OFFSETLAB_KAFKA_WATCH_PID); still stop them in t.Cleanup.
func harness(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runHarness(t, args...)
	if err != nil {
		t.Fatalf("offsetlab-kafka %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// runHarness is harness that returns the error instead of failing.
func runHarness(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(kafkaRunnerBinary(t), args...)
	cmd.Dir = repoRoot(t) // ./.cache is the jar cache without OFFSETLAB_CACHE
	cmd.Env = append(os.Environ(), fmt.Sprintf("OFFSETLAB_KAFKA_WATCH_PID=%d", os.Getpid()))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// kafkaRunnerBinary builds cmd/offsetlab-kafka into a temporary directory
// once per test binary run and returns its path.
func kafkaRunnerBinary(t *testing.T) string {
	t.Helper()
	kafkaRunner.once.Do(func() {
		dir, err := os.MkdirTemp("", "offsetlab-kafka-bin-")
		if err != nil {
			kafkaRunner.err = err
			return
		}
		kafkaRunner.bin = filepath.Join(dir, "offsetlab-kafka")
		cmd := exec.Command("go", "build", "-o", kafkaRunner.bin, "./cmd/offsetlab-kafka")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			kafkaRunner.err = fmt.Errorf("go build ./cmd/offsetlab-kafka: %v\n%s", err, out)
		}
	})
	if kafkaRunner.err != nil {
		t.Fatal(kafkaRunner.err)
	}
	return kafkaRunner.bin
}

var kafkaRunner struct {
	once sync.Once
	bin  string
	err  error
}

// startTriple starts a three-broker KRaft cluster (seed 002's shape) and
// an app over it; the cluster is stopped when the test ends.
func startTriple(t *testing.T) (*app, string) {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	if os.Getenv(tripleEnv) == "" {
		testenv.MissingSetup(t, "three-broker tests skipped: set %s=1 to let them start Apache Kafka 4.3.1 with cmd/offsetlab-kafka (scripts/test.sh does)", tripleEnv)
	}
	dir := t.TempDir()
	out := harness(t, "start", "triple", dir)
	t.Cleanup(func() { harness(t, "stop", dir) })
	lines := strings.Split(out, "\n")
	kafka, err := cluster.ConnectExternal(cluster.ExternalConfig{Brokers: strings.Split(lines[len(lines)-1], ",")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kafka.Close)
	return startAppOn(t, realKafka, kafka), dir
}

// startManagedTriple starts seed 002's three brokers the way the server's
// --local-kafka triple does (internal/localkafka), and an app that runs
// them: the lesson and the Brokers API stop and start nodes for real.
func startManagedTriple(t *testing.T) (*app, *localkafka.Cluster) {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	if os.Getenv(tripleEnv) == "" {
		testenv.MissingSetup(t, "three-broker tests skipped: set %s=1 to let them start Apache Kafka 4.3.1 with internal/localkafka (scripts/test.sh does)", tripleEnv)
	}
	local, err := localkafka.Start(t.Context(), localkafka.Config{
		Shape: localkafka.Triple, Dir: t.TempDir(),
		Libs:   localkafka.DefaultLibs(os.Getenv, repoRoot(t)),
		Java:   localkafka.DefaultJava(os.Getenv),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := local.Close(); err != nil {
			t.Error(err)
		}
	})
	kafka, err := cluster.ConnectExternal(cluster.ExternalConfig{Brokers: local.Brokers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kafka.Close)
	return startAppOn(t, realKafka, kafka, local), local
}

type topicsView struct {
	Topics []struct {
		Name       string `json:"name"`
		Partitions []struct {
			Leader   int32   `json:"leader"`
			Replicas []int32 `json:"replicas"`
			ISR      []int32 `json:"isr"`
		} `json:"partitions"`
	} `json:"topics"`
}

// placement returns leader, replicas and ISR of topic's partition 0 as
// GET /api/topics reports them.
func (a *app) placement(topic string) (int32, []int32, []int32) {
	a.t.Helper()
	var v topicsView
	a.do("GET", "/api/topics", nil, http.StatusOK, &v)
	for _, tp := range v.Topics {
		if tp.Name == topic && len(tp.Partitions) > 0 {
			p := tp.Partitions[0]
			isr := slices.Clone(p.ISR)
			slices.Sort(isr)
			return p.Leader, p.Replicas, isr
		}
	}
	a.t.Fatalf("topic %s not in GET /api/topics", topic)
	return 0, nil, nil
}

func (a *app) waitISR(topic string, want []int32) {
	a.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, _, isr := a.placement(topic)
		if slices.Equal(isr, want) {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("ISR of %s is %v after 60s, want %v", topic, isr, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestTripleISR is seed 002's experiment on three real brokers: the API
// follows leader, replicas and ISR while two followers stop and restart;
// acks=all fails with NOT_ENOUGH_REPLICAS meanwhile, acks=1 is accepted.
func TestTripleISR(t *testing.T) {
	a, dir := startTriple(t)
	topic := a.name("reliable-orders")
	a.do("POST", "/api/topics", map[string]any{
		"name": topic, "partitions": 1, "replicationFactor": 3,
		"configs": map[string]string{"min.insync.replicas": "2"},
	}, http.StatusCreated, nil)
	a.waitISR(topic, []int32{1, 2, 3})
	leader, replicas, _ := a.placement(topic)
	if len(replicas) != 3 {
		t.Fatalf("replicas %v, want three", replicas)
	}
	produce := func(acks string) produceOutcome {
		t.Helper()
		var out produceOutcome
		a.do("POST", "/api/produce", map[string]any{
			"topic": topic, "key": "order-1001", "values": []string{"created", "paid", "packed", "shipped", "delivered"}, "acks": acks,
		}, http.StatusOK, &out)
		return out
	}
	for i, r := range produce("all").Results {
		if r.Error != nil || r.Offset == nil || *r.Offset != int64(i) {
			t.Fatalf("acks=all with three in-sync replicas: result %d = %+v", i, r)
		}
	}

	var followers []string
	for _, id := range replicas {
		if id != leader {
			followers = append(followers, fmt.Sprint(id))
		}
	}
	for _, f := range followers {
		harness(t, "stop-node", dir, f)
	}
	a.waitISR(topic, []int32{leader})
	for _, r := range produce("all").Results {
		if r.Error == nil || !strings.Contains(*r.Error, "NOT_ENOUGH_REPLICAS") {
			t.Fatalf("acks=all with ISR [%d]: %+v, want NOT_ENOUGH_REPLICAS", leader, r)
		}
	}
	for _, r := range produce("1").Results {
		if r.Error != nil || r.Offset == nil {
			t.Fatalf("acks=1 with ISR [%d]: %+v, want it accepted", leader, r)
		}
	}

	for _, f := range followers {
		harness(t, "start-node", dir, f)
	}
	a.waitISR(topic, []int32{1, 2, 3})
	for _, r := range produce("all").Results {
		if r.Error != nil {
			t.Fatalf("acks=all after the followers returned: %+v", r)
		}
	}
}
