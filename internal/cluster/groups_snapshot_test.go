package cluster

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSharedSnapshotOneReadForAll: callers arriving while a read is under
// way wait for it rather than starting their own; within groupSnapshotAge
// of its start the read answers without another; after it, the next caller
// reads again. A caller that gives up does not cut the read short for the
// others.
func TestSharedSnapshotOneReadForAll(t *testing.T) {
	t.Parallel()
	var s sharedSnapshot
	var reads atomic.Int32
	release := make(chan struct{})
	read := func(ctx context.Context) (groupOffsetsByPartition, error) {
		reads.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return groupOffsetsByPartition{{"orders", 0}: {{Group: "g", Committed: 3}}}, nil
	}

	// The first caller gives up while its read is under way.
	impatient, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := s.get(impatient, read); first <- err }()
	for reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	results := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := s.get(context.Background(), read)
			if err == nil && len(v[topicPartition{"orders", 0}]) != 1 {
				err = errors.New("the read's offsets are missing")
			}
			results <- err
		}()
	}
	time.Sleep(20 * time.Millisecond) // let them queue behind the read
	cancel()
	close(release)
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Errorf("a waiting caller: %v", err)
		}
	}
	if err := <-first; err != nil {
		t.Errorf("the caller who started the read got %v; its read runs apart from its context", err)
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("nine callers made %d reads, want 1", n)
	}
	if _, err := s.get(context.Background(), read); err != nil || reads.Load() != 1 {
		t.Errorf("within groupSnapshotAge: %v, %d reads; want the snapshot reused", err, reads.Load())
	}
	s.mu.Lock()
	s.started = time.Now().Add(-groupSnapshotAge)
	s.mu.Unlock()
	if _, err := s.get(context.Background(), read); err != nil || reads.Load() != 2 {
		t.Errorf("past groupSnapshotAge: %v, %d reads; want a new read", err, reads.Load())
	}
}
