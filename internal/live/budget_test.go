package live

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// heavy is a data entry of about size bytes of JSON.
func heavy(offset int64, size int) inspect.Entry {
	e := data(offset, 1, inspect.TxnNone)
	v := strings.Repeat("x", size)
	e.Value = &v
	return e
}

// readMessage reads the subscription's next message, decoded, and its size.
func readMessage(t *testing.T, sub *Subscription) (Message, int) {
	t.Helper()
	select {
	case raw, ok := <-sub.C:
		if !ok {
			t.Fatal("subscription closed")
		}
		var m Message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m, len(raw)
	case <-time.After(5 * time.Second):
		t.Fatal("no message within 5s")
	}
	return Message{}, 0
}

// TestMessagesBoundedInBytes: with entries of 10 KB and a bound of 64 KiB,
// the snapshot holds the newest that fit and says Truncated, an update of
// many heavy entries is split into messages within the bound, and every
// offset still reaches the viewer.
func TestMessagesBoundedInBytes(t *testing.T) {
	t.Parallel()
	const bound = 64 << 10
	src := newScriptedLog()
	var log []inspect.Entry
	for i := range 50 {
		log = append(log, heavy(int64(i), 10_000))
	}
	src.set("heavy", log, -1)
	h := NewHub(src, nil, Config{PollInterval: 2 * time.Millisecond, MessageBytes: bound})
	t.Cleanup(h.Close)
	first, err := h.Subscribe("heavy", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	for {
		m, size := readMessage(t, first)
		if size > bound+messageOverhead {
			t.Errorf("a %s message of %d bytes, over the bound of %d", m.Type, size, bound)
		}
		if m.Pointers != nil && m.Pointers.HighWatermark == 50 {
			break
		}
	}

	sub, err := h.Subscribe("heavy", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	snap, size := readMessage(t, sub)
	if snap.Type != TypeSnapshot || size > bound+messageOverhead {
		t.Fatalf("a %s message of %d bytes, over the bound of %d", snap.Type, size, bound)
	}
	if !snap.Truncated || len(snap.Entries) == 0 || snap.Entries[len(snap.Entries)-1].Offset != 49 {
		t.Errorf("snapshot: %d entries, truncated %v; want the newest ones, truncated", len(snap.Entries), snap.Truncated)
	}

	// Twenty new offsets of 3 KB each are more than one message holds:
	// the update carries the newest and says older ones were left out.
	for i := range 20 {
		log = append(log, heavy(int64(50+i), 3_000))
	}
	src.set("heavy", log, -1)
	for {
		m, size := readMessage(t, sub)
		if size > bound+messageOverhead {
			t.Errorf("a %s message of %d bytes, over the bound of %d", m.Type, size, bound)
		}
		if m.Type != TypeEntries {
			continue
		}
		if n := len(m.Entries); !m.Truncated || n == 0 || n >= 20 || m.Entries[n-1].Offset != 69 {
			t.Errorf("update: %d entries, truncated %v; want the newest, truncated", n, m.Truncated)
		}
		break
	}
}

func TestChunksWithin(t *testing.T) {
	t.Parallel()
	var entries []inspect.Entry
	for i := range 30 {
		entries = append(entries, heavy(int64(i), 1_000*(i%4)))
	}
	const bound = 5_000
	n := 0
	for _, c := range chunksWithin(entries, bound) {
		if len(c) > 1 && entriesSize(c) > bound {
			t.Errorf("a chunk of %d entries, %d bytes, over %d", len(c), entriesSize(c), bound)
		}
		for _, e := range c {
			if e.Offset != int64(n) {
				t.Fatalf("entry %d in place of %d", e.Offset, n)
			}
			n++
		}
	}
	if n != 30 {
		t.Errorf("chunks hold %d entries, want 30", n)
	}
}

// TestHistoryStepBounded: a step whose entries pass the bound keeps the
// newest (Truncated) and is never written whole; a story file holding a
// line longer than the reader takes (written before steps were bounded)
// is read past it, and the next fold drops it.
func TestHistoryStepBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := newRecorder(Config{HistoryDir: dir, HistorySteps: 100, HistoryBytes: 1 << 20, HistoryPartitions: 4, MessageBytes: 32 << 10}.withDefaults())
	key := feedKey{"big", 0}
	var entries []inspect.Entry
	for i := range 40 {
		entries = append(entries, heavy(int64(i), 5_000))
	}
	r.record(key, Message{Type: TypeEntries, Topic: "big", Entries: entries})
	steps, err := r.steps(key, 0)
	if err != nil || len(steps) != 1 {
		t.Fatalf("%d steps (%v)", len(steps), err)
	}
	if st := steps[0]; !st.Truncated || len(st.Entries) >= 40 || st.Entries[len(st.Entries)-1].Offset != 39 {
		t.Errorf("step: %d entries, truncated %v; want the newest, truncated", len(st.Entries), st.Truncated)
	}
	if fi, _ := os.Stat(r.path(key)); fi.Size() > r.stepBytes {
		t.Errorf("a step of %d bytes, over the bound of %d", fi.Size(), r.stepBytes)
	}

	// An over-long line first, then ordinary steps.
	old := feedKey{"old", 0}
	r.maxLine = 64 << 10
	long := `{"seq":1,"type":"snapshot","entries":[{"value":"` + strings.Repeat("y", 100<<10) + `"}]}` + "\n"
	if err := os.MkdirAll(filepath.Dir(r.path(old)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.path(old), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	p := inspect.Pointers{HighWatermark: 1}
	for range 3 {
		r.record(old, Message{Type: TypePointers, Topic: "old", Pointers: &p})
	}
	steps, err = r.steps(old, 0)
	if err != nil || len(steps) == 0 {
		t.Fatalf("after an over-long line the story has %d steps (%v)", len(steps), err)
	}
	// The reader skipped the long line; the next fold drops it.
	r.mu.Lock()
	r.foldLocked(old, r.load(old))
	r.mu.Unlock()
	if fi, _ := os.Stat(r.path(old)); fi.Size() >= int64(len(long)) {
		t.Errorf("after a fold the story file is %d bytes, still holding the %d-byte line", fi.Size(), len(long))
	}
	if steps, _ := r.steps(old, 0); len(steps) == 0 {
		t.Error("the fold lost the story")
	}
}
