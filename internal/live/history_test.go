package live

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// scriptedLog is a Source whose partitions hold what the test sets.
type scriptedLog struct {
	mu   sync.Mutex
	logs map[feedKey][]inspect.Entry
	lso  map[feedKey]int64 // -1 or missing: the high watermark
	// lagging is how many more reads leave out the last offset, as a
	// broker whose high watermark counts a marker its fetch does not
	// return yet.
	lagging int
}

func newScriptedLog() *scriptedLog {
	return &scriptedLog{logs: map[feedKey][]inspect.Entry{}, lso: map[feedKey]int64{}}
}

func (s *scriptedLog) set(topic string, entries []inspect.Entry, lso int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logs[feedKey{topic, 0}] = entries
	s.lso[feedKey{topic, 0}] = lso
}

func (s *scriptedLog) pointersLocked(k feedKey) inspect.Pointers {
	hw := int64(len(s.logs[k]))
	lso, ok := s.lso[k]
	if !ok || lso < 0 {
		lso = hw
	}
	return inspect.Pointers{LastStableOffset: lso, HighWatermark: hw}
}

func (s *scriptedLog) Pointers(_ context.Context, topic string, partition int32) (inspect.Pointers, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pointersLocked(feedKey{topic, partition}), nil
}

func (s *scriptedLog) ReadLog(_ context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := feedKey{topic, partition}
	l := &inspect.Log{Topic: topic, Partition: partition, Pointers: s.pointersLocked(k)}
	last := l.Pointers.HighWatermark - 1
	if s.lagging > 0 {
		s.lagging--
		last--
	}
	for _, e := range s.logs[k] {
		if e.Offset >= from && e.Offset <= last && len(l.Entries) < limit {
			l.Entries = append(l.Entries, e)
		}
	}
	return l, nil
}

func historyHub(t *testing.T, src Source, dir string, cfg Config) *Hub {
	t.Helper()
	cfg.PollInterval, cfg.HistoryDir = 2*time.Millisecond, dir
	h := NewHub(src, nil, cfg)
	t.Cleanup(h.Close)
	return h
}

// waitSteps waits until topic's history has at least n steps.
func waitSteps(t *testing.T, h *Hub, topic string, n int) []Step {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		hist, err := h.History(topic, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist.Steps) >= n {
			return hist.Steps
		}
		if time.Now().After(deadline) {
			t.Fatalf("history of %s has %d steps, want %d: %+v", topic, len(hist.Steps), n, hist.Steps)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitStepWhere waits until a step of topic's history satisfies match,
// and returns the history then.
func waitStepWhere(t *testing.T, h *Hub, topic, what string, match func(Step) bool) []Step {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		hist, err := h.History(topic, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(hist.Steps, match) {
			return hist.Steps
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: history of %s is %v", what, topic, stepTypes(hist.Steps))
		}
		time.Sleep(5 * time.Millisecond) // the poll's interval
	}
}

func stepTypes(steps []Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Type)
	}
	return out
}

// replay applies steps as the page does: the cells by offset, the last
// pointers.
func replay(steps []Step) (map[int64]inspect.Entry, inspect.Pointers) {
	cells := map[int64]inspect.Entry{}
	var p inspect.Pointers
	for _, s := range steps {
		if s.Type == TypeSnapshot {
			clear(cells)
		}
		for _, e := range s.Entries {
			cells[e.Offset] = e
		}
		if s.Pointers != nil {
			p = *s.Pointers
		}
	}
	return cells, p
}

