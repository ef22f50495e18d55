package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	embeddedbroker "github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/testenv"
	"github.com/offsetlab/offsetlab/web"
)

// brokerKind names the broker a case runs on.
type brokerKind string

const (
	embedded  brokerKind = "embedded"
	realKafka brokerKind = "kafka"
)

// brokersEnv points the tests at a running Apache Kafka cluster.
const brokersEnv = "OFFSETLAB_KAFKA_BROKERS"

// brokerKinds is the table every lesson test runs over.
var brokerKinds = []brokerKind{embedded, realKafka}

// app is a running Offset Lab over one broker.
type app struct {
	t      *testing.T
	url    string
	kind   brokerKind
	kafka  *cluster.Cluster
	suffix string // makes topic, group and transactional names unique per run on a shared cluster
	// answers, when set, keeps every answer's body (a test that greps
	// them for secrets).
	answers *answerLog
	// historyDir is where the server records partitions' histories.
	historyDir string
}

// answerLog keeps the bodies of answers.
type answerLog struct {
	mu     sync.Mutex
	bodies []string
}

func (l *answerLog) add(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bodies = append(l.bodies, string(b))
}

func (l *answerLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.bodies)
}

// startApp starts the web server over a fresh embedded broker, or over the
// real cluster named by OFFSETLAB_KAFKA_BROKERS (skipping when unset).
func startApp(t *testing.T, kind brokerKind) *app {
	t.Helper()
	return startAppOn(t, kind, connectKafka(t, kind))
}

// connectKafka starts a fresh embedded broker, or connects to the real
// cluster named by OFFSETLAB_KAFKA_BROKERS (skipping when unset); it
// closes when the test ends.
func connectKafka(t *testing.T, kind brokerKind) *cluster.Cluster {
	t.Helper()
	var kafka *cluster.Cluster
	var err error
	switch kind {
	case embedded:
		kafka, err = embeddedbroker.Start(embeddedbroker.Config{KafkaAddr: "127.0.0.1:0"})
	case realKafka:
		testenv.Needs(t, testenv.JVM)
		brokers := os.Getenv(brokersEnv)
		if brokers == "" {
			testenv.MissingSetup(t, "real Kafka tests skipped: set %s=host:port (scripts/test.sh starts Apache Kafka 4.3.1 and sets it)", brokersEnv)
		}
		kafka, err = cluster.ConnectExternal(cluster.ExternalConfig{Brokers: strings.Split(brokers, ",")})
	}
	if err != nil {
		t.Fatalf("connect to %s broker: %v", kind, err)
	}
	t.Cleanup(kafka.Close)
	return kafka
}

// startAppOn starts the web server over kafka; a local cluster, if given,
// is the brokers the server runs itself (--local-kafka).
func startAppOn(t *testing.T, kind brokerKind, kafka *cluster.Cluster, local ...*localkafka.Cluster) *app {
	t.Helper()
	var managed *localkafka.Cluster
	if len(local) > 0 {
		managed = local[0]
	}
	return serveOn(t, kind, kafka, managed, t.TempDir())
}

// serveOn starts the web server over kafka, recording histories in
// historyDir; it stops when the test ends.
func serveOn(t *testing.T, kind brokerKind, kafka *cluster.Cluster, managed *localkafka.Cluster, historyDir string) *app {
	t.Helper()
	srv := web.New(serverDeps(t, kafka, managed, historyDir), testLogger())
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &app{t: t, url: ts.URL, kind: kind, kafka: kafka, suffix: randomSuffix(t), historyDir: historyDir}
}

// serverDeps wires the lab and the lesson runner over kafka as cmd/server
// does; local, if not nil, is the cluster the server runs (--local-kafka);
// the partitions' histories are kept in historyDir. Both close when the
// test ends, the runner first.
func serverDeps(t *testing.T, kafka *cluster.Cluster, local *localkafka.Cluster, historyDir string) web.Deps {
	t.Helper()
	cfg := lab.Config{Cluster: kafka, Logger: testLogger()}
	cfg.Live.HistoryDir = historyDir
	if local != nil {
		cfg.Brokers = local
	}
	l := lab.New(cfg)
	t.Cleanup(l.Close)
	runner := lessons.New(l)
	t.Cleanup(runner.Close)
	return web.Deps{Lab: l, Lessons: runner}
}

