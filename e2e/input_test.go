package e2e

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestMalformedInput sends what a confused student or a hostile page might,
// and checks for a clear JSON error and a server that stays healthy.
func TestMalformedInput(t *testing.T) {
	t.Parallel()
	a := startApp(t, embedded)
	topic := a.name("input")
	a.createTopic(topic)
	huge := bytes.Repeat([]byte("a"), 64<<20)
	tests := []struct {
		name   string
		method string
		path   string
		body   any
		status int
		says   string
	}{
		{"invalid topic name", "POST", "/api/topics", map[string]any{"name": "no spaces/please"}, 400, "not valid"},
		{"topic exists", "POST", "/api/topics", map[string]any{"name": topic}, 409, "already exists"},
		{"not JSON", "POST", "/api/produce", "acks=all&values=x", 400, "not valid JSON"},
		{"empty body", "POST", "/api/produce", "", 400, "empty"},
		{"wrong type", "POST", "/api/produce", `{"topic": 7}`, 400, "topic"},
		{"acks 7", "POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"x"}, "acks": "7"}, 400, "acks"},
		{"unknown fault", "POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"x"}, "fault": "explode"}, 400, "fault"},
		{"transactions without idempotence", "POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"x"}, "idempotent": false, "transactionalId": "t"}, 400, "idempotence"},
		{"unknown topic on produce", "POST", "/api/produce", map[string]any{"topic": "nope-" + a.suffix, "values": []string{"x"}}, 404, "does not exist"},
		{"unknown mode", "POST", "/api/processor/runs", map[string]any{"mode": "twice", "input": topic, "output": topic, "group": "g"}, 400, "mode"},
		{"tx without id", "POST", "/api/processor/runs", map[string]any{"mode": "tx", "input": topic, "output": topic, "group": "g"}, 400, "transactionalId"},
		{"64 MiB body", "POST", "/api/produce", huge, 413, "larger than"},
		{"unknown topic log", "GET", "/api/topics/nope-" + a.suffix + "/partitions/0/log", nil, 404, "does not exist"},
		{"bad partition", "GET", "/api/topics/" + topic + "/partitions/x/log", nil, 400, "partition"},
		{"missing partition", "GET", "/api/topics/" + topic + "/partitions/3/log", nil, 404, "partition 3"},
		{"bad from", "GET", "/api/topics/" + topic + "/partitions/0/log?from=-4", nil, 400, "from"},
		{"bad isolation", "GET", "/api/topics/" + topic + "/partitions/0/records?isolation=dirty", nil, 400, "isolation"},
		{"unknown group", "GET", "/api/groups/nobody-" + a.suffix, nil, 404, "no members"},
		{"unknown transaction", "GET", "/api/transactions/nobody-" + a.suffix, nil, 404, "unknown"},
	}
	for _, tt := range tests {
		status, body := a.request(tt.method, tt.path, tt.body)
		if status != tt.status || !strings.Contains(string(body), `"error"`) || !strings.Contains(string(body), tt.says) {
			t.Errorf("%s: %d %s; want %d with an error saying %q", tt.name, status, body, tt.status, tt.says)
		}
	}
	a.do("GET", "/healthz", nil, http.StatusOK, nil)
	a.do("GET", "/api/topics", nil, http.StatusOK, nil)
}

// TestCrossOriginWritesRefused checks that a page of another origin cannot
// change anything, while the same origin and non-browser clients can.
func TestCrossOriginWritesRefused(t *testing.T) {
	t.Parallel()
	a := startApp(t, embedded)
	tests := []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"null origin", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"same origin", map[string]string{"Origin": a.url, "Sec-Fetch-Site": "same-origin"}, http.StatusCreated},
		{"no browser headers", nil, http.StatusCreated},
	}
	for i, tt := range tests {
		body := strings.NewReader(`{"name":"origin-` + a.suffix + `-` + string(rune('a'+i)) + `"}`)
		req, err := http.NewRequest("POST", a.url+"/api/topics", body)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tt.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.status)
		}
	}
}
