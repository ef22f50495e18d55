package lab_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// newLab is a Lab over a fresh embedded broker, closed with the test.
func newLab(t *testing.T, readOnly bool) *lab.Lab {
	t.Helper()
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c, ReadOnly: readOnly})
	t.Cleanup(l.Close)
	return l
}

// testContext is a context that ends with the test or after a minute.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// createTopic creates a one-partition topic or fails the test.
func createTopic(t *testing.T, ctx context.Context, l *lab.Lab, name string) {
	t.Helper()
	if _, err := l.CreateTopic(ctx, cluster.TopicSpec{Name: name, Partitions: 1}); err != nil {
		t.Fatalf("CreateTopic(%s): %v", name, err)
	}
}

// narratedSince runs fn and returns the catalogue keys of the events it
// narrated on the timeline (the use cases narrate synchronously).
func narratedSince(t *testing.T, l *lab.Lab, fn func()) []live.Event {
	t.Helper()
	before := len(l.Events(lab.MaxEvents))
	fn()
	events := l.Events(lab.MaxEvents)
	if before > len(events) {
		before = 0
	}
	return events[before:]
}

// keysOf are the events' catalogue keys, in order.
func keysOf(events []live.Event) []string {
	keys := make([]string, len(events))
	for i, e := range events {
		keys[i] = e.Key
	}
	return keys
}

// wantKeys fails the test unless every key of want was narrated and every
// narrated event names a catalogue key.
func wantKeys(t *testing.T, events []live.Event, want ...string) {
	t.Helper()
	got := keysOf(events)
	for _, k := range want {
		if !slices.Contains(got, k) {
			t.Errorf("narrated %v; want %s among them", got, k)
		}
	}
	for _, e := range events {
		if e.Key == "" {
			t.Errorf("event %q names no catalogue key", e.Text)
		}
	}
}

// wantNoKeys fails the test if any key of unwanted was narrated.
func wantNoKeys(t *testing.T, events []live.Event, unwanted ...string) {
	t.Helper()
	got := keysOf(events)
	for _, k := range unwanted {
		if slices.Contains(got, k) {
			t.Errorf("narrated %v; want no %s", got, k)
		}
	}
}

// wantProblem fails the test unless err is a problem of kind with key.
func wantProblem(t *testing.T, err error, kind problem.Kind, key string) {
	t.Helper()
	p := problem.As(err)
	if p == nil {
		t.Fatalf("err = nil; want %s %s", kind, key)
	}
	if p.Kind != kind || p.Message.Key != key {
		t.Errorf("err = %s %s (%v); want %s %s", p.Kind, p.Message.Key, err, kind, key)
	}
}

// offsets are the stored offsets of an outcome's results (-1 for none).
func offsets(rs []producer.Result) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = -1
		if r.Offset != nil {
			out[i] = *r.Offset
		}
	}
	return out
}

