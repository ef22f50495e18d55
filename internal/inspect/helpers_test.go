package inspect

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const testTopic = "t"

// env is one embedded broker with a topic "t" of one partition, a shared
// client and an Inspector on it.
type env struct {
	t       testing.TB
	cluster *kfake.Cluster
	client  *kgo.Client
	ins     *Inspector
	seeds   []string

	mu        sync.Mutex
	producers map[string]*kgo.Client
}

func newEnv(t testing.TB, opts ...kfake.Opt) *env {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(1, testTopic)}, opts...)...)
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	seeds := c.ListenAddrs()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(cl.Close)
	return &env{t: t, cluster: c, client: cl, ins: New(cl), seeds: seeds, producers: map[string]*kgo.Client{}}
}

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// producer returns the producer named name, creating it on first use.
// Names starting with "tx" are transactional with that transactional.id;
// "plain" is idempotent, "raw" has idempotence off (producer id -1).
func (e *env) producer(name string, extra ...kgo.Opt) *kgo.Client {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.producers[name]; ok {
		return p
	}
	opts := []kgo.Opt{kgo.SeedBrokers(e.seeds...), kgo.DefaultProduceTopic(testTopic)}
	switch {
	case len(name) >= 2 && name[:2] == "tx":
		opts = append(opts, kgo.TransactionalID(name))
	case name == "raw":
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	p, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		e.t.Fatalf("producer %s: %v", name, err)
	}
	e.t.Cleanup(p.Close)
	e.producers[name] = p
	return p
}

// step is one action of a scenario.
type step struct {
	producer string   // producer name, see env.producer
	values   []string // produced in one ProduceSync call
	begin    bool     // begin a transaction first
	commit   bool     // end the transaction by committing
	abort    bool     // end the transaction by aborting
}

func produce(p string, values ...string) step { return step{producer: p, values: values} }
func begin(p string, values ...string) step   { return step{producer: p, values: values, begin: true} }
func commit(p string) step                    { return step{producer: p, commit: true} }
func abort(p string) step                     { return step{producer: p, abort: true} }

func (e *env) run(steps ...step) {
	e.t.Helper()
	ctx := testCtx(e.t)
	for _, s := range steps {
		p := e.producer(s.producer)
		if s.begin {
			if err := p.BeginTransaction(); err != nil {
				e.t.Fatalf("begin %s: %v", s.producer, err)
			}
		}
		if len(s.values) > 0 {
			recs := make([]*kgo.Record, len(s.values))
			for i, v := range s.values {
				recs[i] = &kgo.Record{Key: []byte("k"), Value: []byte(v)}
			}
			if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				e.t.Fatalf("produce %s %v: %v", s.producer, s.values, err)
			}
		}
		if s.commit || s.abort {
			if err := p.EndTransaction(ctx, kgo.TransactionEndTry(s.commit)); err != nil {
				e.t.Fatalf("end transaction %s: %v", s.producer, err)
			}
		}
	}
}

// readAll reads the whole partition with ReadLog.
func (e *env) readAll() *Log {
	e.t.Helper()
	log, err := e.ins.ReadLog(testCtx(e.t), testTopic, 0, -1, MaxLimit)
	if err != nil {
		e.t.Fatalf("ReadLog: %v", err)
	}
	return log
}

// consume returns the offsets a plain franz-go consumer at iso receives
// from from up to the current end (LSO or HW). It observes the consumer's
// fetch requests at the broker (kfake's control hook) to learn its exact
// position, so it stops neither early nor by timeout: this is the test
// oracle, independent of Inspector.ReadRecords.
func (e *env) consume(iso Isolation, from int64) []int64 {
	e.t.Helper()
	ctx := testCtx(e.t)
	ptrs, err := e.ins.Pointers(ctx, testTopic, 0)
	if err != nil {
		e.t.Fatalf("pointers: %v", err)
	}
	end, level := ptrs.HighWatermark, kgo.ReadUncommitted()
	if iso == ReadCommitted {
		end, level = ptrs.LastStableOffset, kgo.ReadCommitted()
	}
	from = max(from, ptrs.LogStartOffset)
	got := []int64{}
	if from >= end {
		return got
	}
	rack := fmt.Sprintf("oracle-%d", time.Now().UnixNano())
	var position atomic.Int64
	position.Store(from)
	e.cluster.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		f := req.(*kmsg.FetchRequest)
		if f.Rack != rack {
			return nil, nil, false
		}
		for _, t := range f.Topics {
			for _, p := range t.Partitions {
				if p.Partition == 0 {
					position.Store(p.FetchOffset)
				}
			}
		}
		return nil, nil, false
	})
	defer e.cluster.DropControl()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(e.seeds...),
		kgo.Rack(rack),
		kgo.FetchIsolationLevel(level),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{testTopic: {0: kgo.NewOffset().At(from)}}),
	)
	if err != nil {
		e.t.Fatalf("consumer: %v", err)
	}
	defer cl.Close()
	for position.Load() < end {
		probe, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		fs := cl.PollFetches(probe)
		cancel()
		if ctx.Err() != nil {
			e.t.Fatalf("oracle consumer stuck at %d, end %d", position.Load(), end)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset < end {
				got = append(got, r.Offset)
			}
		})
	}
	return got
}

// visible lists the offsets of log a consumer at iso receives per ReadLog.
func visible(log *Log, iso Isolation) []int64 {
	got := []int64{}
	for _, e := range log.Entries {
		if (iso == ReadCommitted && e.ReadCommitted) || (iso == ReadUncommitted && e.ReadUncommitted) {
			got = append(got, e.Offset)
		}
	}
	return got
}

func recordOffsets(rs []Record) []int64 {
	got := []int64{}
	for _, r := range rs {
		got = append(got, r.Offset)
	}
	return got
}

func equalOffsets(a, b []int64) bool { return slices.Equal(a, b) }
