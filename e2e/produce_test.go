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
			}{
				// Without idempotence the retried batch is stored again.
				{"lost ACK without idempotence", false, []string{"0:none", "1:none"}},
				// With it the broker recognises the retried sequence.
				{"lost ACK with idempotence", true, []string{"0:none"}},
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
				equal(t, tt.name, a.log(topic).shape(), tt.want)
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