// TestProduce sends with each fault and checks the outcome (what was
// stored where) and what the lab narrates that the log cannot show.
func TestProduce(t *testing.T) {
	t.Parallel()
	l := newLab(t, false)
	ctx := testContext(t)
	yes, no := true, false
	cases := []struct {
		name      string
		req       producer.Request
		ackLost   bool
		logLength int64 // the partition's high watermark after the call
		want      []string
		unwanted  []string
	}{
		{
			name:      "acks=all is told by its offsets alone",
			req:       producer.Request{Values: producer.Values("a", "b"), Profile: producer.Profile{Acks: producer.AcksAll}},
			logLength: 2,
			unwanted:  []string{"narration.acks0", "narration.acklost.plain", "narration.doublesend"},
		},
		{
			name:      "acks=0 does not know its outcome",
			req:       producer.Request{Values: producer.Values("a"), Profile: producer.Profile{Acks: producer.AcksNone, Idempotent: &no}},
			logLength: 1,
			want:      []string{"narration.acks0"},
		},
		{
			name:      "a lost ACK without idempotence stores the retry twice",
			req:       producer.Request{Values: producer.Values("a"), Profile: producer.Profile{Acks: producer.AcksAll, Idempotent: &no}, Fault: producer.LoseAck},
			ackLost:   true,
			logLength: 2,
			want:      []string{"narration.acklost.plain", "narration.retry"},
			unwanted:  []string{"narration.retryDeduped"},
		},
		{
			name:      "a lost ACK with idempotence is kept once",
			req:       producer.Request{Values: producer.Values("a"), Profile: producer.Profile{Acks: producer.AcksAll, Idempotent: &yes}, Fault: producer.LoseAck},
			ackLost:   true,
			logLength: 1,
			want:      []string{"narration.acklost.idempotent", "narration.retryDeduped"},
			unwanted:  []string{"narration.retry"},
		},
		{
			name:      "the application's double send is stored twice",
			req:       producer.Request{Values: producer.Values("a"), Profile: producer.Profile{Acks: producer.AcksAll, Idempotent: &yes}, Fault: producer.DoubleSend},
			logLength: 2,
			want:      []string{"narration.doublesend"},
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topic := "produce-" + string(rune('a'+i))
			createTopic(t, ctx, l, topic)
			tc.req.Topic = topic
			var out *producer.Outcome
			events := narratedSince(t, l, func() {
				var err error
				if out, err = l.Produce(ctx, tc.req); err != nil {
					t.Fatalf("Produce: %v", err)
				}
			})
			if out.AckLost != tc.ackLost {
				t.Errorf("AckLost = %v, want %v", out.AckLost, tc.ackLost)
			}
			if len(out.Results) == 0 {
				t.Fatalf("no results: %+v", out)
			}
			if tc.req.Profile.Acks == producer.AcksNone {
				if got := offsets(out.Results); got[0] != -1 {
					t.Errorf("acks=0 reported offsets %v; it cannot know them", got)
				}
			}
			// acks=0 answers before the broker has appended: wait (with a
			// deadline) for the log to reach its length before reading it.
			var p inspect.Pointers
			_ = wait.Until(ctx, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
				var err error
				p, err = l.Pointers(ctx, topic, 0)
				return err == nil && p.HighWatermark >= tc.logLength, nil
			}) // on its deadline the assertion below tells what the log holds
			if p.HighWatermark != tc.logLength {
				t.Errorf("high watermark %d, want %d (results %v)", p.HighWatermark, tc.logLength, offsets(out.Results))
			}
			wantKeys(t, events, tc.want...)
			wantNoKeys(t, events, tc.unwanted...)
		})
	}
}

// TestProduceRefused: what Produce refuses before sending anything, each
// with its catalogue sentence.
func TestProduceRefused(t *testing.T) {
	t.Parallel()
	l := newLab(t, false)
	ro := newLab(t, true)
	ctx := testContext(t)
	createTopic(t, ctx, l, "small")
	two := int32(2)
	huge := string(make([]byte, lab.ClientBatchMaxBytes+1))
	cases := []struct {
		name string
		lab  *lab.Lab
		req  producer.Request
		kind problem.Kind
		key  string
	}{
		{"read-only cluster", ro, producer.Request{Topic: "small", Values: producer.Values("a")}, problem.Forbidden, "error.readOnly"},
		{"no topic named", l, producer.Request{Values: producer.Values("a")}, problem.Invalid, "error.topicRequired"},
		{"no values", l, producer.Request{Topic: "small"}, problem.Invalid, "error.valuesRequired"},
		{"partition out of range", l, producer.Request{Topic: "small", Partition: &two, Values: producer.Values("a")}, problem.NotFound, "error.unknownPartition"},
		{"record too large", l, producer.Request{Topic: "small", Values: producer.Values(huge)}, problem.TooLarge, "error.recordTooLarge"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.lab.Produce(ctx, tc.req)
			wantProblem(t, err, tc.kind, tc.key)
		})
	}
	if p, err := l.Pointers(ctx, "small", 0); err != nil || p.HighWatermark != 0 {
		t.Errorf("small after the refusals: %+v, %v; want nothing written", p, err)
	}
}

