// Package kretry retries Kafka requests that failed with an error Kafka
// marks retriable, such as COORDINATOR_NOT_AVAILABLE while a fresh
// cluster creates __consumer_offsets, or COORDINATOR_LOAD_IN_PROGRESS
// after a broker restart. kgo retries these inside one request; admin
// helpers that surface per-group error codes leave them to the caller.
package kretry

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Budget is how long Do keeps retrying when ctx allows longer.
const Budget = 15 * time.Second

// Do calls fn until it returns nil or an error that is not a retriable
// Kafka error, backing off between tries, for at most Budget or ctx.
// It returns fn's last error.
func Do(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(Budget)
	backoff := 50 * time.Millisecond
	for {
		err := fn()
		var ke *kerr.Error
		if err == nil || !errors.As(err, &ke) || !ke.Retriable || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}
