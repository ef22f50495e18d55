// Package wait is how Offset Lab waits on Kafka, in one place: Retry
// repeats a request that failed with an error Kafka marks retriable (such
// as COORDINATOR_NOT_AVAILABLE while a fresh cluster creates
// __consumer_offsets, or COORDINATOR_LOAD_IN_PROGRESS after a restart),
// and Until polls a condition — the ISR refilled, a transaction's markers
// written — until it holds. Neither sleeps past its context: the caller
// states how long it is willing to wait with context.WithTimeout, and the
// context's error says that the wait ran out. Listen binds a port, waiting
// briefly for one a killed server still holds.
package wait

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// RetryBudget is how long Retry keeps retrying when ctx allows longer.
const RetryBudget = 15 * time.Second

// Retry calls fn until it returns nil or an error that is not a retriable
// Kafka error, backing off from 50 ms to 1 s between tries, for at most
// RetryBudget or until ctx ends. It returns fn's last error.
func Retry(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(RetryBudget)
	backoff := 50 * time.Millisecond
	for {
		err := fn()
		var ke *kerr.Error
		if err == nil || !errors.As(err, &ke) || !ke.Retriable || time.Now().After(deadline) {
			return err
		}
		if Sleep(ctx, backoff) != nil {
			return err
		}
		backoff = min(2*backoff, time.Second)
	}
}

// Until calls cond every interval until it reports done or fails, or ctx
// ends. It returns cond's error, or ctx's error wrapped with how long it
// waited.
func Until(ctx context.Context, interval time.Duration, cond func(context.Context) (done bool, err error)) error {
	start := time.Now()
	for {
		done, err := cond(ctx)
		if err != nil || done {
			return err
		}
		if err := Sleep(ctx, interval); err != nil {
			return fmt.Errorf("gave up after %s: %w", time.Since(start).Round(100*time.Millisecond), err)
		}
	}
}

// Sleep waits d or until ctx ends, and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