// TestHistoryTellsTheOrder: a kept partition's history starts with the
// log as it was, then a crash's open record and the LSO it holds, the
// sentence about them after the cell (although it was narrated before
// the feed read it), then the ABORT resolving it; sequence numbers rise
// one by one and a restart keeps the story without a new snapshot.
func TestHistoryTellsTheOrder(t *testing.T) {
	t.Parallel()
	src, dir := newScriptedLog(), t.TempDir()
	src.set("orders", []inspect.Entry{data(0, 1, inspect.TxnCommitted), marker(1, 1, inspect.MarkerCommit)}, -1)
	h := historyHub(t, src, dir, Config{})
	if err := h.Keep(context.Background(), "orders", 0); err != nil {
		t.Fatal(err)
	}
	steps := waitSteps(t, h, "orders", 1)
	if steps[0].Type != TypeSnapshot || len(steps[0].Entries) != 2 || steps[0].Pointers.HighWatermark != 2 {
		t.Fatalf("first step %+v; want a snapshot of the two offsets", steps[0])
	}

	two := int64(2)
	crash := NewEvent(EventCrash, "orders", 0, catalog.M("narration.crash"))
	crash.Offset = &two
	h.Narrate(crash) // before the feed has read offset 2
	src.set("orders", []inspect.Entry{data(0, 1, inspect.TxnCommitted), marker(1, 1, inspect.MarkerCommit), data(2, 2, inspect.TxnOpen)}, 2)
	steps = waitSteps(t, h, "orders", 4)
	if got := stepTypes(steps); got[1] != TypeEntries || got[2] != TypePointers || got[3] != TypeEvent {
		t.Fatalf("after the crash the history is %v; want snapshot, entries, pointers, event", got)
	}
	if p := steps[2].Pointers; p.HighWatermark != 3 || p.LastStableOffset != 2 {
		t.Fatalf("the crash's pointers %+v; want HW 3, LSO 2", p)
	}

	src.set("orders", []inspect.Entry{data(0, 1, inspect.TxnCommitted), marker(1, 1, inspect.MarkerCommit), data(2, 2, inspect.TxnAborted), marker(3, 2, inspect.MarkerAbort)}, -1)
	waitSteps(t, h, "orders", 6)
	// The feed's own sentence about the ABORT marker at offset 3.
	steps = waitStepWhere(t, h, "orders", "the ABORT narrated", func(s Step) bool {
		return s.Type == TypeEvent && s.Event != nil && s.Event.Kind == EventAbort && s.Event.Offset != nil && *s.Event.Offset == 3
	})
	for i, s := range steps {
		if s.Seq != i+1 {
			t.Fatalf("step %d has seq %d: %v", i, s.Seq, stepTypes(steps))
		}
	}
	cells, p := replay(steps)
	if len(cells) != 4 || cells[2].Txn != inspect.TxnAborted || p.LastStableOffset != 4 {
		t.Fatalf("replayed to the end: %d cells, offset 2 %q, pointers %+v", len(cells), cells[2].Txn, p)
	}
	before, _ := replay(steps[:3])
	if before[2].Txn != inspect.TxnOpen {
		t.Fatalf("replayed to the crash, offset 2 is %q; want open", before[2].Txn)
	}

	h.Close()
	again := historyHub(t, src, dir, Config{})
	if err := again.Keep(context.Background(), "orders", 0); err != nil {
		t.Fatal(err)
	}
	waitSteps(t, again, "orders", len(steps))
	hist, err := again.History("orders", 0, 0)
	if err != nil || len(hist.Steps) != len(steps) {
		t.Fatalf("after a restart: %d steps (%v), want the %d recorded", len(hist.Steps), err, len(steps))
	}
	from, _ := again.History("orders", 0, 5)
	if len(from.Steps) != len(steps)-4 || from.Steps[0].Seq != 5 {
		t.Fatalf("from=5 answered %v", stepTypes(from.Steps))
	}
}

