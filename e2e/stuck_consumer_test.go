package e2e

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// stuckConsumer is the scenario of a read_committed consumer stuck behind
// an open transaction: 300 committed records, then a transaction of
// transactional id refund-worker-7 (timeout 60 s) that writes offset 300
// and stays open, then 50 records of an idempotent producer (301–350); a
// read_committed group consumed up to the LSO, 300, and committed.
type stuckConsumer struct {
	topic, group, txid string
	// holder is refund-worker-7's producer, still in its transaction.
	holder *kgo.Client
	// began is about when that transaction opened: before its first write.
	began time.Time
}

// Numbers of the scenario, asserted exactly.
const (
	stuckBefore  = 300 // committed records before the open transaction
	stuckWaiting = 50  // records written after it
	stuckTimeout = 60 * time.Second
)

// setUpStuckConsumer writes the scenario on a's broker.
func setUpStuckConsumer(t *testing.T, a *app) stuckConsumer {
	t.Helper()
	s := stuckConsumer{topic: a.name("refunds"), group: a.name("refund-readers"), txid: a.name("refund-worker-7")}
	a.createTopic(s.topic)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	client := func(opts ...kgo.Opt) *kgo.Client {
		cl, err := kgo.NewClient(append(a.kafka.ClientOpts(), opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	write := func(cl *kgo.Client, n int, what string) {
		t.Helper()
		recs := make([]*kgo.Record, n)
		for i := range recs {
			recs[i] = &kgo.Record{Topic: s.topic, Key: []byte("refund-" + strconv.Itoa(i)), Value: []byte(what)}
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatalf("write %d %s records: %v", n, what, err)
		}
	}
	plain := client(kgo.DefaultProduceTopic(s.topic))
	write(plain, stuckBefore, "refunded")
	s.holder = client(kgo.TransactionalID(s.txid), kgo.TransactionTimeout(stuckTimeout))
	s.began = time.Now()
	if err := s.holder.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	write(s.holder, 1, "refund pending")
	write(plain, stuckWaiting, "refunded after")

	// The read_committed consumer: it reads up to the LSO and commits.
	reader := client(kgo.ConsumerGroup(s.group), kgo.ConsumeTopics(s.topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	got := 0
	for got < stuckBefore {
		fs := reader.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("the read_committed consumer received %d records, want %d: %v", got, stuckBefore, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("read_committed consumer: %v", err) })
		got += fs.NumRecords()
	}
	if err := reader.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	reader.Close()
	return s
}

// heldLSO is GET …/lso.
type heldLSO struct {
	LastStableOffset int64 `json:"lastStableOffset"`
	HighWatermark    int64 `json:"highWatermark"`
	Held             bool  `json:"held"`
	Holder           *struct {
		TransactionalID string `json:"transactionalId"`
		ProducerID      int64  `json:"producerId"`
		StartOffset     int64  `json:"startOffset"`
		State           string `json:"state"`
		AgeMs           int64  `json:"ageMs"`
		TimeoutMs       int64  `json:"timeoutMs"`
	} `json:"holder"`
	Waiting         int64 `json:"waiting"`
	WaitingComplete bool  `json:"waitingComplete"`
}

// checkHeld fails unless h names s's open transaction at 300 with 50
// records waiting behind it.
func (s stuckConsumer) checkHeld(t *testing.T, what string, h *heldLSO) {
	t.Helper()
	if h == nil || !h.Held || h.LastStableOffset != stuckBefore || h.HighWatermark != stuckBefore+1+stuckWaiting ||
		h.Waiting != stuckWaiting || !h.WaitingComplete {
		t.Fatalf("%s: %+v, want held at %d, HW %d, %d waiting", what, h, stuckBefore, stuckBefore+1+stuckWaiting, stuckWaiting)
	}
	x := h.Holder
	if x == nil || x.TransactionalID != s.txid || x.StartOffset != stuckBefore || x.State != "Ongoing" || x.AgeMs <= 0 || x.TimeoutMs != stuckTimeout.Milliseconds() {
		t.Fatalf("%s: holder %+v, want %s Ongoing from %d, age > 0, timeout %d ms", what, x, s.txid, stuckBefore, stuckTimeout.Milliseconds())
	}
}

// TestStuckReadCommittedConsumer: on both brokers, the open transaction
// holding a read_committed consumer's partition is named — transactional
// id, age, timeout, the 50 records waiting behind it at LSO 300 — by the
// partition's …/lso and by the group (record lag 0, offset lag 51); the
// abort through its coordinator fences the producer, frees the LSO and
// leaves no list saying Ongoing.
func TestStuckReadCommittedConsumer(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			s := setUpStuckConsumer(t, a)
			part := "/api/topics/" + s.topic + "/partitions/0"

			var h heldLSO
			a.do("GET", part+"/lso", nil, http.StatusOK, &h)
			s.checkHeld(t, "GET …/lso", &h)
			t.Logf("%s: %s held for %d ms of %d ms, %d waiting", kind, h.Holder.TransactionalID, h.Holder.AgeMs, h.Holder.TimeoutMs, h.Waiting)

			var g struct {
				Offsets []struct {
					Committed int64    `json:"committed"`
					Lag       int64    `json:"lag"`
					RecordLag int64    `json:"recordLag"`
					Held      *heldLSO `json:"held"`
				} `json:"offsets"`
			}
			a.do("GET", "/api/groups/"+s.group, nil, http.StatusOK, &g)
			if len(g.Offsets) != 1 || g.Offsets[0].Committed != stuckBefore || g.Offsets[0].Lag != 1+stuckWaiting || g.Offsets[0].RecordLag != 0 {
				t.Fatalf("group %s: %+v, want committed %d, offset lag %d, record lag 0", s.group, g, stuckBefore, 1+stuckWaiting)
			}
			s.checkHeld(t, "the group's held", g.Offsets[0].Held)

			var ended struct {
				TransactionalID string `json:"transactionalId"`
				State           string `json:"state"`
				Partitions      []string
			}
			a.do("POST", "/api/transactions/"+s.txid+"/terminate", nil, http.StatusOK, &ended)
			t.Logf("%s: terminate answered %+v", kind, ended)
			if ended.TransactionalID != s.txid || ended.State == "Ongoing" || ended.State == "" {
				t.Errorf("terminate: %+v, want %s no longer Ongoing", ended, s.txid)
			}
			waitForLog(t, a, s.topic, func(l partitionLog) bool { return l.LastStableOffset == l.HighWatermark })
			type event struct {
				Key   string `json:"key"`
				Topic string `json:"topic"`
			}
			var events struct {
				Events []event `json:"events"`
			}
			a.do("GET", "/api/events", nil, http.StatusOK, &events)
			if !slices.ContainsFunc(events.Events, func(e event) bool { return e.Key == "narration.forceTerminate" && e.Topic == s.topic }) {
				t.Errorf("the story does not tell the abort on %s: %+v", s.topic, events.Events)
			}
			h = heldLSO{}
			a.do("GET", part+"/lso", nil, http.StatusOK, &h)
			if h.Held || h.Holder != nil || h.Waiting != 0 {
				t.Errorf("GET …/lso after the abort: %+v, want nothing held", h)
			}
			var txns struct {
				Transactions []struct {
					TransactionalID string `json:"transactionalId"`
					State           string `json:"state"`
				} `json:"transactions"`
			}
			a.do("GET", "/api/transactions", nil, http.StatusOK, &txns)
			for _, x := range txns.Transactions {
				if x.TransactionalID == s.txid && x.State == "Ongoing" {
					t.Errorf("GET /api/transactions after the abort lists %s Ongoing", s.txid)
				}
			}
			var recs records
			a.do("GET", part+"/records?isolation=read_committed&limit=1000", nil, http.StatusOK, &recs)
			if len(recs.Records) != stuckBefore+stuckWaiting {
				t.Errorf("read_committed after the abort receives %d records, want %d", len(recs.Records), stuckBefore+stuckWaiting)
			}
			// The producer that held it is fenced: its commit fails.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.holder.EndTransaction(ctx, kgo.TryCommit); err == nil {
				t.Errorf("refund-worker-7's commit after the abort succeeded, want it fenced")
			}
			a.do("POST", "/api/transactions/"+s.txid+"/terminate", nil, http.StatusConflict, nil)
		})
	}
}
