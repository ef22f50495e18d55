package inspect

import (
	"context"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// TimestampOffset is the answer to a seek by timestamp.
type TimestampOffset struct {
	// Offset is the first offset whose record timestamp is at or after
	// the requested one, or the high watermark when no record is that
	// late (where a consumer seeking to the timestamp would wait).
	Offset int64 `json:"offset"`
	// Timestamp is that record's timestamp in milliseconds since the
	// epoch, as the broker reported it, or -1 when no record is that
	// late.
	Timestamp int64 `json:"timestamp"`
}

// OffsetForTimestamp asks the partition leader (ListOffsets with a
// timestamp, read_uncommitted, as a consumer's offsetsForTimes does) for
// the first offset whose record timestamp is at or after timestamp
// (milliseconds since the epoch). The broker answers from its time index;
// the offset may be that of a control record, or of an aborted one, as
// Kafka's own answer may. When no record is that late the offset is the
// high watermark and the timestamp -1.
//
// Cost: one metadata request and one or two ListOffsets. A negative
// timestamp (Kafka's special values -1 latest, -2 earliest, …) is
// ErrInvalidRange: ask for those with Pointers.
func (i *Inspector) OffsetForTimestamp(ctx context.Context, topic string, partition int32, timestamp int64) (TimestampOffset, error) {
	if timestamp < 0 {
		return TimestampOffset{}, problem.Wrap(ErrInvalidRange, problem.Invalid, "error.timestampNegative", "timestamp", strconv.FormatInt(timestamp, 10))
	}
	ref, err := i.locate(ctx, topic, partition)
	if err != nil {
		return TimestampOffset{}, err
	}
	sp, err := i.listOffsetPartition(ctx, &ref, timestamp, 0)
	if err != nil {
		return TimestampOffset{}, err
	}
	if sp.Offset >= 0 {
		return TimestampOffset{Offset: sp.Offset, Timestamp: sp.Timestamp}, nil
	}
	hw, err := i.listOffset(ctx, &ref, -1, 0)
	if err != nil {
		return TimestampOffset{}, err
	}
	return TimestampOffset{Offset: hw, Timestamp: -1}, nil
}