// testLogger logs the server's messages to stderr when OFFSETLAB_TEST_LOG
// is set, and discards them otherwise.
func testLogger() *slog.Logger {
	if os.Getenv("OFFSETLAB_TEST_LOG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, nil))
}

func randomSuffix(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// name returns base made unique for this run.
func (a *app) name(base string) string { return base + "-" + a.suffix }

// do sends a request and decodes the JSON answer into out (if not nil),
// failing the test unless the status is want.
func (a *app) do(method, path string, body any, want int, out any) {
	a.t.Helper()
	status, raw := a.request(method, path, body)
	if status != want {
		a.t.Fatalf("%s %s: status %d, want %d; body: %s", method, path, status, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s %s: decode %s: %v", method, path, raw, err)
		}
	}
}

// request sends a request and returns the status and raw body.
func (a *app) request(method, path string, body any) (int, []byte) {
	a.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, a.url+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	if a.answers != nil {
		a.answers.add(raw)
	}
	return resp.StatusCode, raw
}

// createTopic creates a one-partition topic.
func (a *app) createTopic(name string) {
	a.t.Helper()
	a.do("POST", "/api/topics", map[string]any{"name": name, "partitions": 1}, http.StatusCreated, nil)
}

// records is GET .../records.
type records struct {
	Records []struct {
		Offset int64   `json:"offset"`
		Value  *string `json:"value"`
	} `json:"records"`
}

// consumed returns "offset: value" lines as a consumer at iso receives them.
func (a *app) consumed(topic, iso string) []string {
	a.t.Helper()
	var r records
	a.do("GET", fmt.Sprintf("/api/topics/%s/partitions/0/records?isolation=%s", topic, iso), nil, http.StatusOK, &r)
	var out []string
	for _, rec := range r.Records {
		v := "<null>"
		if rec.Value != nil {
			v = *rec.Value
		}
		out = append(out, fmt.Sprintf("%d: %s", rec.Offset, v))
	}
	return out
}

// partitionLog is GET .../log.
type partitionLog struct {
	LogStartOffset   int64 `json:"logStartOffset"`
	LastStableOffset int64 `json:"lastStableOffset"`
	HighWatermark    int64 `json:"highWatermark"`
	Entries          []struct {
		Offset          int64   `json:"offset"`
		Kind            string  `json:"kind"`
		Marker          string  `json:"marker"`
		Txn             string  `json:"txn"`
		ProducerID      int64   `json:"producerId"`
		ProducerEpoch   int16   `json:"producerEpoch"`
		Value           *string `json:"value"`
		ReadCommitted   bool    `json:"readCommitted"`
		ReadUncommitted bool    `json:"readUncommitted"`
		DuplicateOf     *int64  `json:"duplicateOf"`
	} `json:"entries"`
}

func (a *app) log(topic string) partitionLog {
	a.t.Helper()
	var l partitionLog
	a.do("GET", fmt.Sprintf("/api/topics/%s/partitions/0/log?from=0&limit=100", topic), nil, http.StatusOK, &l)
	return l
}

// shape summarises a log as "offset:kind/marker-or-txn" cells.
func (l partitionLog) shape() []string {
	var out []string
	for _, e := range l.Entries {
		if e.Kind == "control" {
			out = append(out, fmt.Sprintf("%d:%s", e.Offset, e.Marker))
		} else {
			out = append(out, fmt.Sprintf("%d:%s", e.Offset, e.Txn))
		}
	}
	return out
}

func equal[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s:\n got  %v\n want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s:\n got  %v\n want %v", what, got, want)
		}
	}
}

// TestMain runs the package's tests, then stops the clusters they shared.
func TestMain(m *testing.M) {
	code := m.Run()
	stopSecure()
	os.Exit(code)
}
