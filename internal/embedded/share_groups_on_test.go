package embedded

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestShareGroupsOnOneGroupPerRequest: the share lanes' read
// (cluster.ShareGroupsOn) names one share group per
// DescribeShareGroupOffsets request. Kafka 4.3.1 answered a request
// naming several share groups in 2 to 6 s now and then, one group in a
// few milliseconds, and every lesson step waits for its partition's poll,
// this read included: lessons on real Kafka took a minute each.
func TestShareGroupsOnOneGroupPerRequest(t *testing.T) {
	t.Parallel()
	c, b, err := start(Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const topic = "jobs"
	if _, err := c.Admin().CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	p, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.ProduceSync(ctx, kgo.StringRecord("job-1")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	groups := []string{"billing", "emails", "search"}
	for _, g := range groups {
		if err := c.SetGroupConfig(ctx, g, "share.auto.offset.reset", "earliest"); err != nil {
			t.Fatal(err)
		}
		w, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.ConsumeTopics(topic), kgo.ShareGroup(g))
		if err != nil {
			t.Fatal(err)
		}
		for ctx.Err() == nil && len(w.PollFetches(ctx).Records()) == 0 {
		}
		w.Close()
		if ctx.Err() != nil {
			t.Fatalf("share group %s received nothing: %v", g, ctx.Err())
		}
	}

	var mu sync.Mutex
	var named []int
	b.fake.ControlKey(int16(kmsg.DescribeShareGroupOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		b.fake.KeepControl()
		mu.Lock()
		named = append(named, len(req.(*kmsg.DescribeShareGroupOffsetsRequest).Groups))
		mu.Unlock()
		return nil, nil, false
	})
	on, err := c.ShareGroupsOn(ctx, topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(on, groups) {
		t.Errorf("share groups on %s-0: %v, want %v", topic, on, groups)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(named) != len(groups) || slices.Max(named) != 1 {
		t.Errorf("DescribeShareGroupOffsets requests named %v groups each, want one group in each of %d", named, len(groups))
	}
}
