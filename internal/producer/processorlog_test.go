package producer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// TestProcessorLogKeys: every line of a processor run comes with its
// catalogue sentence; the English sentence filled in is the line itself
// (the seed's shape, which the API keeps), the Korean one exists and is
// filled.
func TestProcessorLogKeys(t *testing.T) {
	t.Parallel()
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, topic := range []string{"orders", "order-totals", "order-totals-tx", "lost"} {
		if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := producer.New(producer.Connection{Opts: c.ClientOpts()}).Produce(ctx, producer.Request{Topic: "orders", Values: producer.Values(producer.SeedOrders()...)})
	if err != nil || out.Results[2].Error != nil {
		t.Fatalf("seed orders: %v %+v", err, out)
	}
	p := producer.NewProcessor(producer.Connection{Opts: c.ClientOpts()})
	runs := []producer.RunConfig{
		{Mode: producer.Plain, Input: "orders", Output: "order-totals", Group: "g-plain", CrashAt: "O-2"},
		{Mode: producer.Plain, Input: "orders", Output: "order-totals", Group: "g-plain"},
		{Mode: producer.Plain, Input: "orders", Output: "order-totals", Group: "g-plain"}, // nothing left
		{Mode: producer.Transactional, Input: "orders", Output: "order-totals-tx", Group: "g-tx", TransactionalID: "app", CrashAt: "O-2"},
		{Mode: producer.AtMostOnce, Input: "orders", Output: "lost", Group: "g-amo", CrashAt: "O-1"},
	}
	seen := map[string]bool{}
	for _, cfg := range runs {
		res, err := p.Run(ctx, cfg)
		if err != nil {
			t.Fatalf("run %+v: %v", cfg, err)
		}
		if len(res.LogKeys) != len(res.Log) {
			t.Fatalf("run %+v: %d lines, %d keys", cfg, len(res.Log), len(res.LogKeys))
		}
		for i, line := range res.Log {
			k := res.LogKeys[i]
			seen[k.Key] = true
			if got := catalog.Text(catalog.English, k.Key, k.Args); got != line {
				t.Errorf("en.json's %q filled in is\n%q, the log line is\n%q", k.Key, got, line)
			}
			if ko := catalog.Text(catalog.Korean, k.Key, k.Args); ko == "" || strings.Contains(ko, "{") || ko == line {
				t.Errorf("ko.json's %q filled in is %q", k.Key, ko)
			}
		}
	}
	for _, key := range []string{"processor.log.processed", "processor.log.crashPlain", "processor.log.crashTx", "processor.log.crashAtMostOnce", "processor.log.nothing"} {
		if !seen[key] {
			t.Errorf("no run printed %s", key)
		}
	}
}
