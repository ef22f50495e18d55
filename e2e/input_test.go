package e2e

import (
	"bytes"
	"io"
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
		// Validation gaps found by hostile clients.
		{"reserved topic name", "POST", "/api/topics", map[string]any{"name": "__consumer_offsets"}, 400, "reserved"},
		{"internal-looking topic name", "POST", "/api/topics", map[string]any{"name": "__evil"}, 400, "reserved"},
		{"colliding topic name", "POST", "/api/topics", map[string]any{"name": strings.ReplaceAll(topic, "-", ".") + "_x"}, 201, ""},
		{"topic config not a number", "POST", "/api/topics", map[string]any{"name": a.name("cfg1"), "configs": map[string]string{"max.message.bytes": "abc"}}, 400, "max.message.bytes=abc"},
		{"unknown topic config", "POST", "/api/topics", map[string]any{"name": a.name("cfg2"), "configs": map[string]string{"bogus.config": "1"}}, 400, "bogus.config"},
		{"negative retention", "POST", "/api/topics", map[string]any{"name": a.name("cfg3"), "configs": map[string]string{"retention.ms": "-5"}}, 400, "retention.ms"},
		{"zero segment size", "POST", "/api/topics", map[string]any{"name": a.name("cfg4"), "configs": map[string]string{"segment.bytes": "0"}}, 400, "segment.bytes"},
		{"unknown field", "POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"x"}, "partiton": 1}, 400, `"partiton"`},
		{"processor input is its output", "POST", "/api/processor/runs", map[string]any{"mode": "plain", "input": topic, "output": topic, "group": "g"}, 400, "cannot write its totals to the topic it reads"},
		{"send to a partition that does not exist", "POST", "/api/transactions/" + a.name("tx") + "/send", map[string]any{"topic": topic, "values": []string{"a"}, "partition": 7}, 404, "partition 7 does not exist"},
		{"produce to a partition that does not exist", "POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"a"}, "partition": 7}, 404, "partition 7 does not exist"},
		{"unknown lesson action", "POST", "/api/lessons/runs/nope/explode", nil, 404, "error.lessonActionUnknown"},
	}
	for _, tt := range tests {
		status, body := a.request(tt.method, tt.path, tt.body)
		if status < 300 {
			if status != tt.status {
				t.Errorf("%s: %d %s; want %d", tt.name, status, body, tt.status)
			}
			continue
		}
		if status != tt.status || !strings.Contains(string(body), `"error"`) || !strings.Contains(string(body), tt.says) {
			t.Errorf("%s: %d %s; want %d with an error saying %q", tt.name, status, body, tt.status, tt.says)
		}
		if !strings.Contains(string(body), `"code":"`) {
			t.Errorf("%s: the error %s names no catalogue sentence (code)", tt.name, body)
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

// TestHostileInput: what hostile clients found accepted that should not be —
// forms and text bodies, origins that only look like this one, encoded
// slashes, HEAD, a null value, a record too large for its topic — and a
// transactional send that ignored its partition.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	a := startApp(t, embedded)
	topic := a.name("hostile")
	a.do("POST", "/api/topics", map[string]any{"name": topic, "partitions": 3}, http.StatusCreated, nil)
	raw := func(method, path, contentType, body string, header map[string]string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, a.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	produce := `{"topic":"` + topic + `","partition":0,"values":["x"]}`
	for _, tt := range []struct {
		name        string
		contentType string
		header      map[string]string
		want        int
	}{
		{"a form", "application/x-www-form-urlencoded", nil, http.StatusUnsupportedMediaType},
		{"text/plain", "text/plain;charset=UTF-8", nil, http.StatusUnsupportedMediaType},
		{"multipart", "multipart/form-data; boundary=x", nil, http.StatusUnsupportedMediaType},
		{"JSON", "application/json", nil, http.StatusOK},
		{"no Content-Type (a script)", "", nil, http.StatusOK},
		{"https origin on an http server", "application/json", map[string]string{"Origin": strings.Replace(a.url, "http://", "https://", 1)}, http.StatusForbidden},
		{"origin with userinfo", "application/json", map[string]string{"Origin": strings.Replace(a.url, "http://", "http://user@", 1)}, http.StatusForbidden},
		{"origin with another port", "application/json", map[string]string{"Origin": a.url + "1"}, http.StatusForbidden},
		{"this very origin", "application/json", map[string]string{"Origin": a.url}, http.StatusOK},
	} {
		if status, body := raw("POST", "/api/produce", tt.contentType, produce, tt.header); status != tt.want {
			t.Errorf("%s: %d %s, want %d", tt.name, status, body, tt.want)
		}
	}

	// HEAD is answered wherever GET is.
	for _, path := range []string{"/", "/healthz", "/api/topics", "/api/cluster"} {
		if status, _ := raw("HEAD", path, "", "", nil); status >= 400 {
			t.Errorf("HEAD %s: %d", path, status)
		}
	}

	// Path parameters are decoded once: "g%2F..%2Fx" is the group "g/../x".
	if status, body := raw("GET", "/api/groups/g%2F..%2Fx", "", "", nil); status != http.StatusNotFound || !strings.Contains(body, `"group":"g/../x"`) {
		t.Errorf("GET /api/groups/g%%2F..%%2Fx: %d %s, want 404 naming g/../x", status, body)
	}

	// A null value is a tombstone: stored as null, not as "".
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "partition": 1, "key": "k", "values": []any{nil}}, http.StatusOK, nil)
	var l partitionLog
	a.do("GET", "/api/topics/"+topic+"/partitions/1/log", nil, http.StatusOK, &l)
	if len(l.Entries) != 1 || l.Entries[0].Value != nil {
		t.Errorf("partition 1 after a null value: %+v, want one record with a null value", l.Entries)
	}

	// A record larger than the topic takes is refused before anything is sent.
	small := a.name("small")
	a.do("POST", "/api/topics", map[string]any{"name": small, "partitions": 1, "configs": map[string]string{"max.message.bytes": "1000"}}, http.StatusCreated, nil)
	status, body := a.request("POST", "/api/produce", map[string]any{"topic": small, "values": []string{strings.Repeat("v", 2000)}})
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "error.recordTooLarge") {
		t.Errorf("a 2000-byte value for max.message.bytes=1000: %d %s, want 413", status, body)
	}
	if got := a.log(small); len(got.Entries) != 0 {
		t.Errorf("the refused record reached the log: %+v", got.Entries)
	}

	// A transactional send lands in the partition it names.
	id := a.name("tx")
	a.do("POST", "/api/transactions/"+id+"/begin", nil, http.StatusOK, nil)
	a.do("POST", "/api/transactions/"+id+"/send", map[string]any{"topic": topic, "values": []string{"a", "b"}, "partition": 2}, http.StatusOK, nil)
	a.do("POST", "/api/transactions/"+id+"/commit", nil, http.StatusOK, nil)
	var p2 partitionLog
	a.do("GET", "/api/topics/"+topic+"/partitions/2/log", nil, http.StatusOK, &p2)
	if len(p2.Entries) != 3 { // a, b and the COMMIT marker
		t.Errorf("partition 2 after a send to it: %+v, want a, b and a COMMIT", p2.Entries)
	}
}