// TestRunProcessorCrashBeforeCommit runs the order processor in each mode
// with a crash at O-2, then once more without: the crash is narrated in
// the mode's words, and the restart of the transactional one fences the
// crashed producer and has its transaction aborted.
func TestRunProcessorCrashBeforeCommit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode          producer.Mode
		txid          string
		crashKey      string
		restartFences bool
	}{
		{producer.AtMostOnce, "", "narration.crash", false},
		{producer.Plain, "", "narration.crash.plain", false},
		{producer.Transactional, "totals-app", "narration.crash.txn", true},
	}
	for _, tc := range cases {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			l := newLab(t, false)
			ctx := testContext(t)
			createTopic(t, ctx, l, "orders")
			createTopic(t, ctx, l, "totals")
			if _, err := l.Produce(ctx, producer.Request{Topic: "orders", Values: producer.Values(producer.SeedOrders()...), Profile: producer.Profile{Acks: producer.AcksAll}}); err != nil {
				t.Fatal(err)
			}
			cfg := producer.RunConfig{Mode: tc.mode, Input: "orders", Output: "totals", Group: "totals-" + string(tc.mode), TransactionalID: tc.txid, CrashAt: "O-2"}
			var res *producer.RunResult
			events := narratedSince(t, l, func() {
				var err error
				if res, err = l.RunProcessor(ctx, cfg); err != nil {
					t.Fatalf("RunProcessor: %v", err)
				}
			})
			if !res.Crashed || res.CrashedAt != "O-2" {
				t.Errorf("Crashed %v at %q; want a crash at O-2", res.Crashed, res.CrashedAt)
			}
			wantKeys(t, events, tc.crashKey)
			for _, e := range events {
				if e.Key == tc.crashKey && (e.Args["lastKey"] == "" || e.Topic != "totals") {
					t.Errorf("crash narration %+v: want it on totals, quoting the run's last line by key", e)
				}
			}
			if tc.mode == producer.Transactional {
				if txn, err := l.Transaction(ctx, tc.txid); err != nil || txn.State != cluster.TxnOngoing {
					t.Errorf("after the crash: %+v, %v; want the transaction Ongoing", txn, err)
				}
			}

			cfg.CrashAt = ""
			events = narratedSince(t, l, func() {
				var err error
				if res, err = l.RunProcessor(ctx, cfg); err != nil {
					t.Fatalf("RunProcessor again: %v", err)
				}
			})
			if res.Crashed {
				t.Errorf("the second run crashed: %+v", res)
			}
			fenced := slices.ContainsFunc(keysOf(events), func(k string) bool { return k == "narration.fence" || k == "narration.fence.retried" })
			if fenced != tc.restartFences {
				t.Errorf("restart narrated %v; fence narrated = %v, want %v", keysOf(events), fenced, tc.restartFences)
			}
			if tc.mode == producer.Transactional {
				if res.ProducerEpoch < 1 {
					t.Errorf("restart's producer epoch %d; want it bumped past the crashed one's", res.ProducerEpoch)
				}
				// The fence tells the epoch the restarted producer got: its
				// first record's (after the ABORT), not the run's last.
				log, err := l.Log(ctx, "totals", 0, 0, 100)
				if err != nil {
					t.Fatal(err)
				}
				first := int16(-1)
				for i, e := range log.Entries {
					if e.Marker == inspect.MarkerAbort && i+1 < len(log.Entries) {
						first = log.Entries[i+1].ProducerEpoch
						break
					}
				}
				for _, e := range events {
					if strings.HasPrefix(e.Key, "narration.fence") && e.Args["epoch"] != strconv.Itoa(int(first)) {
						t.Errorf("the fence tells epoch %s; the first record after the ABORT carries %d (the run ended at %d)", e.Args["epoch"], first, res.ProducerEpoch)
					}
				}
				p, err := l.Pointers(ctx, "totals", 0)
				if err != nil || p.LastStableOffset != p.HighWatermark {
					t.Errorf("totals after the restart: %+v, %v; want the LSO caught up with the HW", p, err)
				}
			}
		})
	}
}