// TestHistoryBounded: a busy partition's history stays within its step
// bound, starts with a snapshot, and still replays to the log as it is;
// the oldest partition's story goes when too many are kept; a deleted
// topic's story goes with it; a step cut short by a crash is dropped.
func TestHistoryBounded(t *testing.T) {
	t.Parallel()
	src, dir := newScriptedLog(), t.TempDir()
	h := historyHub(t, src, dir, Config{HistorySteps: 10, HistoryPartitions: 2})
	ctx := context.Background()
	var log []inspect.Entry
	for i := range 30 {
		log = append(log, data(int64(i), 1, inspect.TxnNone))
		src.set("busy", append([]inspect.Entry(nil), log...), -1)
		if err := h.Keep(ctx, "busy", 0); err != nil {
			t.Fatal(err)
		}
		waitHW(t, h, "busy", int64(i+1))
	}
	hist, _ := h.History("busy", 0, 0)
	if len(hist.Steps) > 10 || hist.Steps[0].Type != TypeSnapshot {
		t.Fatalf("busy history: %d steps, first %s", len(hist.Steps), hist.Steps[0].Type)
	}
	cells, p := replay(hist.Steps)
	if len(cells) != 30 || p.HighWatermark != 30 {
		t.Fatalf("busy history replays to %d cells, HW %d; want 30", len(cells), p.HighWatermark)
	}

	for _, topic := range []string{"second", "third"} {
		src.set(topic, []inspect.Entry{data(0, 1, inspect.TxnNone)}, -1)
		time.Sleep(10 * time.Millisecond) // distinct modification times
		if err := h.Keep(ctx, topic, 0); err != nil {
			t.Fatal(err)
		}
		waitSteps(t, h, topic, 1)
	}
	if _, err := os.Stat(filepath.Join(dir, "busy", "0.jsonl")); !os.IsNotExist(err) {
		t.Fatalf("the oldest of three stories, two allowed, is still kept: %v", err)
	}

	h.Forget("second")
	if hist, _ := h.History("second", 0, 0); len(hist.Steps) != 0 {
		t.Fatalf("a forgotten topic's history has %d steps", len(hist.Steps))
	}

	path := filepath.Join(dir, "third", "0.jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":2,"ti`)
	f.Close()
	h.Close()
	again := historyHub(t, src, dir, Config{})
	src.set("third", []inspect.Entry{data(0, 1, inspect.TxnNone), data(1, 1, inspect.TxnNone)}, -1)
	if err := again.Keep(ctx, "third", 0); err != nil {
		t.Fatal(err)
	}
	steps := waitSteps(t, again, "third", 2)
	if steps[1].Seq != 2 || steps[1].Type != TypeSnapshot {
		t.Fatalf("after a torn step the history reads %v", stepTypes(steps))
	}
}

func waitHW(t *testing.T, h *Hub, topic string, hw int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		hist, _ := h.History(topic, 0, 0)
		if _, p := replay(hist.Steps); p.HighWatermark == hw {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("history of %s never reached HW %d", topic, hw)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestKeptFeedsYieldToViewers: partitions kept for writes never lock
// viewers out — a viewer takes the place of the kept partition whose keep
// ends first; only partitions with viewers refuse one more.
func TestKeptFeedsYieldToViewers(t *testing.T) {
	t.Parallel()
	src := newScriptedLog()
	h := historyHub(t, src, t.TempDir(), Config{MaxFeeds: 2})
	ctx := context.Background()
	for _, topic := range []string{"a", "b"} {
		if err := h.Keep(ctx, topic, 0); err != nil {
			t.Fatal(err)
		}
	}
	c, err := h.Subscribe("c", 0)
	if err != nil {
		t.Fatalf("a viewer with two kept partitions at the limit: %v", err)
	}
	defer c.Close()
	d, err := h.Subscribe("d", 0)
	if err != nil {
		t.Fatalf("a second viewer: %v", err)
	}
	defer d.Close()
	if _, err := h.Subscribe("e", 0); err == nil {
		t.Fatal("a third partition while two have viewers was not refused")
	}
	if err := h.Keep(ctx, "f", 0); err == nil {
		t.Fatal("a write's partition took a viewer's place")
	}
}

// TestKeepReadsBeforeEachWrite: however slowly partitions are polled,
// Keep reads the log before the write that follows it, so that writes
// in quick succession are recorded one step each.
func TestKeepReadsBeforeEachWrite(t *testing.T) {
	t.Parallel()
	src := newScriptedLog()
	h := NewHub(src, nil, Config{PollInterval: time.Hour, HistoryDir: t.TempDir()})
	defer h.Close()
	var log []inspect.Entry
	for i := range 5 {
		if err := h.Keep(context.Background(), "quick", 0); err != nil {
			t.Fatal(err)
		}
		log = append(log, data(int64(i), 1, inspect.TxnNone))
		src.set("quick", append([]inspect.Entry(nil), log...), -1)
	}
	if err := h.Keep(context.Background(), "quick", 0); err != nil {
		t.Fatal(err)
	}
	hist, _ := h.History("quick", 0, 0)
	var hws []int64
	for _, s := range hist.Steps {
		if s.Pointers != nil {
			hws = append(hws, s.Pointers.HighWatermark)
		}
	}
	if !slices.Equal(hws, []int64{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("high watermarks recorded %v; want one step per write", hws)
	}
}

// TestShortReadReadAgain: a read that stops short of the high watermark
// is read again on the next polls, so that the marker it lacked reaches
// viewers and the history although the pointers do not move again.
func TestShortReadReadAgain(t *testing.T) {
	t.Parallel()
	src := newScriptedLog()
	h := historyHub(t, src, t.TempDir(), Config{})
	if err := h.Keep(context.Background(), "late", 0); err != nil {
		t.Fatal(err)
	}
	src.mu.Lock()
	src.lagging = 3
	src.mu.Unlock()
	src.set("late", []inspect.Entry{data(0, 1, inspect.TxnCommitted), marker(1, 1, inspect.MarkerCommit)}, -1)
	deadline := time.Now().Add(5 * time.Second)
	for {
		hist, _ := h.History("late", 0, 0)
		cells, p := replay(hist.Steps)
		if _, ok := cells[1]; ok && p.HighWatermark == 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the COMMIT at offset 1 never arrived: %+v", hist.Steps)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
