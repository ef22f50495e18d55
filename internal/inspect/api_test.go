package inspect

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

func TestBrokerUnavailable(t *testing.T) {
	t.Parallel()
	// Port 1 is privileged and unused: connections are refused at once,
	// and no other test's listener can ever take it.
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"), kgo.RetryTimeout(100*time.Millisecond), kgo.DialTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ins := New(cl)
	ctx := testCtx(t)
	calls := map[string]func() error{
		"ReadLog":     func() error { _, err := ins.ReadLog(ctx, testTopic, 0, 0, 10); return err },
		"Pointers":    func() error { _, err := ins.Pointers(ctx, testTopic, 0); return err },
		"ReadRecords": func() error { _, err := ins.ReadRecords(ctx, testTopic, 0, ReadCommitted, 0, 10); return err },
	}
	for name, call := range calls {
		if err := call(); problem.KindOf(err) != problem.Unavailable {
			t.Errorf("%s: got %v, want a broker-unreachable error", name, err)
		}
	}
}

func TestReadRecordsInvalidIsolation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.ins.ReadRecords(context.Background(), testTopic, 0, "read_everything", 0, 10)
	if !problem.Is(err, "error.isolationInvalid") {
		t.Errorf("got %v, want an invalid-isolation error", err)
	}
}

func TestReadRecordsValues(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.producer("plain")
	recs := []*kgo.Record{
		{Key: []byte("order-1"), Value: []byte("O-1 2x15000")},
		{Value: []byte{0xff}},
		{Key: []byte("k"), Value: []byte(strings.Repeat("x", MaxValueBytes+1))},
	}
	if err := p.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	got, err := e.ins.ReadRecords(testCtx(t), testTopic, 0, ReadUncommitted, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d records, want 3", len(got))
	}
	checkString(t, "key 0", got[0].Key, got[0].KeyEncoding, "order-1", "")
	checkString(t, "value 0", got[0].Value, got[0].ValueEncoding, "O-1 2x15000", "")
	if got[1].Key != nil {
		t.Errorf("key 1: got %q, want null", *got[1].Key)
	}
	checkString(t, "value 1", got[1].Value, got[1].ValueEncoding, "/w==", EncodingBase64)
	if !got[2].ValueTruncated || len(*got[2].Value) != MaxValueBytes {
		t.Errorf("value 2: truncated %v, %d bytes", got[2].ValueTruncated, len(*got[2].Value))
	}
}

// TestLogJSON pins the JSON shape the HTTP API promises.
func TestLogJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.run(begin("tx1", "O-1"), commit("tx1"))
	log, err := e.ins.ReadLog(testCtx(t), testTopic, 0, -1, 10)
	if err != nil {
		t.Fatal(err)
	}
	log.Entries = append([]Entry{gapEntry(-1, GapBeforeLogStart)}, log.Entries...) // show a gap too
	raw, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Topic            string           `json:"topic"`
		Partition        *int32           `json:"partition"`
		LogStartOffset   *int64           `json:"logStartOffset"`
		LastStableOffset *int64           `json:"lastStableOffset"`
		HighWatermark    *int64           `json:"highWatermark"`
		Entries          []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Topic != testTopic || got.Partition == nil || got.LogStartOffset == nil || got.LastStableOffset == nil || got.HighWatermark == nil {
		t.Fatalf("top level: %s", raw)
	}
	if len(got.Entries) != 3 {
		t.Fatalf("entries: %s", raw)
	}
	gap, data, marker := got.Entries[0], got.Entries[1], got.Entries[2]
	for _, k := range []string{"offset", "kind", "txn", "producerId", "producerEpoch", "sequence", "batchBaseOffset",
		"batchLastOffset", "transactional", "control", "compression", "timestamp", "key", "value", "headers",
		"readCommitted", "readUncommitted"} {
		if _, ok := data[k]; !ok {
			t.Errorf("data entry lacks %q: %v", k, data)
		}
	}
	if _, ok := gap["timestamp"]; ok {
		t.Errorf("gap has a timestamp: %v", gap)
	}
	if gap["key"] != nil || gap["value"] != nil {
		t.Errorf("gap key/value: %v", gap)
	}
	if gap["reason"] != GapBeforeLogStart {
		t.Errorf("gap reason: %v", gap)
	}
	if _, ok := data["reason"]; ok {
		t.Errorf("data entry has a reason: %v", data)
	}
	if h, ok := data["headers"].([]any); !ok || len(h) != 0 {
		t.Errorf("headers: got %#v, want []", data["headers"])
	}
	if marker["marker"] != MarkerCommit || marker["kind"] != KindControl || marker["txn"] != TxnCommitted {
		t.Errorf("marker: %v", marker)
	}
	if _, ok := data["marker"]; ok {
		t.Errorf("data entry has a marker: %v", data)
	}
	if _, err := time.Parse(time.RFC3339Nano, data["timestamp"].(string)); err != nil {
		t.Errorf("timestamp: %v", err)
	}
}
