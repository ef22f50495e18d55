package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// GroupPartitionOffset is one partition's committed offset and lag, as
// kafka-consumer-groups.sh --describe prints it.
type GroupPartitionOffset struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Committed int64  `json:"committed"`
	LogEnd    int64  `json:"logEnd"`
	Lag       int64  `json:"lag"`
}

// GroupInfo is a consumer group's state and offsets.
type GroupInfo struct {
	Group   string                 `json:"group"`
	State   string                 `json:"state"`
	Members int                    `json:"members"`
	Offsets []GroupPartitionOffset `json:"offsets"`
}

// Group describes a consumer group: its state, its committed offsets, the
// log end offset (high watermark) of each partition and the lag between
// them. A group with no members and no offsets is ErrUnknownGroup.
func (c *Cluster) Group(ctx context.Context, group string) (GroupInfo, error) {
	info, _, err := c.groupOffsets(ctx, group)
	if err != nil {
		return GroupInfo{}, err
	}
	if unknownGroup(info.State, info.Members, len(info.Offsets)) {
		return GroupInfo{}, errUnknownGroup(group)
	}
	return info, nil
}

// unknownGroup reports whether a group with this state, member count and
// number of committed offsets has no trace at its coordinator.
func unknownGroup(state string, members, offsets int) bool {
	return (state == "" || state == "Dead") && members == 0 && offsets == 0
}

func errUnknownGroup(group string) error {
	return problem.New(problem.NotFound, "error.unknownGroup", "group", group)
}

// groupOffsets is Group without the unknown-group check, also returning
// the group as DescribeGroups described it.
func (c *Cluster) groupOffsets(ctx context.Context, group string) (GroupInfo, kadm.DescribedGroup, error) {
	if group == "" {
		return GroupInfo{}, kadm.DescribedGroup{}, problem.New(problem.Invalid, "error.groupRequired")
	}
	var d kadm.DescribedGroup
	err := wait.Retry(ctx, func() error {
		described, err := c.admin.DescribeGroups(ctx, group)
		if err != nil {
			return err
		}
		d = described[group]
		if errors.Is(d.Err, kerr.GroupIDNotFound) {
			return nil
		}
		return d.Err
	})
	if err != nil {
		return GroupInfo{}, d, fmt.Errorf("cluster: describe group %s: %w", group, err)
	}
	var committed kadm.OffsetResponses
	err = wait.Retry(ctx, func() (err error) {
		committed, err = c.admin.FetchOffsets(ctx, group)
		return err
	})
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		return GroupInfo{}, d, fmt.Errorf("cluster: fetch offsets of group %s: %w", group, err)
	}
	info := GroupInfo{Group: group, State: d.State, Members: len(d.Members), Offsets: []GroupPartitionOffset{}}
	var topics []string
	committed.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && !slices.Contains(topics, o.Topic) {
			topics = append(topics, o.Topic)
		}
	})
	if len(topics) > 0 {
		ends, err := c.admin.ListEndOffsets(ctx, topics...)
		if err != nil {
			return GroupInfo{}, d, fmt.Errorf("cluster: log end offsets for group %s: %w", group, err)
		}
		committed.Each(func(o kadm.OffsetResponse) {
			if o.Err != nil {
				return
			}
			end := int64(-1)
			if e, ok := ends.Lookup(o.Topic, o.Partition); ok && e.Err == nil {
				end = e.Offset
			}
			lag := int64(-1)
			if end >= 0 && o.At >= 0 {
				lag = end - o.At
			}
			info.Offsets = append(info.Offsets, GroupPartitionOffset{
				Topic: o.Topic, Partition: o.Partition, Committed: o.At, LogEnd: end, Lag: lag,
			})
		})
	}
	sort.Slice(info.Offsets, func(i, j int) bool {
		a, b := info.Offsets[i], info.Offsets[j]
		return a.Topic < b.Topic || a.Topic == b.Topic && a.Partition < b.Partition
	})
	return info, d, nil
}

// PartitionGroupOffset is one consumer group's committed offset on one
// partition.
type PartitionGroupOffset struct {
	Group     string `json:"group"`
	Committed int64  `json:"committed"`
}

// PartitionGroups lists every consumer group with a committed offset on
// topic/partition, sorted by group name.
//
// Cost: every watched partition asks once a second, so the answer comes
// from one read of every group's committed offsets shared by the callers
// waiting for it (sharedSnapshot): a ListGroups and one OffsetFetch per
// group coordinator, one read at a time however many partitions are
// watched. On a cluster with thousands of groups each read is that large;
// it is made only while some partition is watched.
func (c *Cluster) PartitionGroups(ctx context.Context, topic string, partition int32) ([]PartitionGroupOffset, error) {
	snap, err := c.groupSnapshot.get(ctx, c.readGroupOffsets)
	if err != nil {
		return nil, err
	}
	return slices.Clone(snap[topicPartition{topic, partition}]), nil
}

// topicPartition names one partition.
type topicPartition struct {
	topic     string
	partition int32
}

// groupOffsetsByPartition is every group's committed offset, by partition,
// each partition's sorted by group name.
type groupOffsetsByPartition map[topicPartition][]PartitionGroupOffset

// readGroupOffsets lists the groups and fetches all their committed
// offsets.
func (c *Cluster) readGroupOffsets(ctx context.Context) (groupOffsetsByPartition, error) {
	listed, err := c.admin.ListGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list groups: %w", err)
	}
	out := groupOffsetsByPartition{}
	groups := listed.Groups()
	if len(groups) == 0 {
		return out, nil
	}
	for group, resp := range c.admin.FetchManyOffsets(ctx, groups...) {
		if resp.Err != nil {
			continue
		}
		resp.Fetched.Each(func(o kadm.OffsetResponse) {
			if o.Err == nil && o.At >= 0 {
				tp := topicPartition{o.Topic, o.Partition}
				out[tp] = append(out[tp], PartitionGroupOffset{Group: group, Committed: o.At})
			}
		})
	}
	for _, offsets := range out {
		sort.Slice(offsets, func(i, j int) bool { return offsets[i].Group < offsets[j].Group })
	}
	return out, nil
}

// sharedSnapshot is one read shared by the callers waiting for it; its
// zero value is ready to use. Each caller gets a read that started after
// it asked (so what a write just changed is in it), and at most one read
// runs at a time: callers arriving during a read wait for it to end and
// then share the next one.
type sharedSnapshot[T any] struct {
	mu      sync.Mutex
	started time.Time // when the last read started
	value   T
	err     error
	reading chan struct{} // closed when the read under way ends; nil when none
}

// get answers with a read that started after the call: the read under
// way when it started after, else the next one, which it starts when
// none runs. The read runs apart from ctx (bounded by its own 10 s), so a
// caller that gives up does not fail the others waiting for it.
func (s *sharedSnapshot[T]) get(ctx context.Context, read func(context.Context) (T, error)) (T, error) {
	asked := time.Now()
	s.mu.Lock()
	for {
		if s.reading == nil && !s.started.Before(asked) {
			defer s.mu.Unlock()
			return s.value, s.err // a read that started after we asked
		}
		if s.reading == nil {
			break
		}
		reading := s.reading
		s.mu.Unlock()
		select {
		case <-reading:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
		s.mu.Lock()
	}
	s.started, s.reading = time.Now(), make(chan struct{})
	done := s.reading
	s.mu.Unlock()

	readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	v, err := read(readCtx)
	cancel()

	s.mu.Lock()
	s.value, s.err, s.reading = v, err, nil
	close(done)
	s.mu.Unlock()
	return v, err
}
