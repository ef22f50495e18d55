package cluster

import (
	"context"
	"time"
)

// sleepCtx waits ms milliseconds or until ctx ends.
func sleepCtx(ctx context.Context, ms int) error {
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
