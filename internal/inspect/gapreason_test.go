package inspect

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/wait"
)

// compactedPartition fills the fixture's compacted topic with keyed
// batches and waits until the cleaner has run: on kfake by asking it, on
// real Kafka by waiting (up to two minutes, the cleaner wakes every
// log.cleaner.backoff.ms, 15 s by default) until offset 3 is a gap.
//
//	batch 0-2: a=1 b=1 x=1   batch 3-4: b=2 c=1   5: b=3   6: a=2   7: d=1 (active)
//
// The cleaner keeps the newest value of every key: 2 (x), 4 (c), 5 (b),
// 6 (a), 7 (d). Offsets 0, 1 and 3 go, inside their batches' ranges.
func compactedPartition(t *testing.T, f *fixture) {
	t.Helper()
	p := f.producer("", kgo.ProducerLinger(50*time.Millisecond))
	batches := [][][2]string{
		{{"a", "1"}, {"b", "1"}, {"x", "1"}},
		{{"b", "2"}, {"c", "1"}},
		{{"b", "3"}},
		{{"a", "2"}},
		{{"d", "1"}},
	}
	for _, batch := range batches {
		var recs []*kgo.Record
		for _, kv := range batch {
			recs = append(recs, &kgo.Record{Key: []byte(kv[0]), Value: []byte(kv[1])})
		}
		if err := p.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if f.fake != nil {
		f.fake.Compact()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A pass may run between two of the batches above (the cleaner ticks
	// every second, and a loaded machine is slow to write them), removing
	// offset 3 before offset 0's key is written again: wait for all three.
	err := wait.Until(ctx, 500*time.Millisecond, func(ctx context.Context) (bool, error) {
		l, err := f.ins.ReadLog(ctx, f.topic, 0, 0, 4)
		if err != nil || len(l.Entries) < 4 {
			return false, nil
		}
		return l.Entries[0].Kind == KindGap && l.Entries[1].Kind == KindGap && l.Entries[3].Kind == KindGap, nil
	})
	if err != nil {
		t.Fatalf("the cleaner did not run: %v", err)
	}
}

// compactConfigs make the cleaner take every segment but the active one
// at its next pass: a segment a batch (segment.ms=1 rolls at each
// append), any dirty ratio, tombstones and markers dropped at once.
var compactConfigs = map[string]string{
	"cleanup.policy": "compact", "segment.ms": "1", "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0",
}

// TestGapReasonsOnACompactedPartition: the log API says "compacted" for
// the holes the cleaner left inside batches, the map counts them as
// gapsCompacted, and the jump finds them, on both brokers.
func TestGapReasonsOnACompactedPartition(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, compactConfigs)
			compactedPartition(t, f)
			l, err := f.ins.ReadLog(testCtx(t), f.topic, 0, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			checkEntries(t, l, 0, []want{gapCompacted, gapCompacted, dataNone, gapCompacted, dataNone, dataNone, dataNone, dataNone})
			if l.LogStartOffset != 0 {
				t.Errorf("log start: got %d, want 0", l.LogStartOffset)
			}
			m, err := f.ins.MapPartition(testCtx(t), f.topic, 0, MapRequest{From: -1, To: -1, Buckets: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Total(); got.Gaps != 3 || got.GapsCompacted != 3 || got.GapsBeforeLogStart != 0 || got.GapsUnknown != 0 {
				t.Errorf("map: got %+v, want 3 gaps, all compacted", got)
			}
			jumps := []struct {
				kind JumpKind
				from int64
				want int64 // -1: none
			}{
				{JumpGapCompacted, 0, 0},
				{JumpGapCompacted, 2, 3},
				{JumpGapCompacted, 4, -1},
				{JumpGap, 2, 3},
				{JumpGapBeforeLogStart, 0, -1},
				{JumpGapUnknown, 0, -1},
			}
			for _, j := range jumps {
				jumpTo(t, f, j.kind, j.from, j.want)
			}
		})
	}
}

// TestGapReasonsOnATruncatedPartition: below the log start offset moved
// by DeleteRecords the gaps are "beforeLogStart", counted and found so.
func TestGapReasonsOnATruncatedPartition(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			p := f.producer("")
			for _, v := range []string{"a", "b", "c", "d", "e"} {
				f.send(p, v)
			}
			var offsets kadm.Offsets
			offsets.Add(kadm.Offset{Topic: f.topic, Partition: 0, At: 3})
			resp, err := kadm.NewClient(f.client).DeleteRecords(testCtx(t), offsets)
			if err == nil {
				err = resp.Error()
			}
			if err != nil {
				t.Fatal(err)
			}
			l, err := f.ins.ReadLog(testCtx(t), f.topic, 0, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			checkEntries(t, l, 0, []want{gapDeleted, gapDeleted, gapDeleted, dataNone, dataNone})
			m, err := f.ins.MapPartition(testCtx(t), f.topic, 0, MapRequest{From: 0, To: -1, Buckets: 5})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Total(); got.Gaps != 3 || got.GapsBeforeLogStart != 3 || got.GapsCompacted != 0 || got.GapsUnknown != 0 {
				t.Errorf("map: got %+v, want 3 gaps, all before the log start", got)
			}
			if got := m.Buckets[0]; got.GapsBeforeLogStart != 1 || got.Gaps != 1 {
				t.Errorf("bucket 0: got %+v", got)
			}
			jumpTo(t, f, JumpGapBeforeLogStart, 0, 0)
			jumpTo(t, f, JumpGapBeforeLogStart, 3, -1)
			jumpTo(t, f, JumpGapCompacted, 0, -1)
			jumpTo(t, f, JumpGapUnknown, 0, -1)
		})
	}
}

// jumpTo checks the first offset of kind at or after from (-1: none).
func jumpTo(t *testing.T, f *fixture, kind JumpKind, from, want int64) {
	t.Helper()
	res, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: kind, From: from, To: -1})
	if err != nil {
		t.Fatalf("jump %s from %d: %v", kind, from, err)
	}
	got := int64(-1)
	if res.Offset != nil {
		got = *res.Offset
	}
	if got != want {
		t.Errorf("jump %s from %d: got %d, want %d", kind, from, got, want)
	}
}

// TestCompactionOfThePartitionsFirstRecord: when the cleaner removes a
// partition's first records, both brokers keep the log start offset (the
// offset is a "compacted" gap).
func TestCompactionOfThePartitionsFirstRecord(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, compactConfigs)
			p := f.producer("")
			for _, kv := range [][2]string{{"a", "1"}, {"a", "2"}, {"b", "1"}} {
				if err := p.ProduceSync(testCtx(t), &kgo.Record{Key: []byte(kv[0]), Value: []byte(kv[1])}).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			if f.fake != nil {
				f.fake.Compact()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var l *Log
			err := wait.Until(ctx, 500*time.Millisecond, func(ctx context.Context) (bool, error) {
				var err error
				l, err = f.ins.ReadLog(ctx, f.topic, 0, 0, 10)
				return err == nil && len(l.Entries) == 3 && l.Entries[0].Kind == KindGap, nil
			})
			if err != nil {
				t.Fatalf("the cleaner did not remove offset 0: %v", err)
			}
			if l.LogStartOffset != 0 {
				t.Errorf("log start: got %d, want 0", l.LogStartOffset)
			}
			checkEntries(t, l, 0, []want{gapCompacted, dataNone, dataNone})
		})
	}
}
