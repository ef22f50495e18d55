package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// The hostile clients that cost little to send and much to show: records
// of millions of empty headers (a few KB on the wire with zstd). Every
// answer about them — the log window, records, search, the websocket's
// snapshot and updates, the replay history — is bounded by decoded bytes,
// the server's RSS stays within a bound set from a baseline measured in
// the same run, and nothing acknowledged is lost.

// answerBound is the largest answer the byte budgets allow, with room for
// the envelope: the inspector's default answer budget (8 MiB) plus one
// entry past it.
const answerBound = 9 << 20

// produceHeaders writes n records of headers empty headers each, zstd,
// through the embedded broker's Kafka port with acks=all.
func produceHeaders(t *testing.T, kafka, topic string, n, headers int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerBatchMaxBytes(64<<20),
		kgo.MaxBufferedBytes(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := range n {
		r := &kgo.Record{Value: fmt.Appendf(nil, "headers-%d", i), Headers: make([]kgo.RecordHeader, headers)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatalf("produce %d headers: %v", headers, err)
		}
	}
}

// kib formats a size in KiB.
func kib(n int64) string { return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10)) }

// produceLongKeys writes one record of n headers whose keys are size
// bytes each, zstd.
func produceLongKeys(t *testing.T, kafka, topic string, n, size int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerBatchMaxBytes(64<<20), kgo.MaxBufferedBytes(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := &kgo.Record{Value: []byte("long-keys")}
	for i := range n {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: strings.Repeat(string(rune('a'+i)), size)})
	}
	if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
		t.Fatalf("produce %d header keys of %d bytes: %v", n, size, err)
	}
}

// getSize GETs path and returns the status and the answer's size.
func getSize(t *testing.T, url string) (int, int64, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, int64(len(body)), body
}

