package lab

import (
	"context"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// AlterTopicConfigs sets topic configurations (cleanup.policy=compact,
// retention.ms, ...), checked as CreateTopic checks them (see
// cluster.AlterTopicConfigs).
func (l *Lab) AlterTopicConfigs(ctx context.Context, topic string, configs map[string]string) error {
	if err := l.writes(topic); err != nil {
		return err
	}
	err := l.cluster.AlterTopicConfigs(ctx, topic, configs)
	return l.notAllowed(err, "ALTER_CONFIGS", "topic", topic)
}

// DeleteRecords deletes a partition's records below offset before (see
// cluster.DeleteRecords) and returns the new log start offset. The live
// story tells the log start moving, as it does when retention moves it.
func (l *Lab) DeleteRecords(ctx context.Context, topic string, partition int32, before int64) (int64, error) {
	if err := l.writes(topic); err != nil {
		return 0, err
	}
	if _, err := l.partition(ctx, topic, partition); err != nil {
		return 0, l.notAllowed(err, "DESCRIBE", "topic", topic)
	}
	l.record(ctx, topic, []int32{partition}) // the history sees the log start move
	start, err := l.cluster.DeleteRecords(ctx, topic, partition, before)
	if err == nil {
		l.record(ctx, topic, []int32{partition})
	}
	return start, l.notAllowed(err, "DELETE", "topic", topic)
}

// Offset reset policies of a consumer (auto.offset.reset).
const (
	ResetEarliest = "earliest"
	ResetLatest   = "latest"
)

// GroupRead is a consumer of a group starting on one partition: it
// resumes at the group's committed offset and applies auto.offset.reset
// when there is none or the broker answers OFFSET_OUT_OF_RANGE.
type GroupRead struct {
	Topic     string
	Partition int32
	Group     string
	Reset     string // ResetEarliest or ResetLatest
	// Max is how many records to read (0: up to the high watermark).
	Max int
}

// GroupReadOutcome is what that consumer did.
type GroupReadOutcome struct {
	// Committed is the group's offset when it started, -1 when none.
	Committed int64
	// Pointers are the partition's when it started.
	Pointers inspect.Pointers
	// OutOfRange: the committed offset is below the log start offset (or
	// past the high watermark), which a fetch answers with
	// OFFSET_OUT_OF_RANGE; Reset then decided where to start.
	OutOfRange bool
	// Start is where it read from; Lost counts the offsets in
	// [Committed, Start) it skipped.
	Start int64
	Lost  int64
	// Records are what it received (read_uncommitted, the Java client's
	// default); Next is the offset it committed afterwards.
	Records []inspect.Record
	Next    int64
}

// ReadAsGroup runs that consumer once: the group's committed offset,
// the reset where Kafka's consumer would reset (no committed offset, or
// one outside [log start, high watermark], where the broker answers a
// fetch with OFFSET_OUT_OF_RANGE), the records from there, and the offset
// after them committed for the group. It narrates a reset that skipped
// offsets.
func (l *Lab) ReadAsGroup(ctx context.Context, req GroupRead) (*GroupReadOutcome, error) {
	if err := l.writes(req.Group); err != nil {
		return nil, err
	}
	if req.Reset != ResetEarliest && req.Reset != ResetLatest {
		return nil, problem.New(problem.Invalid, "error.offsetResetUnknown", "reset", req.Reset)
	}
	ptrs, err := l.Pointers(ctx, req.Topic, req.Partition)
	if err != nil {
		return nil, err
	}
	out := &GroupReadOutcome{Committed: -1, Pointers: ptrs}
	g, err := l.Group(ctx, req.Group)
	switch {
	case problem.Is(err, "error.unknownGroup"):
	case err != nil:
		return nil, err
	default:
		for _, o := range g.Offsets {
			if o.Topic == req.Topic && o.Partition == req.Partition && o.Committed >= 0 {
				out.Committed = o.Committed
			}
		}
	}
	out.Start = out.Committed
	out.OutOfRange = out.Committed >= 0 && (out.Committed < ptrs.LogStartOffset || out.Committed > ptrs.HighWatermark)
	if out.Committed < 0 || out.OutOfRange {
		out.Start = ptrs.LogStartOffset
		if req.Reset == ResetLatest {
			out.Start = ptrs.HighWatermark
		}
	}
	if out.Committed >= 0 && out.Start > out.Committed {
		out.Lost = out.Start - out.Committed
	}
	limit := req.Max
	if limit <= 0 {
		limit = int(min(max(ptrs.HighWatermark-out.Start, 1), inspect.MaxLimit))
	}
	out.Records, out.Next = []inspect.Record{}, out.Start
	if out.Start < ptrs.HighWatermark {
		recs, err := l.Records(ctx, req.Topic, req.Partition, inspect.ReadUncommitted, out.Start, limit)
		if err != nil {
			return nil, err
		}
		out.Records = recs
		out.Next = ptrs.HighWatermark
		if req.Max > 0 && len(recs) == req.Max {
			out.Next = recs[len(recs)-1].Offset + 1
		}
	}
	if err := l.cluster.CommitGroupOffset(ctx, req.Group, req.Topic, req.Partition, out.Next); err != nil {
		return nil, l.notAllowed(err, "READ", "group", req.Group)
	}
	if out.OutOfRange {
		l.narrateAt(live.EventWarning, req.Topic, req.Partition, -1, l.resetSentence(req, out))
	}
	return out, nil
}

// resetSentence tells what an OFFSET_OUT_OF_RANGE reset did.
func (l *Lab) resetSentence(req GroupRead, out *GroupReadOutcome) catalog.Message {
	return catalog.M("narration.offsetReset", "group", req.Group, "committed", strconv.FormatInt(out.Committed, 10),
		"logStart", strconv.FormatInt(out.Pointers.LogStartOffset, 10), "reset", req.Reset,
		"start", strconv.FormatInt(out.Start, 10), "lost", strconv.FormatInt(out.Lost, 10))
}
