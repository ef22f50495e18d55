package embedded

import (
	"context"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/wait"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestEmbeddedShareGroupConfig checks that the embedded broker honours a
// share group's own share.record.lock.duration.ms and
// share.delivery.count.limit, within the broker's bounds as Kafka does:
// a worker holding a record stops polling, its 1 s lock expires (the
// broker's default is 30 s, past this test's deadline), a second worker
// receives the record with delivery count 2, releases it, and the record
// is archived at the group's limit of 2.
func TestEmbeddedShareGroupConfig(t *testing.T) {
	t.Parallel()
	c := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const topic, group = "poison", "workers"
	if _, err := c.Admin().CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	bounds := []struct {
		name, value string
		want        error
	}{
		{"share.record.lock.duration.ms", "999", kerr.InvalidConfig},
		{"share.record.lock.duration.ms", "60001", kerr.InvalidConfig},
		{"share.delivery.count.limit", "1", kerr.InvalidConfig},
		{"share.delivery.count.limit", "11", kerr.InvalidConfig},
		{"share.record.lock.duration.ms", "1000", nil},
		{"share.delivery.count.limit", "2", nil},
		{"share.auto.offset.reset", "earliest", nil},
	}
	for _, tt := range bounds {
		if err := alterGroupConfig(ctx, c, group, tt.name, tt.value); err != tt.want {
			t.Errorf("%s=%s: %v, want %v", tt.name, tt.value, err, tt.want)
		}
	}
	p, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.ProduceSync(ctx, kgo.StringRecord("poison")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	poll := func(w *kgo.Client) *kgo.Record {
		t.Helper()
		for ctx.Err() == nil {
			if recs := w.PollFetches(ctx).Records(); len(recs) > 0 {
				return recs[0]
			}
		}
		t.Fatal(ctx.Err())
		return nil
	}
	worker := func() *kgo.Client {
		t.Helper()
		w, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.ConsumeTopics(topic), kgo.ShareGroup(group),
			kgo.ShareMaxRecords(1), kgo.ShareMaxRecordsStrict())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
		return w
	}
	if r := poll(worker()); r.DeliveryCount() != 1 {
		t.Fatalf("first delivery count %d, want 1", r.DeliveryCount())
	}
	s, ok := c.EmbeddedSharePartition(group, topic, 0, 0, 10)
	if !ok || s.LockMillis != 1000 || s.DeliveryCountLimit != 2 {
		t.Fatalf("share-partition %+v: want the group's 1000 ms lock and limit 2", s)
	}
	// The first worker hangs; its lock expires.
	err = wait.Until(ctx, 50*time.Millisecond, func(context.Context) (bool, error) {
		s, ok := c.EmbeddedSharePartition(group, topic, 0, 0, 10)
		return ok && len(s.Records) == 1 && s.Records[0].State == "available", nil
	})
	if err != nil {
		t.Fatalf("the group's 1 s lock never expired: %v", err)
	}
	w2 := worker()
	r := poll(w2)
	if r.DeliveryCount() != 2 {
		t.Fatalf("redelivery count %d, want 2", r.DeliveryCount())
	}
	r.Ack(kgo.AckRelease)
	if err := w2.FlushAcks(ctx); err != nil {
		t.Fatal(err)
	}
	s, ok = c.EmbeddedSharePartition(group, topic, 0, 0, 10)
	if !ok || s.StartOffset != 1 {
		t.Fatalf("after the release at the limit: %+v, want the record archived and SPSO 1", s)
	}
}

// alterGroupConfig sets one group config and answers the resource's error.
func alterGroupConfig(ctx context.Context, c *cluster.Cluster, group, name, value string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = name, kmsg.StringPtr(value)
	r.Configs = append(r.Configs, cfg)
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, c.Client())
	if err != nil {
		return err
	}
	return kerr.ErrorForCode(resp.Resources[0].ErrorCode)
}
