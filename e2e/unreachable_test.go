package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// TestBrokerUnreachable: with no broker behind the address, the API answers
// 503 with a sentence, and the server stays healthy.
func TestBrokerUnreachable(t *testing.T) {
	t.Parallel()
	// Port 1 is privileged and unused: connections are refused at once,
	// and no other test's listener can ever take it.
	kafka, err := cluster.ConnectExternal(cluster.ExternalConfig{Brokers: []string{"127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kafka.Close)
	a := startAppOn(t, realKafka, kafka)
	status, body := a.request("GET", "/api/topics", nil)
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "not reachable") {
		t.Fatalf("GET /api/topics with no broker: %d %s; want 503 saying the broker is not reachable", status, body)
	}
	var c struct {
		Reachable bool `json:"reachable"`
	}
	a.do("GET", "/api/cluster", nil, http.StatusOK, &c)
	if c.Reachable {
		t.Fatal("GET /api/cluster says reachable with no broker")
	}
	a.do("GET", "/healthz", nil, http.StatusOK, nil)
}
