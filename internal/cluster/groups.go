package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

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
// topic/partition, sorted by group name. It costs a ListGroups and one
// OffsetFetch per group coordinator.
func (c *Cluster) PartitionGroups(ctx context.Context, topic string, partition int32) ([]PartitionGroupOffset, error) {
	listed, err := c.admin.ListGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list groups: %w", err)
	}
	groups := listed.Groups()
	if len(groups) == 0 {
		return nil, nil
	}
	var out []PartitionGroupOffset
	for group, resp := range c.admin.FetchManyOffsets(ctx, groups...) {
		if resp.Err != nil {
			continue
		}
		if o, ok := resp.Fetched.Lookup(topic, partition); ok && o.Err == nil && o.At >= 0 {
			out = append(out, PartitionGroupOffset{Group: group, Committed: o.At})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out, nil
}
