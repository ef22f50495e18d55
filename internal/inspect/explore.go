package inspect

import (
	"context"
	"errors"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Errors of the explorer's reads, besides those of ReadLog. Errors wrap
// them (test with errors.Is).
var (
	// ErrInvalidRange reports an offset range, a bucket count or a
	// timestamp that cannot be read: from after to, a negative timestamp,
	// more buckets than MaxBuckets.
	ErrInvalidRange = errors.New("invalid offset range")
	// ErrInvalidQuery reports a search that cannot run: an empty or
	// oversized query, an unknown field to search in or match mode, a
	// JSON path that does not parse, or an unknown kind to jump to.
	ErrInvalidQuery = errors.New("invalid search query")
)

// offsetRange resolves a requested [from, to) against a partition's
// pointers: a negative from is the log start offset, a negative to the high
// watermark, and to is clamped to the high watermark. A from past the high
// watermark gives an empty range at from. from after to (both given) is
// ErrInvalidRange.
func offsetRange(ptrs Pointers, from, to int64) (int64, int64, error) {
	if from >= 0 && to >= 0 && from > to {
		return 0, 0, problem.Wrap(ErrInvalidRange, problem.Invalid, "error.rangeReversed", "from", strconv.FormatInt(from, 10), "to", strconv.FormatInt(to, 10))
	}
	if from < 0 {
		from = ptrs.LogStartOffset
	}
	if to < 0 || to > ptrs.HighWatermark {
		to = ptrs.HighWatermark
	}
	return from, max(from, to), nil
}

// locateRange is locatePointers, then the requested [from, to) resolved
// against the pointers (offsetRange): the start of every range scan.
func (i *Inspector) locateRange(ctx context.Context, topic string, partition int32, from, to int64) (ref partitionRef, ptrs Pointers, lo, hi int64, err error) {
	if ref, ptrs, err = i.locatePointers(ctx, topic, partition); err != nil {
		return ref, ptrs, 0, 0, err
	}
	lo, hi, err = offsetRange(ptrs, from, to)
	return ref, ptrs, lo, hi, err
}

// bounded is v, or def when v is not positive, at most max: a request's
// budget or limit.
func bounded[T int | int32 | int64](v, def, max T) T {
	if v <= 0 {
		v = def
	}
	return min(v, max)
}
