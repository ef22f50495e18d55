package inspect

import (
	"context"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Reasons of a gap Entry: why no batch holds the offset.
//
// The rule, from what Kafka itself leaves behind:
//   - below the log start offset the records were deleted: retention
//     (retention.ms, retention.bytes), a DeleteRecords request
//     (kafka-delete-records.sh) — never the log cleaner;
//   - inside a batch's offset range (between its base and last offset)
//     a record was removed by the log cleaner: a batch keeps its base and
//     last offset when compaction thins it, and an emptied batch a
//     producer's state still needs is kept with no records at all;
//   - between two batches above the log start, a whole batch was removed:
//     only the cleaner does that, so the gap is "compacted" when the
//     topic's cleanup.policy includes compact, and "unknown" otherwise
//     (a legacy message set, a broker bug, or a policy changed back).
const (
	GapCompacted      = "compacted"
	GapBeforeLogStart = "beforeLogStart"
	GapUnknown        = "unknown"
)

// gapBetween is the provisional reason of a gap between batches, settled
// to GapCompacted or GapUnknown by the topic's cleanup.policy.
const gapBetween = "between"

// gapClass is the class of a gap with reason why.
func gapClass(why string) class {
	switch why {
	case GapCompacted:
		return classGapCompacted
	case GapBeforeLogStart:
		return classGapBeforeLogStart
	case gapBetween:
		return classGapBetween
	}
	return classGapUnknown
}

// isGap reports whether c is a class of gap.
func (c class) isGap() bool {
	return c == classGapCompacted || c == classGapBeforeLogStart || c == classGapBetween || c == classGapUnknown
}

// settleBetween is the class a gap between batches takes on a topic that
// is (compact) or is not compacted.
func settleBetween(c class, compact bool) class {
	switch {
	case c != classGapBetween:
		return c
	case compact:
		return classGapCompacted
	}
	return classGapUnknown
}

// compactedTopic reports whether topic's cleanup.policy includes compact,
// from one DescribeConfigs request. It is asked only when a gap between
// batches needs a reason; when the request fails the answer is false, and
// the gap's reason is "unknown".
func (i *Inspector) compactedTopic(ctx context.Context, topic string) bool {
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeTopic
	res.ResourceName = topic
	res.ConfigNames = []string{"cleanup.policy"}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, i.client)
	if err != nil {
		return false
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			continue
		}
		for _, c := range r.Configs {
			if c.Name == "cleanup.policy" && c.Value != nil && strings.Contains(*c.Value, "compact") {
				return true
			}
		}
	}
	return false
}

// settleGapReasons gives the gaps between batches of entries their reason
// (see the rule above), asking the topic's policy once if there are any.
func (i *Inspector) settleGapReasons(ctx context.Context, topic string, entries []Entry) {
	settleEntries(entries, func() bool { return i.compactedTopic(ctx, topic) })
}

// settleEntries gives the gaps between batches of entries their reason,
// calling compact (is the topic compacted?) at most once.
func settleEntries(entries []Entry, compact func() bool) {
	asked, compacted := false, false
	for k := range entries {
		e := &entries[k]
		if e.Kind != KindGap || e.Reason != gapBetween {
			continue
		}
		if !asked {
			asked, compacted = true, compact()
		}
		e.Reason = GapUnknown
		if compacted {
			e.Reason = GapCompacted
		}
	}
}
