package lab_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// TestShareWindowCost: a 200-offset window of a share group's state on a
// partition of 100,000 records with tens of thousands in flight costs
// about what the same log window costs (measured in the same run, the
// ratio printed), and holds 200 records whatever the number in flight.
func TestShareWindowCost(t *testing.T) {
	if testing.Short() {
		t.Skip("produces 100,000 records")
	}
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c})
	t.Cleanup(l.Close)
	ctx := testContext(t)
	const topic, group, records = "queue", "workers", 100_000
	createTopic(t, ctx, l, topic)
	if _, err := c.Admin().AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Name: "group.share.partition.max.record.locks", Value: kmsg.StringPtr("200000")}}); err != nil {
		t.Fatal(err)
	}
	p, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	batch := make([]*kgo.Record, 0, 1000)
	for i := range records {
		batch = append(batch, kgo.StringRecord("job-"+strconv.Itoa(i)))
		if len(batch) == cap(batch) {
			if err := p.ProduceSync(ctx, batch...).FirstErr(); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
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
	// One poll of a worker that acknowledges nothing: every record it
	// fetched stays acquired (a second poll would accept them).
	w, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.ConsumeTopics(topic), kgo.ShareGroup(group),
		kgo.ShareMaxRecords(records), kgo.FetchMaxBytes(64<<20), kgo.FetchMaxPartitionBytes(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n := len(w.PollFetches(ctx).Records()); n == 0 {
		t.Fatal("the worker fetched nothing")
	}
	var inFlight int64
	err = wait.Until(ctx, 50*time.Millisecond, func(context.Context) (bool, error) {
		s, ok := c.EmbeddedSharePartition(group, topic, 0, 0, 0)
		inFlight = s.EndOffset - s.StartOffset
		return ok && inFlight >= 10_000, nil
	})
	if err != nil {
		t.Fatalf("in flight: %d: %v", inFlight, err)
	}
	from := inFlight / 2
	measure := func(read func() int) (time.Duration, int) {
		var took []time.Duration
		n := 0
		for range 40 {
			begin := time.Now()
			n = read()
			took = append(took, time.Since(begin))
		}
		slices.Sort(took)
		return took[len(took)/2], n
	}
	shareP50, shareN := measure(func() int {
		s, err := l.SharePartition(ctx, topic, 0, group, from, 200)
		if err != nil {
			t.Fatal(err)
		}
		return len(s.Records)
	})
	logP50, logN := measure(func() int {
		lg, err := l.Log(ctx, topic, 0, from, 200)
		if err != nil {
			t.Fatal(err)
		}
		return len(lg.Entries)
	})
	ratio := float64(shareP50) / float64(logP50)
	t.Logf("%d records, %d in flight: share window of %d p50 %v, log window of %d p50 %v, ratio %.2f", records, inFlight, shareN, shareP50, logN, logP50, ratio)
	if shareN != 200 || logN != 200 {
		t.Errorf("windows of %d and %d offsets, want 200", shareN, logN)
	}
	if ratio > 3 {
		t.Errorf("a share window costs %.2f log windows, want at most 3", ratio)
	}
}

// TestShareWorkerLabel: a lesson's run names its share consumer apart
// from other runs' ("lr1-w1") and labels it as its story does ("w1"): the
// share lane names the records it holds by the label; a worker without
// one by its name.
func TestShareWorkerLabel(t *testing.T) {
	t.Parallel()
	l := newLab(t, false)
	ctx := testContext(t)
	const topic = "jobs"
	createTopic(t, ctx, l, topic)
	if _, err := l.Produce(ctx, producer.Request{Topic: topic, Values: producer.Values("job 0", "job 1")}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, label, group, want string }{
		{"lr1-w1", "w1", "workers", "w1"},
		{"w9", "", "others", "w9"},
	} {
		if _, err := l.StartShareWorker(ctx, lab.ShareWorkerRequest{Name: tt.name, Label: tt.label, Group: tt.group, Topic: topic, FromStart: true, MaxRecords: 1}); err != nil {
			t.Fatal(err)
		}
		var held lab.ShareWorkerState
		err := wait.Until(ctx, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
			var err error
			held, err = l.PollShareWorker(ctx, tt.name)
			return len(held.Held) > 0, err
		})
		if err != nil {
			t.Fatalf("%s held nothing: %v", tt.name, err)
		}
		sp, err := l.SharePartition(ctx, topic, 0, tt.group, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range sp.Records {
			if r.State == "acquired" && r.Worker != tt.want {
				t.Errorf("worker %s (label %q): offset %d held by %q on the lane, want %q", tt.name, tt.label, r.Offset, r.Worker, tt.want)
			}
		}
		if held.Label != tt.want {
			t.Errorf("worker %s: state's label %q, want %q", tt.name, held.Label, tt.want)
		}
	}
}
