package e2e

import (
	"net/http"
	"testing"
)

type sessionView struct {
	ProducerID    int64 `json:"producerId"`
	ProducerEpoch int16 `json:"producerEpoch"`
	InTransaction bool  `json:"inTransaction"`
	Crashed       bool  `json:"crashed"`
	Results       []struct {
		Offset *int64 `json:"offset"`
	} `json:"results"`
}

// TestTransactionSteps drives the transaction panel's buttons through the
// API: Begin, Send, Crash before commit, then a new producer with the same
// transactional.id fences the crashed one, and Commit.
func TestTransactionSteps(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			topic, id := a.name("steps"), a.name("steps-app")
			a.createTopic(topic)
			base := "/api/transactions/" + id + "/"

			status, _ := a.request("POST", base+"send", map[string]any{"topic": topic, "values": []string{"x"}})
			if status != http.StatusConflict {
				t.Fatalf("send before begin: status %d, want 409", status)
			}
			var s sessionView
			a.do("POST", base+"begin", nil, http.StatusOK, &s)
			if !s.InTransaction || s.ProducerID < 0 {
				t.Fatalf("begin: %+v", s)
			}
			a.do("POST", base+"send", map[string]any{"topic": topic, "values": []string{"O-1", "O-2"}}, http.StatusOK, &s)
			if len(s.Results) != 2 || s.Results[1].Offset == nil || *s.Results[1].Offset != 1 {
				t.Fatalf("send: %+v", s)
			}
			var txn txnView
			a.do("GET", "/api/transactions/"+id, nil, http.StatusOK, &txn)
			if txn.State != "Ongoing" {
				t.Fatalf("after send: %+v, want Ongoing", txn)
			}
			l := a.log(topic)
			if l.LastStableOffset != 0 || l.HighWatermark != 2 {
				t.Fatalf("open transaction: LSO %d HW %d, want 0 and 2", l.LastStableOffset, l.HighWatermark)
			}
			a.do("POST", base+"crash", nil, http.StatusOK, &s)
			if !s.Crashed {
				t.Fatalf("crash: %+v", s)
			}
			a.do("GET", "/api/transactions/"+id, nil, http.StatusOK, &txn)
			if txn.State != "Ongoing" {
				t.Fatalf("after the crash: %+v, want Ongoing (no EndTxn was sent)", txn)
			}
			a.do("POST", base+"begin", nil, http.StatusOK, &s)
			a.do("POST", base+"send", map[string]any{"topic": topic, "values": []string{"O-1 again"}}, http.StatusOK, &s)
			a.do("POST", base+"commit", nil, http.StatusOK, &s)
			a.settledTransaction(id)
			equal(t, "log after crash, fence and commit", a.log(topic).shape(), []string{
				"0:aborted", "1:aborted", "2:ABORT", "3:committed", "4:COMMIT",
			})
			equal(t, "read_committed", a.consumed(topic, "read_committed"), []string{"3: O-1 again"})
			status, _ = a.request("POST", base+"commit", nil)
			if status != http.StatusConflict {
				t.Fatalf("commit with no open transaction: status %d, want 409", status)
			}
		})
	}
}