// TestHostileHeaders writes records of 2,000,000 and 4,000,000 empty
// headers and reads them every way the dashboard shows them.
func TestHostileHeaders(t *testing.T) {
	testenv.Long(t, "it writes records of millions of headers to the server binary")
	t.Parallel()
	dataDir := t.TempDir()
	p := startServerProcess(t, "--data-dir", dataDir, "--http-response-timeout", "30s", "--max-reads-per-client", "100")
	a := p.app(randomSuffix(t))
	kept := a.name("kept")
	a.createTopic(kept)
	var keptValues []string
	for i := range 20 {
		keptValues = append(keptValues, fmt.Sprintf("acknowledged-%d", i))
	}
	a.do("POST", "/api/produce", map[string]any{"topic": kept, "values": keptValues, "acks": "all"}, http.StatusOK, nil)
	a.log(kept)
	base := settledRSSMiB(t, p)
	// The bound: a read holds at most its answer budget (8 MiB of
	// entries) and one decompressed batch (at most 32 MiB); a few at once
	// and the garbage collector's slack fit in 200 MiB. Without the
	// budgets one window of these records took 586 MiB, and 4,000,000
	// headers 2.29 GB.
	bound := base + 200
	t.Logf("baseline RSS %d MiB; bound %d MiB", base, bound)

	topic := a.name("headers")
	a.createTopic(topic)
	// A viewer before the attack: it gets the records as updates.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.url, "http")+"/ws/topics/"+topic+"/partitions/0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(256 << 20) // measure what is sent, do not refuse it
	largest := make(chan int64, 1)
	go func() {
		var most int64
		defer func() { largest <- most }()
		for {
			_, msg, err := ws.Read(ctx)
			if err != nil {
				return
			}
			most = max(most, int64(len(msg)))
		}
	}()

	produceHeaders(t, p.kafkaAddr, topic, 3, 2_000_000)
	produceHeaders(t, p.kafkaAddr, topic, 1, 4_000_000)
	produceLongKeys(t, p.kafkaAddr, topic, 8, 2<<20)
	checkHealthy(t, p, "4 records of 2-4 million headers and one of 16 MiB of header keys written", bound)

	base0 := p.url + "/api/topics/" + topic + "/partitions/0"
	t.Run("log window", func(t *testing.T) {
		status, size, body := getSize(t, base0+"/log?from=0&limit=10")
		t.Logf("GET …/log?from=0&limit=10: %d, %s", status, kib(size))
		if status != http.StatusOK {
			t.Fatalf("status %d: %s", status, body[:min(len(body), 300)])
		}
		if size > answerBound {
			t.Errorf("the log window answered %s, over %s", mib(size), mib(answerBound))
		}
		var l struct {
			Entries []struct {
				Offset           int64 `json:"offset"`
				Headers          []any `json:"headers"`
				HeadersTruncated bool  `json:"headersTruncated"`
				HeaderCount      int   `json:"headerCount"`
			} `json:"entries"`
		}
		if err := json.Unmarshal(body, &l); err != nil {
			t.Fatal(err)
		}
		if len(l.Entries) == 0 {
			t.Fatal("no entries")
		}
		if e := l.Entries[0]; !e.HeadersTruncated || e.HeaderCount != 2_000_000 || len(e.Headers) > 100 {
			t.Errorf("entry 0: %d headers shown, truncated %v, count %d; want a few, true, 2000000", len(e.Headers), e.HeadersTruncated, e.HeaderCount)
		}
		status, size, _ = getSize(t, base0+"/log?from=3&limit=1")
		t.Logf("GET …/log?from=3&limit=1 (4,000,000 headers): %d, %s", status, kib(size))
		if size > answerBound {
			t.Errorf("one record answered %s", mib(size))
		}
		status, size, body = getSize(t, base0+"/log?from=4&limit=1")
		t.Logf("GET …/log?from=4&limit=1 (8 header keys of 2 MiB): %d, %s", status, kib(size))
		if status != http.StatusOK || size > 64<<10 || !strings.Contains(string(body), `"keyTruncated":true`) {
			t.Errorf("the record of long header keys answered %d, %s, %.200s", status, mib(size), body)
		}
		checkHealthy(t, p, "the log window", bound)
	})
	t.Run("records", func(t *testing.T) {
		status, size, body := getSize(t, base0+"/records?isolation=read_uncommitted&limit=10")
		t.Logf("GET …/records: %d, %s", status, kib(size))
		if status != http.StatusOK || size > answerBound {
			t.Errorf("records: %d, %s", status, mib(size))
		}
		var recs records
		if err := json.Unmarshal(body, &recs); err != nil || len(recs.Records) != 5 {
			t.Errorf("records: %d of the 5 records (%v)", len(recs.Records), err)
		}
		checkHealthy(t, p, "records", bound)
	})
	t.Run("search", func(t *testing.T) {
		status, size, body := getSize(t, base0+"/search?q=headers")
		t.Logf("GET …/search?q=headers: %d, %s", status, kib(size))
		if status != http.StatusOK || size > answerBound {
			t.Errorf("search: %d, %s", status, mib(size))
		}
		var res struct {
			Matches []json.RawMessage `json:"matches"`
		}
		if err := json.Unmarshal(body, &res); err != nil || len(res.Matches) != 4 {
			t.Errorf("search: %d of the 4 header records (%v)", len(res.Matches), err)
		}
		checkHealthy(t, p, "search", bound)
	})
	t.Run("websocket", func(t *testing.T) {
		// A second viewer gets the snapshot.
		snap, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.url, "http")+"/ws/topics/"+topic+"/partitions/0", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.CloseNow()
		snap.SetReadLimit(256 << 20)
		_, msg, err := snap.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("websocket snapshot: %s", kib(int64(len(msg))))
		if len(msg) > answerBound {
			t.Errorf("snapshot of %s", mib(int64(len(msg))))
		}
		ws.CloseNow()
		most := <-largest
		t.Logf("largest websocket update: %s", kib(most))
		if most > answerBound {
			t.Errorf("an update of %s", mib(most))
		}
		checkHealthy(t, p, "websocket viewers", bound)
	})
	t.Run("history", func(t *testing.T) {
		// Open a view, write one record, three times: each adds a step
		// of bounded size, not the whole tail again.
		for i := range 3 {
			v, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.url, "http")+"/ws/topics/"+topic+"/partitions/0", nil)
			if err != nil {
				t.Fatal(err)
			}
			v.SetReadLimit(256 << 20)
			if _, _, err := v.Read(ctx); err != nil {
				t.Fatal(err)
			}
			a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{fmt.Sprintf("after-%d", i)}, "acks": "all"}, http.StatusOK, nil)
			v.CloseNow()
		}
		status, size, body := getSize(t, base0+"/history")
		var h struct {
			Steps []json.RawMessage `json:"steps"`
		}
		_ = json.Unmarshal(body, &h)
		var biggest int
		for _, s := range h.Steps {
			biggest = max(biggest, len(s))
		}
		t.Logf("GET …/history: %d, %s, %d steps, largest %s", status, kib(size), len(h.Steps), kib(int64(biggest)))
		if status != http.StatusOK || len(h.Steps) == 0 {
			t.Errorf("history: %d with %d steps", status, len(h.Steps))
		}
		if biggest > 1<<20+4<<10 {
			t.Errorf("a history step of %s, over the 1 MiB bound", mib(int64(biggest)))
		}
		files, _ := filepath.Glob(filepath.Join(dataDir, "history", "*", topic, "*.jsonl"))
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				t.Logf("history file %s: %s", filepath.Base(f), kib(fi.Size()))
				if fi.Size() > 5<<20 {
					t.Errorf("history file of %s, over its 4 MiB bound", mib(fi.Size()))
				}
			}
		}
		checkHealthy(t, p, "history", bound)
	})
	t.Run("nothing acknowledged was lost", func(t *testing.T) {
		var recs records
		a.do("GET", "/api/topics/"+kept+"/partitions/0/records?isolation=read_committed", nil, http.StatusOK, &recs)
		if len(recs.Records) != len(keptValues) {
			t.Fatalf("%d records, want %d", len(recs.Records), len(keptValues))
		}
		var l struct {
			Entries []struct {
				HeaderCount int `json:"headerCount"`
			} `json:"entries"`
		}
		a.do("GET", "/api/topics/"+topic+"/partitions/0/log?from=0&limit=10", nil, http.StatusOK, &l)
		if len(l.Entries) == 0 {
			t.Fatal("the header records are gone")
		}
	})
}