// TestTransactionSteps steps a transaction through the dashboard's
// process: Begin and Crash narrate with the producer's id and epoch, Send
// and End return the session's state, the crash holds the LSO back, and
// a new Begin fences the crashed producer.
func TestTransactionSteps(t *testing.T) {
	t.Parallel()
	l := newLab(t, false)
	ctx := testContext(t)
	createTopic(t, ctx, l, "steps")
	const id = "steps-app"
	send := producer.Request{Topic: "steps", Values: producer.Values("one")}

	type step struct {
		name  string
		do    func() (producer.SessionState, error)
		check func(t *testing.T, st producer.SessionState, p inspect.Pointers)
		want  []string
	}
	var firstEpoch int16
	steps := []step{
		{"begin", func() (producer.SessionState, error) { return l.Begin(ctx, lab.DashboardProcess, id, 0) },
			func(t *testing.T, st producer.SessionState, _ inspect.Pointers) {
				if !st.InTransaction || st.ProducerID < 0 {
					t.Errorf("state %+v; want a producer in a transaction", st)
				}
				firstEpoch = st.ProducerEpoch
			}, []string{"narration.txn.begin"}},
		{"send", func() (producer.SessionState, error) { return l.Send(ctx, lab.DashboardProcess, id, send) },
			func(t *testing.T, st producer.SessionState, p inspect.Pointers) {
				if got := offsets(st.Results); !slices.Equal(got, []int64{0}) {
					t.Errorf("sent at %v, want [0]", got)
				}
				if p.LastStableOffset != 0 || p.HighWatermark != 1 {
					t.Errorf("pointers %+v; want LSO 0 held below HW 1", p)
				}
			}, nil},
		{"commit", func() (producer.SessionState, error) { return l.End(ctx, lab.DashboardProcess, id, true) },
			func(t *testing.T, st producer.SessionState, p inspect.Pointers) {
				if st.InTransaction {
					t.Errorf("state %+v; want the transaction ended", st)
				}
				if p.HighWatermark != 2 || p.LastStableOffset != 2 {
					t.Errorf("pointers %+v; want the record and its COMMIT marker stable (2, 2)", p)
				}
			}, nil},
		{"begin again", func() (producer.SessionState, error) { return l.Begin(ctx, lab.DashboardProcess, id, 0) }, nil, []string{"narration.txn.begin"}},
		{"send again", func() (producer.SessionState, error) { return l.Send(ctx, lab.DashboardProcess, id, send) }, nil, nil},
		{"crash", func() (producer.SessionState, error) { return l.Crash(ctx, lab.DashboardProcess, id) },
			func(t *testing.T, st producer.SessionState, p inspect.Pointers) {
				if !st.Crashed || len(st.Partitions) != 1 {
					t.Errorf("state %+v; want crashed, holding steps-0", st)
				}
				if p.LastStableOffset != 2 || p.HighWatermark != 3 {
					t.Errorf("pointers %+v; want the LSO held at 2 below HW 3", p)
				}
			}, []string{"narration.txn.crash"}},
		{"a new producer fences the crashed one", func() (producer.SessionState, error) { return l.Begin(ctx, lab.DashboardProcess, id, 0) },
			func(t *testing.T, st producer.SessionState, _ inspect.Pointers) {
				if st.ProducerEpoch <= firstEpoch {
					t.Errorf("epoch %d after the fence; want above %d", st.ProducerEpoch, firstEpoch)
				}
			}, []string{"narration.txn.begin"}},
		{"abort", func() (producer.SessionState, error) { return l.End(ctx, lab.DashboardProcess, id, false) }, nil, nil},
	}
	for _, s := range steps {
		var st producer.SessionState
		events := narratedSince(t, l, func() {
			var err error
			if st, err = s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		})
		t.Run(s.name, func(t *testing.T) {
			wantKeys(t, events, s.want...)
			for _, e := range events {
				if e.Key == "narration.txn.begin" || e.Key == "narration.txn.crash" {
					if e.Args["txid"] != id || e.Args["producer"] == "" || e.Args["epoch"] == "" {
						t.Errorf("%s narrated with args %v; want txid, producer and epoch", e.Key, e.Args)
					}
				}
			}
			if s.check != nil {
				p, err := l.Pointers(ctx, "steps", 0)
				if err != nil {
					t.Fatal(err)
				}
				s.check(t, st, p)
			}
		})
	}
	if txn, err := l.Transaction(ctx, id); err != nil || txn.State == cluster.TxnOngoing {
		t.Errorf("after the abort: %+v, %v; want the transaction ended", txn, err)
	}
}

