package e2e

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// mapView is GET …/map.
type mapView struct {
	From, To         int64
	LastStableOffset int64 `json:"lastStableOffset"`
	HighWatermark    int64 `json:"highWatermark"`
	Buckets          []struct {
		From          int64 `json:"from"`
		To            int64 `json:"to"`
		Plain         int64 `json:"plain"`
		Committed     int64 `json:"committed"`
		Aborted       int64 `json:"aborted"`
		Open          int64 `json:"open"`
		CommitMarkers int64 `json:"commitMarkers"`
		AbortMarkers  int64 `json:"abortMarkers"`
		Gaps          int64 `json:"gaps"`
	} `json:"buckets"`
}

func (m mapView) totals() (plain, committed, aborted, open, commits, aborts, gaps int64) {
	for _, b := range m.Buckets {
		plain += b.Plain
		committed += b.Committed
		aborted += b.Aborted
		open += b.Open
		commits += b.CommitMarkers
		aborts += b.AbortMarkers
		gaps += b.Gaps
	}
	return
}

// TestExplorerAPI: the explorer's endpoints over lesson 2's and lesson
// 6c's topics, on both brokers — the map's counts (3 committed, 1 aborted,
// 3 COMMIT, 1 ABORT), jumps, search, seek by time, the group's offset lag
// and record lag (a trailing COMMIT makes them 1 and 0), transactions and
// producers, topics with configs and open transactions, delete with
// confirmation, and the explorer's bad inputs.
func TestExplorerAPI(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			l2 := a.runLesson("2", true)
			if l2.Status != "finished" {
				t.Fatalf("lesson 2: %s %s", l2.Status, l2.Error)
			}
			out := l2.Names["order-totals-tx"]
			part := "/api/topics/" + out + "/partitions/0"

			var m mapView
			a.do("GET", part+"/map?buckets=4", nil, http.StatusOK, &m)
			plain, committed, aborted, open, commits, aborts, gaps := m.totals()
			if plain != 0 || committed != 3 || aborted != 1 || open != 0 || commits != 3 || aborts != 1 || gaps != 0 || len(m.Buckets) != 4 {
				t.Errorf("map of %s: plain %d committed %d aborted %d open %d COMMIT %d ABORT %d gaps %d in %d buckets; want 0 3 1 0 3 1 0 in 4",
					out, plain, committed, aborted, open, commits, aborts, gaps, len(m.Buckets))
			}

			var j struct {
				Offset *int64 `json:"offset"`
			}
			a.do("GET", part+"/jump?kind=aborted&from=0", nil, http.StatusOK, &j)
			if j.Offset == nil || *j.Offset != 2 {
				t.Errorf("next aborted from 0: %v, want 2", j.Offset)
			}
			a.do("GET", part+"/jump?kind=abortMarker&to=8&backward=true", nil, http.StatusOK, &j)
			if j.Offset == nil || *j.Offset != 3 {
				t.Errorf("previous ABORT before 8: %v, want 3", j.Offset)
			}

			var found struct {
				Matches []struct {
					Offset int64  `json:"offset"`
					Txn    string `json:"txn"`
				} `json:"matches"`
				Next *int64 `json:"next"`
			}
			a.do("GET", part+"/search?q="+url.QueryEscape("O-2 total")+"&in=value", nil, http.StatusOK, &found)
			if len(found.Matches) != 2 || found.Matches[0].Offset != 2 || found.Matches[0].Txn != "aborted" || found.Matches[1].Offset != 4 || found.Next != nil {
				t.Errorf("search O-2 total: %+v, want offsets 2 (aborted) and 4, done", found)
			}

			var seek struct {
				Offset int64 `json:"offset"`
			}
			a.do("GET", part+"/offset?timestamp=0", nil, http.StatusOK, &seek)
			if seek.Offset != 0 {
				t.Errorf("offset for timestamp 0: %d, want 0", seek.Offset)
			}
			a.do("GET", part+"/offset?timestamp="+strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10), nil, http.StatusOK, &seek)
			if seek.Offset != 8 {
				t.Errorf("offset for a timestamp in an hour: %d, want the high watermark 8", seek.Offset)
			}

			// Both lags: committed at 8 (the end) they are 0; a group
			// committed at 7, before the trailing COMMIT marker, has
			// offset lag 1 and record lag 0.
			var g struct {
				MemberCount int `json:"memberCount"`
				Offsets     []struct {
					Committed int64 `json:"committed"`
					Lag       int64 `json:"lag"`
					RecordLag int64 `json:"recordLag"`
				} `json:"offsets"`
			}
			a.do("GET", "/api/groups/"+l2.Names["totals-tx"], nil, http.StatusOK, &g)
			if len(g.Offsets) != 1 || g.Offsets[0].Lag != 0 || g.Offsets[0].RecordLag != 0 {
				t.Errorf("group totals-tx: %+v, want lag 0 and record lag 0", g)
			}
			trailing := a.name("trailing")
			commitOffset(t, a, trailing, out, 7)
			a.do("GET", "/api/groups/"+trailing, nil, http.StatusOK, &g)
			if len(g.Offsets) != 1 || g.Offsets[0].Committed != 7 || g.Offsets[0].Lag != 1 || g.Offsets[0].RecordLag != 0 {
				t.Errorf("a group committed at 7 before the trailing COMMIT: %+v, want lag 1 and record lag 0", g)
			}
			var groups struct {
				Groups []struct {
					Group string `json:"group"`
				} `json:"groups"`
			}
			a.do("GET", "/api/groups", nil, http.StatusOK, &groups)
			if !containsGroup(groups.Groups, l2.Names["totals-tx"]) {
				t.Errorf("GET /api/groups does not list %s: %+v", l2.Names["totals-tx"], groups)
			}

			// Lesson 6c leaves a transaction open on its way: its
			// producers and the transactions list show it.
			run := a.startLessonRun("6c")
			for range 3 { // create, begin, send
				a.do("POST", "/api/lessons/runs/"+run.ID+"/next", nil, http.StatusOK, &run)
			}
			payments := run.Names["payments"]
			var prods struct {
				Producers []struct {
					ProducerID                    int64 `json:"producerId"`
					CurrentTransactionStartOffset int64 `json:"currentTransactionStartOffset"`
					Hanging                       bool  `json:"hanging"`
				} `json:"producers"`
			}
			a.do("GET", "/api/topics/"+payments+"/partitions/0/producers", nil, http.StatusOK, &prods)
			openAt0 := false
			for _, p := range prods.Producers {
				openAt0 = openAt0 || p.CurrentTransactionStartOffset == 0
				if p.Hanging {
					t.Errorf("a transaction begun a moment ago reads as hanging: %+v", p)
				}
			}
			if !openAt0 {
				t.Errorf("producers of %s: %+v, want one with a transaction open at 0", payments, prods)
			}
			var txns struct {
				Transactions []struct {
					TransactionalID string `json:"transactionalId"`
					State           string `json:"state"`
				} `json:"transactions"`
			}
			a.do("GET", "/api/transactions?state=Ongoing", nil, http.StatusOK, &txns)
			ongoing := false
			for _, x := range txns.Transactions {
				ongoing = ongoing || (x.TransactionalID == run.Names["payments-app"] && x.State == "Ongoing")
			}
			if !ongoing {
				t.Errorf("GET /api/transactions?state=Ongoing: %+v, want %s", txns, run.Names["payments-app"])
			}
			var detail struct {
				Partitions []struct {
					OpenTransactions int   `json:"openTransactions"`
					HighWatermark    int64 `json:"highWatermark"`
				} `json:"partitions"`
				Configs []struct {
					Name   string `json:"name"`
					Source string `json:"source"`
				} `json:"configs"`
			}
			a.do("GET", "/api/topics/"+payments, nil, http.StatusOK, &detail)
			if len(detail.Partitions) != 1 || detail.Partitions[0].OpenTransactions != 1 || len(detail.Configs) == 0 {
				t.Errorf("GET /api/topics/%s: %+v, want one partition with one open transaction, and configs", payments, detail)
			}
			// The abort of the open transaction, as kafka-transactions.sh
			// abort does it, moves the LSO past it.
			a.do("POST", "/api/topics/"+payments+"/partitions/0/transactions/0/abort", nil, http.StatusOK, nil)
			waitForLog(t, a, payments, func(l partitionLog) bool { return l.LastStableOffset == l.HighWatermark })

			// Delete asks for the name twice.
			doomed := a.name("doomed")
			a.createTopic(doomed)
			a.do("DELETE", "/api/topics/"+doomed, nil, http.StatusBadRequest, nil)
			a.do("DELETE", "/api/topics/"+doomed+"?confirm="+doomed, nil, http.StatusNoContent, nil)
			a.do("GET", "/api/topics/"+doomed, nil, http.StatusNotFound, nil)

			// Bad input: a clear error or an empty answer, never a hang.
			for _, tt := range []struct {
				path   string
				status int
				code   string
			}{
				{part + "/map?buckets=0", http.StatusOK, ""},
				{part + "/map?buckets=99999999", http.StatusBadRequest, "error.bucketsRange"},
				{part + "/map?from=100&to=200", http.StatusOK, ""},
				{part + "/map?from=6&to=2", http.StatusBadRequest, "error.rangeReversed"},
				{part + "/search?q=", http.StatusBadRequest, "error.queryEmpty"},
				{part + "/search?q=" + strings.Repeat("x", 5000), http.StatusRequestEntityTooLarge, "error.queryTooLong"},
				{part + "/search?q=1&path=" + url.QueryEscape("order..id["), http.StatusBadRequest, "error.jsonPath"},
				{part + "/search?q=x&from=100", http.StatusOK, ""},
				{part + "/jump?kind=teleport", http.StatusBadRequest, "error.jumpKindUnknown"},
				{part + "/offset?timestamp=soon", http.StatusBadRequest, "error.timestampParam"},
				{"/api/transactions?state=Finished", http.StatusBadRequest, "error.transactionStateUnknown"},
			} {
				status, body := a.request("GET", tt.path, nil)
				if status != tt.status || (tt.code != "" && !strings.Contains(string(body), `"code":"`+tt.code+`"`)) {
					t.Errorf("GET %.80s: %d %.200s, want %d %s", tt.path, status, body, tt.status, tt.code)
				}
			}
			// A search the client gives up on ends with it.
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", a.url+part+"/search?q=zzz&path=x", nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
			a.do("GET", "/healthz", nil, http.StatusOK, nil)
		})
	}
}

