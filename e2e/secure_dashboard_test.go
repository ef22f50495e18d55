package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSecureDashboard runs the dashboard against the secure shape's SASL_SSL
// cluster with ACLs. With admin.properties and --allow-writes, lessons 1–3
// run through and every check holds. With reader.properties (read-only by
// default) the logs, consumer lanes, groups and transactions lesson 2 wrote
// read exactly as on a plaintext cluster, every write answers 403 saying the
// dashboard is read-only, and confluent-kafka with the same user reads what
// the dashboard says. A wrong password, a wrong CA and a missing ACL each
// answer with their sentence. No password appears in any log, page or
// answer of the run.
func TestSecureDashboard(t *testing.T) {
	t.Parallel()
	dir := startSecure(t)
	admin := startServerProcess(t, "--data-dir", t.TempDir(), "--command-config", filepath.Join(dir, "admin.properties"), "--allow-writes")
	a := admin.app(randomSuffix(t))
	a.answers = &answerLog{}

	var lesson2 lessonRun
	for _, id := range []string{"1", "2", "3"} {
		st := a.runLesson(id, true)
		if st.Status != "finished" || st.Passed != st.Check {
			for _, s := range st.Steps {
				for _, c := range s.Checks {
					if !c.OK {
						t.Errorf("lesson %s step %q: %s: expected %q — observed %q", id, s.Title["en"], c.Text["en"], c.Expected, c.Observed)
					}
				}
			}
			t.Fatalf("lesson %s on the secure cluster: %s, %d of %d checks hold (%s)", id, st.Status, st.Passed, st.Check, st.Error)
		}
		if id == "2" {
			lesson2 = st
		}
	}
	topic := lesson2.Names["order-totals-tx"]

	reader := startServerProcess(t, "--data-dir", t.TempDir(), "--command-config", filepath.Join(dir, "reader.properties"))
	r := reader.app(randomSuffix(t))
	r.answers = &answerLog{}
	var cl struct {
		ReadOnly bool `json:"readOnly"`
		Security struct {
			Protocol  string `json:"protocol"`
			Mechanism string `json:"mechanism"`
			User      string `json:"user"`
		} `json:"security"`
	}
	r.do("GET", "/api/cluster", nil, http.StatusOK, &cl)
	if !cl.ReadOnly || cl.Security.Protocol != "SASL_SSL" || cl.Security.Mechanism != "SCRAM-SHA-512" || cl.Security.User != "reader" {
		t.Errorf("/api/cluster as the reader: %+v", cl)
	}

	// What lesson 2 wrote reads as on the plaintext cluster (docs/lessons.md).
	l := r.log(topic)
	equal(t, "the reader's log of "+topic, l.shape(), []string{"0:committed", "1:COMMIT", "2:aborted", "3:ABORT", "4:committed", "5:COMMIT", "6:committed", "7:COMMIT"})
	if l.LastStableOffset != 8 || l.HighWatermark != 8 {
		t.Errorf("reader's pointers: LSO %d HW %d, want 8 and 8", l.LastStableOffset, l.HighWatermark)
	}
	equal(t, "the reader's read_committed lane", r.consumed(topic, "read_committed"), []string{"0: O-1 total=30000", "4: O-2 total=42000", "6: O-3 total=27000"})
	equal(t, "the reader's read_uncommitted lane", r.consumed(topic, "read_uncommitted"), []string{"0: O-1 total=30000", "2: O-2 total=42000", "4: O-2 total=42000", "6: O-3 total=27000"})
	var g struct {
		Offsets []struct {
			Committed int64 `json:"committed"`
			Lag       int64 `json:"lag"`
		} `json:"offsets"`
	}
	r.do("GET", "/api/groups/"+lesson2.Names["totals-tx"], nil, http.StatusOK, &g)
	if len(g.Offsets) != 1 || g.Offsets[0].Committed != 3 || g.Offsets[0].Lag != 0 {
		t.Errorf("the reader's view of group totals-tx: %+v, want committed 3, lag 0", g)
	}
	var txn struct {
		State string `json:"state"`
	}
	r.do("GET", "/api/transactions/"+lesson2.Names["order-totals-app"], nil, http.StatusOK, &txn)
	if txn.State != "CompleteCommit" {
		t.Errorf("the reader's view of the transaction: %q, want CompleteCommit", txn.State)
	}
	// The explorer reads it too: the map counts lesson 2's offsets, the
	// group shows both lags, the transaction is listed.
	var m mapView
	r.do("GET", "/api/topics/"+topic+"/partitions/0/map", nil, http.StatusOK, &m)
	if _, committed, aborted, open, commits, aborts, _ := m.totals(); committed != 3 || aborted != 1 || open != 0 || commits != 3 || aborts != 1 {
		t.Errorf("the reader's map of %s: committed %d aborted %d open %d COMMIT %d ABORT %d; want 3, 1, 0, 3, 1", topic, committed, aborted, open, commits, aborts)
	}
	var gd struct {
		Offsets []struct {
			Lag       int64 `json:"lag"`
			RecordLag int64 `json:"recordLag"`
		} `json:"offsets"`
	}
	r.do("GET", "/api/groups/"+lesson2.Names["totals-tx"], nil, http.StatusOK, &gd)
	if len(gd.Offsets) != 1 || gd.Offsets[0].RecordLag != 0 {
		t.Errorf("the reader's record lag of totals-tx: %+v, want 0", gd)
	}
	status, listed := r.request("GET", "/api/transactions", nil)
	if status != http.StatusOK || !strings.Contains(string(listed), lesson2.Names["order-totals-app"]) {
		t.Errorf("the reader's transactions list: %d %s", status, listed)
	}
	for _, page := range []string{"/topics", "/topics/" + topic, "/groups", "/groups/" + lesson2.Names["totals-tx"], "/transactions?topic=" + topic} {
		status, raw := r.request("GET", page, nil)
		if status != http.StatusOK {
			t.Errorf("GET %s as the reader: %d", page, status)
		}
		if strings.Contains(string(raw), `data-testid="delete-topic"`) || strings.Contains(string(raw), `class="danger`) {
			t.Errorf("the read-only page %s renders a delete or abort control", page)
		}
	}

	for _, page := range []string{"/", "/topics/" + topic + "/partitions/0"} {
		status, raw := r.request("GET", page, nil)
		body := string(raw)
		if status != http.StatusOK && status != http.StatusFound {
			t.Errorf("GET %s as the reader: %d", page, status)
		}
		if strings.Contains(body, `data-testid="producer-panel"`) || strings.Contains(body, `data-testid="seed-setup"`) || strings.Contains(body, `data-testid="lesson-start"`) {
			t.Errorf("the read-only page %s renders write controls", page)
		}
		if status == http.StatusOK && !strings.Contains(body, `data-testid="read-only"`) {
			t.Errorf("the read-only page %s does not say it is read-only", page)
		}
	}

	// Every write is refused with 403 and the read-only sentence.
	for _, w := range []struct{ path, body string }{
		{"/api/produce", `{"topic":"` + topic + `","values":["x"]}`},
		{"/api/topics", `{"name":"never"}`},
		{"/api/processor/runs", `{"mode":"plain","input":"a","output":"b","group":"g"}`},
		{"/api/transactions/x/begin", ``},
		{"/api/lessons/2/runs", ``},
		{"/api/lessons/cleanup", ``},
		{"/api/topics/" + topic + "/partitions/0/transactions/2/abort", ``},
	} {
		status, body := r.request("POST", w.path, w.body)
		if status != http.StatusForbidden || !strings.Contains(string(body), "error.readOnly") {
			t.Errorf("POST %s as the read-only reader: %d %s, want 403 read-only", w.path, status, body)
		}
	}

	if status, body := r.request("DELETE", "/api/topics/"+topic+"?confirm="+topic, nil); status != http.StatusForbidden || !strings.Contains(string(body), "error.readOnly") {
		t.Errorf("DELETE %s as the read-only reader: %d %s, want 403 read-only", topic, status, body)
	}

	// confluent-kafka, given the reader's librdkafka file, reads what the
	// dashboard's read_committed lane shows.
	python := pythonPath(t, "the confluent-kafka check")
	got := pythonReadProperties(t, python, filepath.Join(dir, "reader.librdkafka.properties"), topic, 3)
	equal(t, "confluent-kafka's read_committed", got, []string{"O-1 total=30000", "O-2 total=42000", "O-3 total=27000"})

	// A wrong password, a wrong CA, a missing ACL: each its own sentence.
	for _, tt := range []struct {
		name, file, code string
		args             []string
		status           int
	}{
		{"a wrong password", withLine(t, filepath.Join(dir, "reader.properties"), `(?m)^sasl\.jaas\.config=.*$`,
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="reader" password="not-the-password";`),
			"error.auth.sasl", nil, http.StatusForbidden},
		{"a wrong CA", withLine(t, filepath.Join(dir, "reader.properties"), `(?m)^ssl\.truststore\.location=.*$`, "ssl.truststore.location="+otherCA(t)),
			"error.auth.tls", nil, http.StatusServiceUnavailable},
		{"a missing ACL (the reader may not create topics)", filepath.Join(dir, "reader.properties"),
			"error.notAllowed", []string{"--allow-writes"}, http.StatusForbidden},
	} {
		p := startServerProcess(t, append([]string{"--data-dir", t.TempDir(), "--command-config", tt.file}, tt.args...)...)
		pa := p.app(randomSuffix(t))
		pa.answers = &answerLog{}
		var status int
		var body []byte
		if tt.code == "error.notAllowed" {
			status, body = pa.request("POST", "/api/topics", map[string]any{"name": pa.name("denied")})
		} else {
			status, body = pa.request("GET", "/api/topics", nil)
		}
		if status != tt.status || !strings.Contains(string(body), `"code":"`+tt.code+`"`) {
			t.Errorf("%s: %d %s, want %d with %s", tt.name, status, body, tt.status, tt.code)
		}
		if tt.code == "error.notAllowed" && (!strings.Contains(string(body), "CREATE") || !strings.Contains(string(body), "reader")) {
			t.Errorf("%s: %s does not name the operation and the user", tt.name, body)
		}
		checkNoSecrets(t, dir, tt.name, p.logText(), pa.answers.all())
	}

	checkNoSecrets(t, dir, "the admin's server", admin.logText(), a.answers.all())
	checkNoSecrets(t, dir, "the reader's server", reader.logText(), r.answers.all())
}

// checkNoSecrets fails if a password of the secure cluster appears in a
// server log or an answer.
func checkNoSecrets(t *testing.T, dir, what, log string, answers []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "secrets", "passwords.env"))
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for _, line := range strings.Split(string(raw), "\n") {
		if _, v, ok := strings.Cut(line, "="); ok && len(v) >= 8 {
			secrets = append(secrets, v)
		}
	}
	if len(secrets) == 0 {
		t.Fatal("no password found in passwords.env")
	}
	all := append(slices.Clone(answers), log)
	for _, s := range secrets {
		for _, text := range all {
			if strings.Contains(text, s) {
				t.Fatalf("%s: a password appears in a log or answer", what)
			}
		}
	}
}
