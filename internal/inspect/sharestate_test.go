package inspect

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/wait"
)

func TestShareStatePartition(t *testing.T) {
	t.Parallel()
	// TestPersistedShareState finds real Kafka's records with it.
	id := [16]byte{}
	tests := []struct {
		key  string
		want int32
	}{
		// Java: Utils.abs("a".hashCode()) % 50 == 97 % 50
		{"a", 47},
	}
	for _, tt := range tests {
		var h int32
		for _, c := range utf16(tt.key) {
			h = 31*h + int32(c)
		}
		if got := javaAbs(h) % 50; got != tt.want {
			t.Errorf("hash(%q) %% 50 = %d, want %d", tt.key, got, tt.want)
		}
	}
	if got := ShareStatePartition("g", id, 0, 1); got != 0 {
		t.Errorf("one state partition: got %d", got)
	}
}

func TestOverlay(t *testing.T) {
	t.Parallel()
	b := func(first, last int64, state int8, count int16) ShareStateBatch {
		return ShareStateBatch{FirstOffset: first, LastOffset: last, DeliveryState: state, DeliveryCount: count}
	}
	tests := []struct {
		name string
		have []ShareStateBatch
		nb   ShareStateBatch
		want []ShareStateBatch
	}{
		{"into nothing", nil, b(0, 4, 2, 1), []ShareStateBatch{b(0, 4, 2, 1)}},
		{"splits", []ShareStateBatch{b(0, 9, 0, 1)}, b(3, 4, 4, 2), []ShareStateBatch{b(0, 2, 0, 1), b(3, 4, 4, 2), b(5, 9, 0, 1)}},
		{"covers", []ShareStateBatch{b(2, 3, 0, 1), b(5, 6, 0, 1)}, b(0, 9, 2, 1), []ShareStateBatch{b(0, 9, 2, 1)}},
		{"after", []ShareStateBatch{b(0, 1, 2, 1)}, b(2, 3, 4, 5), []ShareStateBatch{b(0, 1, 2, 1), b(2, 3, 4, 5)}},
	}
	for _, tt := range tests {
		if got := overlay(tt.have, tt.nb); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPersistedShareState consumes a topic with a franz-go share consumer
// on real Kafka — accepting offsets 0-3, rejecting 4, releasing 5 — and
// reads Kafka's own record of it back from __share_group_state. On the
// embedded broker the state topic does not exist.
func TestPersistedShareState(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			f.send(f.producer(""), "0", "1", "2", "3", "4", "5")
			group := f.topic + "-share"
			setGroupConfig(t, f.client, group, "share.auto.offset.reset", "earliest")
			ctx := testCtx(t)
			c, err := kgo.NewClient(kgo.SeedBrokers(f.seeds...), kgo.ConsumeTopics(f.topic), kgo.ShareGroup(group))
			if err != nil {
				t.Fatal(err)
			}
			acked := 0
			for acked < 6 && ctx.Err() == nil {
				c.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
					switch r.Offset {
					case 4:
						r.Ack(kgo.AckReject)
					case 5:
						r.Ack(kgo.AckRelease)
					default:
						r.Ack(kgo.AckAccept)
					}
					acked++
				})
			}
			if err := c.FlushAcks(ctx); err != nil {
				t.Fatal(err)
			}
			c.Close()
			var got PersistedShareState
			err = wait.Until(ctx, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
				got, err = f.ins.PersistedShareState(ctx, group, f.topic, 0)
				return kind == "kfake" || got.StartOffset == 5 && len(got.Batches) > 0, err
			})
			if kind == "kfake" {
				if err != nil || got.Found {
					t.Fatalf("embedded broker: %+v, %v", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("persisted state: %+v, %v", got, err)
			}
			// Offset 5, released, is available again; the client may
			// have fetched it once more before it closed (count 2).
			if len(got.Batches) != 1 || got.Batches[0].FirstOffset != 5 || got.Batches[0].LastOffset != 5 ||
				got.Batches[0].DeliveryState != ShareStateAvailable || got.Batches[0].DeliveryCount < 1 {
				t.Errorf("batches %+v, want offset 5 available (state partition %d, %d records)", got.Batches, got.StatePartition, got.Records)
			}
			t.Logf("Kafka persisted: start offset %d, batches %+v, from %d records of partition %d", got.StartOffset, got.Batches, got.Records, got.StatePartition)
		})
	}
}

// setGroupConfig sets one config of a group (IncrementalAlterConfigs on
// resource type GROUP), as kafka-configs.sh --entity-type groups does.
func setGroupConfig(t *testing.T, cl *kgo.Client, group, key, value string) {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	r.ResourceName = group
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Value = key, kmsg.StringPtr(value)
	r.Configs = append(r.Configs, c)
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(testCtx(t), cl)
	if err == nil && len(resp.Resources) == 1 && resp.Resources[0].ErrorCode != 0 {
		err = fmt.Errorf("error code %d: %v", resp.Resources[0].ErrorCode, resp.Resources[0].ErrorMessage)
	}
	if err != nil {
		t.Fatalf("set %s=%s on group %s: %v", key, value, group, err)
	}
}

// TestSettle: runs written below a start offset that later moved past
// them stay as Settled, the ones above stay Batches.
func TestSettle(t *testing.T) {
	t.Parallel()
	ack := func(a, b int64) ShareStateBatch {
		return ShareStateBatch{FirstOffset: a, LastOffset: b, DeliveryState: ShareStateAcknowledged, DeliveryCount: 1}
	}
	arch := ShareStateBatch{FirstOffset: 7, LastOffset: 7, DeliveryState: ShareStateArchived, DeliveryCount: 1}
	s := PersistedShareState{StartOffset: 0, Batches: []ShareStateBatch{ack(0, 6), arch, ack(8, 9)}}
	s.settle()
	if len(s.Settled) != 0 || len(s.Batches) != 3 {
		t.Fatalf("start 0: settled %v, batches %v", s.Settled, s.Batches)
	}
	s.StartOffset = 8
	s.settle()
	if want := []ShareStateBatch{ack(0, 6), arch}; !slices.Equal(s.Settled, want) {
		t.Errorf("start 8: settled %v, want %v", s.Settled, want)
	}
	if want := []ShareStateBatch{ack(8, 9)}; !slices.Equal(s.Batches, want) {
		t.Errorf("start 8: batches %v, want %v", s.Batches, want)
	}
	s.StartOffset = 10 + MaxSettledShareOffsets
	s.settle()
	if len(s.Settled) != 0 {
		t.Errorf("settled %d offsets below the start offset: %v, want none", MaxSettledShareOffsets+1, s.Settled)
	}
}