func containsGroup(groups []struct {
	Group string `json:"group"`
}, name string) bool {
	for _, g := range groups {
		if g.Group == name {
			return true
		}
	}
	return false
}

// startLessonRun starts a run of lesson id without stepping it.
func (a *app) startLessonRun(id string) lessonRun {
	a.t.Helper()
	var st lessonRun
	a.do("POST", "/api/lessons/"+id+"/runs", nil, http.StatusCreated, &st)
	return st
}

// commitOffset commits offset for group on topic's partition 0, as a
// consumer outside any transaction does.
func commitOffset(t *testing.T, a *app, group, topic string, offset int64) {
	t.Helper()
	cl, err := kgo.NewClient(a.kafka.ClientOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: topic, Partition: 0, At: offset, LeaderEpoch: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := kadm.NewClient(cl).CommitOffsets(ctx, group, offsets)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("commit %d for %s: %v", offset, group, err)
	}
}

// waitForLog polls a topic's log until cond holds (30 s).
func waitForLog(t *testing.T, a *app, topic string, cond func(partitionLog) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		l := a.log(topic)
		if cond(l) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never reached the expected state: %+v", topic, l)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestExplorerAPIJumpTombstone: …/jump?kind=tombstone goes to the next and
// the previous tombstone (a key and a null value) — a plain one, one in an
// aborted transaction, one in the middle of a compressed batch — past
// records that are not (no key, an empty value, a marker), and says when
// there is none, on both brokers.
func TestExplorerAPIJumpTombstone(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			topic := a.name("tombstones")
			a.createTopic(topic)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			client := func(opts ...kgo.Opt) *kgo.Client {
				c, err := kgo.NewClient(append(a.kafka.ClientOpts(), append(opts, kgo.DefaultProduceTopic(topic))...)...)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.Close)
				return c
			}
			produce := func(c *kgo.Client, recs ...*kgo.Record) {
				t.Helper()
				if err := c.ProduceSync(ctx, recs...).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			long := []byte(strings.Repeat("compressible ", 50))
			plain := client()
			produce(plain, &kgo.Record{Key: []byte("k"), Value: []byte("v")}, &kgo.Record{Key: []byte("k")}) // 0, 1 a tombstone
			produce(plain, &kgo.Record{}, &kgo.Record{Key: []byte("e"), Value: []byte{}})                    // 2 no key, 3 an empty value
			tx := client(kgo.TransactionalID(a.name("tomb-tx")))
			if err := tx.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			produce(tx, &kgo.Record{Key: []byte("k")}) // 4, aborted
			if err := tx.EndTransaction(ctx, kgo.TryAbort); err != nil {
				t.Fatal(err)
			}
			waitForLog(t, a, topic, func(l partitionLog) bool { return l.HighWatermark == 6 && l.LastStableOffset == 6 }) // 5 ABORT
			zstd := client(kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerLinger(50*time.Millisecond))
			produce(zstd, &kgo.Record{Key: []byte("z"), Value: long}, &kgo.Record{Key: []byte("z"), Value: long},
				&kgo.Record{Key: []byte("z")}, &kgo.Record{Key: []byte("y"), Value: long}) // 6–9, 8 a tombstone
			part := "/api/topics/" + url.PathEscape(topic) + "/partitions/0"
			var l struct {
				Entries []struct {
					Kind        string  `json:"kind"`
					Txn         string  `json:"txn"`
					Compression string  `json:"compression"`
					Key         *string `json:"key"`
					Value       *string `json:"value"`
				} `json:"entries"`
			}
			a.do("GET", part+"/log?from=0&limit=100", nil, http.StatusOK, &l)
			var tombstones []int
			for o, e := range l.Entries {
				if e.Kind == "data" && e.Key != nil && e.Value == nil {
					tombstones = append(tombstones, o)
				}
			}
			if len(l.Entries) != 10 || !slices.Equal(tombstones, []int{1, 4, 8}) || l.Entries[4].Txn != "aborted" || l.Entries[5].Kind != "control" || l.Entries[8].Compression != "zstd" {
				t.Fatalf("the log is not as written (tombstones at %v): %+v", tombstones, l)
			}
			for _, c := range []struct {
				query string
				want  int64 // -1: none
			}{
				{"from=0", 1},
				{"from=2", 4}, // aborted, still a tombstone in the log
				{"from=5", 8}, // in a zstd batch, past the ABORT marker
				{"from=9", -1},
				{"from=0&to=1", -1},
				{"to=10&backward=true", 8},
				{"to=8&backward=true", 4},
				{"to=4&backward=true", 1},
				{"to=1&backward=true", -1},
			} {
				var j struct {
					Kind   string `json:"kind"`
					Offset *int64 `json:"offset"`
					Next   *int64 `json:"next"`
				}
				a.do("GET", part+"/jump?kind=tombstone&"+c.query, nil, http.StatusOK, &j)
				switch {
				case j.Kind != "tombstone" || j.Next != nil:
					t.Errorf("tombstone %s: kind %q, next set (%t)", c.query, j.Kind, j.Next != nil)
				case c.want < 0 && j.Offset != nil:
					t.Errorf("tombstone %s: %d, want none", c.query, *j.Offset)
				case c.want >= 0 && j.Offset == nil:
					t.Errorf("tombstone %s: none, want %d", c.query, c.want)
				case c.want >= 0 && *j.Offset != c.want:
					t.Errorf("tombstone %s: %d, want %d", c.query, *j.Offset, c.want)
				}
			}
		})
	}
}
