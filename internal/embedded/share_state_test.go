package embedded

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestArchivedWhy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		count, limit int32
		want         string
	}{
		{0, 5, "notDelivered"},
		{1, 5, "rejected"},
		{4, 5, "rejected"},
		{5, 5, "deliveryLimit"},
		{6, 5, "deliveryLimit"},
	}
	for _, tt := range tests {
		if got := cluster.ArchivedWhy(tt.count, tt.limit); got != tt.want {
			t.Errorf("ArchivedWhy(%d, %d) = %s, want %s", tt.count, tt.limit, got, tt.want)
		}
	}
}

// TestEmbeddedSharePartition reads the embedded broker's share state after
// a share consumer accepted offset 0, rejected 1, released 2 and held 3
// and 4, then windows of it, and the final states of 0 and 1, below the
// start offset.
func TestEmbeddedSharePartition(t *testing.T) {
	t.Parallel()
	c := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const topic, group = "jobs", "workers"
	if _, err := c.Admin().CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	p, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range 5 {
		if err := p.ProduceSync(ctx, kgo.StringRecord(strconv.Itoa(i))).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	setEarliest(t, ctx, c, group)
	w, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.ConsumeTopics(topic), kgo.ShareGroup(group),
		kgo.ShareMaxRecords(5), kgo.ShareMaxRecordsStrict())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var recs []*kgo.Record
	for len(recs) < 5 && ctx.Err() == nil {
		recs = append(recs, w.PollFetches(ctx).Records()...)
	}
	for _, r := range recs {
		switch r.Offset {
		case 0:
			r.Ack(kgo.AckAccept)
		case 1:
			r.Ack(kgo.AckReject)
		case 2:
			r.Ack(kgo.AckRelease)
		}
	}
	if err := w.FlushAcks(ctx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		from  int64
		limit int
		want  []string
	}{
		{0, 200, []string{"2:available/1", "3:acquired/1", "4:acquired/1"}},
		{3, 1, []string{"3:acquired/1"}},
		{0, 3, []string{"2:available/1"}},
		{5, 200, nil},
	}
	for _, tt := range tests {
		s, ok := c.EmbeddedSharePartition(group, topic, 0, tt.from, tt.limit)
		if !ok || s.StartOffset != 2 || s.EndOffset != 5 || s.HighWatermark != 5 {
			t.Fatalf("from %d: %+v, %v; want SPSO 2, SPEO 5", tt.from, s, ok)
		}
		var got []string
		for _, r := range s.Records {
			got = append(got, fmt.Sprintf("%d:%s/%d", r.Offset, r.State, r.DeliveryCount))
			if r.State == "acquired" && (r.Member == "" || r.LockExpiresAt == nil) {
				t.Errorf("offset %d acquired by %q until %v", r.Offset, r.Member, r.LockExpiresAt)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("from %d limit %d: %v, want %v", tt.from, tt.limit, got, tt.want)
		}
	}
	s, _ := c.EmbeddedSharePartition(group, topic, 0, 0, 200)
	var settled []string
	for _, r := range s.Settled {
		settled = append(settled, fmt.Sprintf("%d:%s/%d%s", r.Offset, r.State, r.DeliveryCount, r.Why))
	}
	if want := []string{"0:acknowledged/1", "1:archived/1rejected"}; !slices.Equal(settled, want) {
		t.Errorf("settled below the start offset: %v, want %v", settled, want)
	}
	if _, ok := c.EmbeddedSharePartition("nobody", topic, 0, 0, 10); ok {
		t.Error("a group with no state has a share-partition")
	}
}

func setEarliest(t *testing.T, ctx context.Context, c *cluster.Cluster, group string) {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = "share.auto.offset.reset", kmsg.StringPtr("earliest")
	r.Configs = append(r.Configs, cfg)
	req.Resources = append(req.Resources, r)
	if _, err := req.RequestWith(ctx, c.Client()); err != nil {
		t.Fatal(err)
	}
}
