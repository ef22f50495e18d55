package live

import (
	"context"
	"encoding/json"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// ShareSource reads the share groups' delivery state on a partition
// (KIP-932), for the share lanes under the log; the lab's feed source is
// one. A Source that is not one streams no share lanes.
type ShareSource interface {
	// ShareLanes returns, for each share group (at most a few) that has
	// state on the partition, its window [from, from+limit).
	ShareLanes(ctx context.Context, topic string, partition int32, from int64, limit int) ([]cluster.SharePartition, error)
}

// pollShares reads the share lanes of the tail from (polled with the
// groups) and reports whether they changed since the last poll.
func (f *feed) pollShares(ctx context.Context, from int64) ([]cluster.SharePartition, bool) {
	src, ok := f.hub.src.(ShareSource)
	if !ok {
		return nil, false
	}
	shares, err := src.ShareLanes(ctx, f.key.topic, f.key.partition, max(from, 0), f.hub.cfg.TailEntries)
	if err != nil {
		return nil, false
	}
	encoded, _ := json.Marshal(shares)
	f.mu.Lock()
	defer f.mu.Unlock()
	if string(encoded) == f.sharesJSON {
		return nil, false
	}
	f.sharesJSON = string(encoded)
	return shares, true
}