// TestTopicsAndReads creates a topic, reads it every way a page does,
// deletes it, and checks what a read-only lab refuses.
func TestTopicsAndReads(t *testing.T) {
	t.Parallel()
	l := newLab(t, false)
	ctx := testContext(t)
	topic, err := l.CreateTopic(ctx, cluster.TopicSpec{Name: "reads", Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(topic.Partitions) != 2 {
		t.Fatalf("created %+v; want two partitions", topic)
	}
	_, err = l.CreateTopic(ctx, cluster.TopicSpec{Name: "reads", Partitions: 1})
	if problem.KindOf(err) != problem.Conflict {
		t.Errorf("creating reads twice: %v (%s); want a conflict", err, problem.KindOf(err))
	}
	zero := int32(0)
	if _, err := l.Produce(ctx, producer.Request{Topic: "reads", Partition: &zero, Values: producer.Values("x", "y", "z"), Profile: producer.Profile{Acks: producer.AcksAll}}); err != nil {
		t.Fatal(err)
	}

	log, err := l.Log(ctx, "reads", 0, -1, 10)
	if err != nil || len(log.Entries) != 3 {
		t.Errorf("Log: %+v, %v; want three entries", log, err)
	}
	for _, iso := range []inspect.Isolation{inspect.ReadCommitted, inspect.ReadUncommitted} {
		recs, err := l.Records(ctx, "reads", 0, iso, 0, 10)
		if err != nil || len(recs) != 3 {
			t.Errorf("Records(%s): %d records, %v; want 3", iso, len(recs), err)
		}
	}
	if recs, err := l.Records(ctx, "reads", 1, inspect.ReadCommitted, 0, 10); err != nil || recs == nil || len(recs) != 0 {
		t.Errorf("Records of the empty partition: %#v, %v; want an empty, non-nil list", recs, err)
	}
	detail, err := l.TopicDetail(ctx, "reads")
	if err != nil || len(detail.Partitions) != 2 || detail.Partitions[0].OpenTransactions != 0 || len(detail.Configs) == 0 {
		t.Errorf("TopicDetail: %+v, %v; want two partitions without open transactions, and the configs", detail, err)
	}
	if topics, err := l.Topics(ctx); err != nil || !slices.ContainsFunc(topics, func(t cluster.TopicInfo) bool { return t.Name == "reads" }) {
		t.Errorf("Topics: %+v, %v; want reads among them", topics, err)
	}
	if s := l.Status(ctx); !s.Reachable || s.Error != "" || s.Mode != cluster.Embedded {
		t.Errorf("Status: %+v; want the embedded broker reachable", s)
	}
	_, err = l.Log(ctx, "missing", 0, -1, 10)
	if problem.KindOf(err) != problem.NotFound {
		t.Errorf("Log of a missing topic: %v (%s); want not-found", err, problem.KindOf(err))
	}
	_, err = l.Watch(ctx, "reads", 5, live.Viewer{Client: "127.0.0.1"})
	wantProblem(t, err, problem.NotFound, "error.unknownPartition")

	events := narratedSince(t, l, func() {
		if err := l.DeleteTopic(ctx, "reads"); err != nil {
			t.Fatalf("DeleteTopic: %v", err)
		}
	})
	wantKeys(t, events, "narration.topicDeleted")
	if len(events) > 0 && events[len(events)-1].Args["topic"] != "reads" {
		t.Errorf("deletion narrated %+v; want it to name the topic", events[len(events)-1])
	}
	if _, err := l.Topic(ctx, "reads"); problem.KindOf(err) != problem.NotFound {
		t.Errorf("Topic after the deletion: %v; want not-found", err)
	}

	ro := newLab(t, true)
	writes := map[string]func() error{
		"CreateTopic": func() error { _, err := ro.CreateTopic(ctx, cluster.TopicSpec{Name: "x"}); return err },
		"DeleteTopic": func() error { return ro.DeleteTopic(ctx, "x") },
		"Begin":       func() error { _, err := ro.Begin(ctx, lab.DashboardProcess, "x", 0); return err },
		"RunProcessor": func() error {
			_, err := ro.RunProcessor(ctx, producer.RunConfig{Mode: producer.Plain, Input: "a", Output: "b", Group: "g"})
			return err
		},
		"AbortTransaction": func() error { _, err := ro.AbortTransaction(ctx, "x", 0, 0); return err },
	}
	for name, write := range writes {
		t.Run("read-only "+name, func(t *testing.T) { wantProblem(t, write(), problem.Forbidden, "error.readOnly") })
	}
}

// TestNarrateAtLogEnd: a sentence about a partition but no one cell (a
// lesson's step, its checks) is placed at the partition's high watermark
// when told, so that the story tells it after what was written before
// it, whenever the cells reach the page; one about the cluster has none.
func TestNarrateAtLogEnd(t *testing.T) {
	t.Parallel()
	l := newLab(t, false)
	ctx := testContext(t)
	createTopic(t, ctx, l, "payments")
	if _, err := l.Produce(ctx, producer.Request{Topic: "payments", Values: producer.Values("P-1", "P-2"), Profile: producer.Profile{Acks: producer.AcksAll}}); err != nil {
		t.Fatal(err)
	}
	events := narratedSince(t, l, func() {
		l.Narrate(live.EventInfo, "payments", 0, catalog.M("narration.acks0"))
		l.Narrate(live.EventInfo, "", 0, catalog.M("narration.acks0"))
	})
	if len(events) != 2 {
		t.Fatalf("narrated %d events, want 2", len(events))
	}
	if at := events[0].At; at == nil || *at != 2 {
		t.Errorf("the partition's sentence is at %v, want the high watermark 2", at)
	}
	if events[1].At != nil {
		t.Errorf("the cluster's sentence is at %d, want none", *events[1].At)
	}
}
