package e2e

import (
	"net/http"
	"strings"
	"testing"
)

type produceOutcome struct {
	Results []struct {
		Partition int32   `json:"partition"`
		Offset    *int64  `json:"offset"`
		Error     *string `json:"error"`
	} `json:"results"`
	AckLost    bool  `json:"ackLost"`
	ProducerID int64 `json:"producerId"`
}

// TestProduceLessons covers lesson 5's lost ACK and the producer settings
// librdkafka refuses, on both brokers.
func TestProduceLessons(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			tests := []struct {
				name       string
				idempotent bool
				want       []string
				narration  string // the event told at the retry's cell
				retryAt    int64
			}{
				// Without idempotence the retried batch is stored again.
				{"lost ACK without idempotence", false, []string{"0:none", "1:none"}, "narration.retry", 1},
				// With it the broker recognises the retried sequence.
				{"lost ACK with idempotence", true, []string{"0:none"}, "narration.retryDeduped", 0},
			}
			for _, tt := range tests {
				topic := a.name(strings.ReplaceAll(tt.name, " ", "-"))
				a.createTopic(topic)
				var out produceOutcome
				a.do("POST", "/api/produce", map[string]any{
					"topic": topic, "key": "order-1001", "values": []string{"payment-1"},
					"acks": "all", "idempotent": tt.idempotent, "fault": "lose-ack",
				}, http.StatusOK, &out)
				// The producer learns the offset of the copy it was told about: the retry's.
				wantOffset := int64(len(tt.want) - 1)
				if !out.AckLost || len(out.Results) != 1 || out.Results[0].Error != nil || out.Results[0].Offset == nil || *out.Results[0].Offset != wantOffset {
					t.Fatalf("%s: outcome %+v; want the ACK lost and the value acknowledged at offset %d", tt.name, out, wantOffset)
				}
				l := a.log(topic)
				equal(t, tt.name, l.shape(), tt.want)
				for _, e := range l.Entries {
					wantTwin := e.Offset == 1
					if (e.DuplicateOf != nil) != wantTwin || wantTwin && *e.DuplicateOf != 0 {
						t.Fatalf("%s: offset %d duplicateOf %v; want only offset 1 marked as offset 0's twin", tt.name, e.Offset, e.DuplicateOf)
					}
				}
				a.wantEvent(topic, tt.narration, tt.retryAt)
				if got := a.consumed(topic, "read_uncommitted"); len(got) != len(tt.want) {
					t.Fatalf("%s: a consumer receives %v", tt.name, got)
				}
			}

			topic := a.name("acks")
			a.createTopic(topic)
			status, body := a.request("POST", "/api/produce", map[string]any{
				"topic": topic, "values": []string{"x"}, "acks": "1", "idempotent": true,
			})
			if status != http.StatusBadRequest || !strings.Contains(string(body), "idempotence") {
				t.Fatalf("acks=1 with idempotence: %d %s; want 400 naming idempotence", status, body)
			}
			var out produceOutcome
			a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"fire-and-forget"}, "acks": "0"}, http.StatusOK, &out)
			if len(out.Results) != 1 || out.Results[0].Offset != nil || out.Results[0].Error != nil {
				t.Fatalf("acks=0 outcome %+v; want one result with offset null", out)
			}
			a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"twice"}, "fault": "double-send"}, http.StatusOK, &out)
			if len(out.Results) != 2 || *out.Results[0].Offset == *out.Results[1].Offset {
				t.Fatalf("double send outcome %+v; want two records at two offsets", out)
			}
		})
	}
}

// wantEvent fails unless the cluster's recent narration holds an event of
// key about topic, told at offset.
func (a *app) wantEvent(topic, key string, offset int64) {
	a.t.Helper()
	var got struct {
		Events []struct {
			Topic  string `json:"topic"`
			Key    string `json:"key"`
			Offset *int64 `json:"offset"`
		} `json:"events"`
	}
	a.do("GET", "/api/events", nil, http.StatusOK, &got)
	for _, e := range got.Events {
		if e.Topic == topic && e.Key == key && e.Offset != nil && *e.Offset == offset {
			return
		}
	}
	a.t.Fatalf("no %s event at %s offset %d among %+v", key, topic, offset, got.Events)
}
