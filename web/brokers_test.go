package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/localkafka"
)

// externalLab is a Lab over a real cluster the test never reaches (the
// broker endpoints need none), with brokers the server runs, if given.
func externalLab(t *testing.T, brokers lab.Brokers) *lab.Lab {
	t.Helper()
	c, err := cluster.ConnectExternal(cluster.ExternalConfig{Brokers: []string{"127.0.0.1:19092"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c, Brokers: brokers})
	t.Cleanup(l.Close)
	return l
}

// fakeBrokers records stops and starts of three nodes.
type fakeBrokers struct{ up map[int]bool }

func (f *fakeBrokers) Nodes(context.Context) ([]localkafka.Node, error) {
	var out []localkafka.Node
	for id := 1; id <= 3; id++ {
		out = append(out, localkafka.Node{ID: id, Address: "127.0.0.1:1", Up: f.up[id]})
	}
	return out, nil
}
func (f *fakeBrokers) StopNode(_ context.Context, id int) error {
	if id < 1 || id > 3 {
		return localkafka.ErrUnknownNode
	}
	f.up[id] = false
	return nil
}
func (f *fakeBrokers) StartNode(_ context.Context, id int) error { f.up[id] = true; return nil }

func call(t *testing.T, h http.Handler, method, path string) (int, map[string]any) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	var v map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
	return w.Code, v
}

// TestBrokersUnmanaged: a cluster the server does not run, and that is not
// compose.triple.yaml's (this one never answers, so its id is unknown),
// gets no docker compose command, only where to stop a broker.
func TestBrokersUnmanaged(t *testing.T) {
	h := New(Deps{Lab: externalLab(t, nil)}, nil).Handler()
	code, v := call(t, h, "GET", "/api/brokers")
	if hint, _ := v["hint"].(string); code != 200 || v["managed"] != false || v["hintCode"] != "brokers.hint.external" || strings.Contains(hint, "docker compose") {
		t.Fatalf("GET /api/brokers: %d %v", code, v)
	}
	code, v = call(t, h, "POST", "/api/brokers/2/stop")
	if hint, _ := v["hint"].(string); code != http.StatusConflict || v["error"] == "" || hint == "" || strings.Contains(hint, "docker compose") {
		t.Fatalf("POST stop unmanaged: %d %v", code, v)
	}
}

// TestBrokersComposeTriple: compose.triple.yaml's cluster (known by its
// CLUSTER_ID; here a kfake cluster with that id) gets the docker compose
// command naming the services to stop.
func TestBrokersComposeTriple(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("MkU3OEVBNTcwNTJENDM2Qk"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	c, err := cluster.ConnectExternal(cluster.ExternalConfig{Brokers: fake.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c})
	t.Cleanup(l.Close)
	h := New(Deps{Lab: l}, nil).Handler()
	code, v := call(t, h, "GET", "/api/brokers")
	if hint, _ := v["hint"].(string); code != 200 || !strings.Contains(hint, "docker compose -f compose.triple.yaml stop kafka-2 kafka-3") {
		t.Fatalf("GET /api/brokers on compose.triple.yaml's cluster: %d %v", code, v)
	}
}

func TestBrokersManaged(t *testing.T) {
	f := &fakeBrokers{up: map[int]bool{1: true, 2: true, 3: true}}
	l := externalLab(t, f)
	h := New(Deps{Lab: l}, nil).Handler()
	code, v := call(t, h, "POST", "/api/brokers/2/stop")
	if code != 200 || v["managed"] != true || f.up[2] {
		t.Fatalf("POST stop: %d %v", code, v)
	}
	nodes := v["nodes"].([]any)
	if len(nodes) != 3 || nodes[1].(map[string]any)["up"] != false {
		t.Fatalf("nodes after stop: %v", nodes)
	}
	if code, _ := call(t, h, "POST", "/api/brokers/2/start"); code != 200 || !f.up[2] {
		t.Fatalf("POST start: %d", code)
	}
	if code, _ := call(t, h, "POST", "/api/brokers/7/stop"); code != http.StatusNotFound {
		t.Fatalf("unknown node: %d", code)
	}
	if code, _ := call(t, h, "POST", "/api/brokers/2/explode"); code != http.StatusNotFound {
		t.Fatalf("unknown action: %d", code)
	}
	// A student of a classroom may not stop brokers.
	hc := New(Deps{Lab: l}, nil, WithAccess(Access{Classroom: true})).Handler()
	if code, _ := call(t, hc, "POST", "/api/brokers/2/stop"); code != http.StatusForbidden || !f.up[2] {
		t.Fatalf("student stop: %d", code)
	}
}
