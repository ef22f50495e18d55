package cluster

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSharedSnapshotOneReadAtATime: a caller gets a read that started
// after it asked, and one read runs at a time: eight callers arriving
// while a read is under way wait for it and then share one more read,
// rather than making eight. The caller that started the first read gives
// up meanwhile, which does not cut that read short.
func TestSharedSnapshotOneReadAtATime(t *testing.T) {
	t.Parallel()
	var s sharedSnapshot[groupOffsetsByPartition]
	var reads, running atomic.Int32
	release := make(chan struct{})
	read := func(ctx context.Context) (groupOffsetsByPartition, error) {
		n := reads.Add(1)
		if running.Add(1) != 1 {
			t.Error("two reads ran at once")
		}
		defer running.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return groupOffsetsByPartition{{"orders", 0}: {{Group: "g", Committed: int64(n)}}}, nil
	}
	waitReads := func(n int32) {
		for reads.Load() < n {
			time.Sleep(time.Millisecond)
		}
	}

	impatient, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := s.get(impatient, read); first <- err }()
	waitReads(1)
	var wg sync.WaitGroup
	results := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := s.get(context.Background(), read)
			if err == nil && v[topicPartition{"orders", 0}][0].Committed != 2 {
				err = errors.New("answered with the read under way when it asked, not a later one")
			}
			results <- err
		}()
	}
	time.Sleep(20 * time.Millisecond) // let them queue behind the first read
	cancel()
	release <- struct{}{} // the first read ends
	if err := <-first; err != nil {
		t.Errorf("the caller who started the first read got %v; its read runs apart from its context", err)
	}
	waitReads(2)
	release <- struct{}{} // the second, shared read ends
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Errorf("a waiting caller: %v", err)
		}
	}
	if n := reads.Load(); n != 2 {
		t.Fatalf("nine callers made %d reads, want 2", n)
	}
	go func() { waitReads(3); release <- struct{}{} }()
	if v, err := s.get(context.Background(), read); err != nil || v[topicPartition{"orders", 0}][0].Committed != 3 {
		t.Errorf("a caller after the reads: %v %v; want a new read", v, err)
	}
}
