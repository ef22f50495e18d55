package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ShareGroupOffset is a share group's start offset and lag on one
// partition, as kafka-share-groups.sh --describe prints them (START-OFFSET
// and LAG, "-" where this says -1), with the partition's log end offset.
type ShareGroupOffset struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// StartOffset is the share-partition start offset (SPSO): every
	// offset below it is acknowledged or archived. -1 before the group
	// has read the partition.
	StartOffset int64 `json:"startOffset"`
	// Lag is the broker's count of records from StartOffset not yet
	// delivered to completion; -1 when the broker does not know it.
	Lag    int64 `json:"lag"`
	LogEnd int64 `json:"logEnd"`
}

// ShareEpochs are the epochs kafka-share-groups.sh --describe --state
// prints for a share group.
type ShareEpochs struct {
	Group      int32 `json:"group"`
	Assignment int32 `json:"assignment"`
}

// describeShareGroup describes a share group (KIP-932: ShareGroupDescribe
// and DescribeShareGroupOffsets at its coordinator, ListOffsets for the
// log end offsets). ok is false when the group is not a share group.
func (c *Cluster) describeShareGroup(ctx context.Context, group string) (GroupDetail, bool, error) {
	described, err := c.admin.DescribeShareGroups(ctx, group)
	if err != nil && len(described) == 0 {
		return GroupDetail{}, false, nil
	}
	d, found := described[group]
	if !found || d.Err != nil || d.GroupState == "" || d.GroupState == "Dead" {
		return GroupDetail{}, false, nil
	}
	detail := GroupDetail{
		Group: group, State: d.GroupState, ProtocolType: "share", Protocol: d.Assignor, Type: "share",
		Members: []GroupMember{}, Offsets: []GroupOffset{}, ShareOffsets: []ShareGroupOffset{},
		ShareEpochs: &ShareEpochs{Group: d.GroupEpoch, Assignment: d.AssignmentEpoch},
	}
	for _, m := range d.Members {
		member := GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, Assignment: []TopicPartitions{}}
		for topic, ps := range m.Assignment {
			var parts []int32
			for p := range ps {
				parts = append(parts, p)
			}
			member.Assignment = append(member.Assignment, TopicPartitions{Topic: topic, Partitions: sorted(parts)})
		}
		sort.Slice(member.Assignment, func(i, j int) bool { return member.Assignment[i].Topic < member.Assignment[j].Topic })
		detail.Members = append(detail.Members, member)
	}
	detail.MemberCount = len(detail.Members)
	offsets, err := c.shareGroupOffsets(ctx, group)
	if err != nil {
		return GroupDetail{}, true, err
	}
	detail.ShareOffsets = offsets
	return detail, true, nil
}

// shareGroupOffsets lists a share group's start offset and lag on every
// partition it has state for, sorted by topic and partition.
func (c *Cluster) shareGroupOffsets(ctx context.Context, group string) ([]ShareGroupOffset, error) {
	described, err := c.admin.DescribeShareGroupOffsets(ctx, group)
	if err != nil && len(described) == 0 {
		return nil, fmt.Errorf("cluster: describe share group offsets of %s: %w", group, err)
	}
	d := described[group]
	if d.Err != nil && !errors.Is(d.Err, kerr.GroupIDNotFound) {
		return nil, d.Err
	}
	out := []ShareGroupOffset{}
	var topics []string
	d.Offsets.Each(func(o kadm.ShareOffset) {
		if o.Err == nil && !slices.Contains(topics, o.Topic) {
			topics = append(topics, o.Topic)
		}
	})
	if len(topics) == 0 {
		return out, nil
	}
	ends, err := c.admin.ListEndOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("cluster: log end offsets for share group %s: %w", group, err)
	}
	d.Offsets.Each(func(o kadm.ShareOffset) {
		if o.Err != nil {
			return
		}
		end := int64(-1)
		if e, ok := ends.Lookup(o.Topic, o.Partition); ok && e.Err == nil {
			end = e.Offset
		}
		out = append(out, ShareGroupOffset{Topic: o.Topic, Partition: o.Partition, StartOffset: o.StartOffset, Lag: o.Lag, LogEnd: end})
	})
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Topic < b.Topic || a.Topic == b.Topic && a.Partition < b.Partition
	})
	return out, nil
}

// ShareGroup describes a share group: state, members with their
// assignments, start offsets and lags (GroupDetail.ShareOffsets). ok is
// false when group is no share group.
func (c *Cluster) ShareGroup(ctx context.Context, group string) (GroupDetail, bool, error) {
	return c.describeShareGroup(ctx, group)
}

// DefaultShareDeliveryCountLimit is Kafka's group.share.delivery.count.limit.
const DefaultShareDeliveryCountLimit = 5

// ShareGroupSettings are the configs of a share group that decide what
// becomes of its records.
type ShareGroupSettings struct {
	// DeliveryCountLimit is how many times a record is delivered before
	// it is archived (share.delivery.count.limit).
	DeliveryCountLimit int32
	// ReadCommitted: share.isolation.level=read_committed, under which
	// the records of aborted transactions are archived, never delivered.
	ReadCommitted bool
}

// ShareGroupSettings describes group's share.delivery.count.limit and
// share.isolation.level as the broker does (the group's own or the
// broker's default). One DescribeConfigs request; Kafka's defaults when
// the broker does not say.
func (c *Cluster) ShareGroupSettings(ctx context.Context, group string) ShareGroupSettings {
	out := ShareGroupSettings{DeliveryCountLimit: DefaultShareDeliveryCountLimit}
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	r.ResourceName = group
	r.ConfigNames = []string{"share.delivery.count.limit", "share.isolation.level"}
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, c.client)
	if err != nil || len(resp.Resources) != 1 {
		return out
	}
	for _, cfg := range resp.Resources[0].Configs {
		if cfg.Value == nil {
			continue
		}
		switch cfg.Name {
		case "share.delivery.count.limit":
			if n, err := strconv.Atoi(*cfg.Value); err == nil && n > 0 {
				out.DeliveryCountLimit = int32(n)
			}
		case "share.isolation.level":
			out.ReadCommitted = *cfg.Value == "read_committed"
		}
	}
	return out
}

// Assigned reports whether a member of the group is assigned topic/partition.
func (d GroupDetail) Assigned(topic string, partition int32) bool {
	for _, m := range d.Members {
		for _, tp := range m.Assignment {
			if tp.Topic == topic && slices.Contains(tp.Partitions, partition) {
				return true
			}
		}
	}
	return false
}

// ShareGroupsOn lists the share groups that DescribeShareGroupOffsets
// names topic/partition for (a start offset of -1 included: Kafka answers
// -1 until its state topic holds one), sorted.
//
// Cost: every watched partition asks once a second, so the answer comes
// from one read shared by the callers waiting for it (sharedSnapshot): a
// ListGroups per broker (filtered by type) and one
// DescribeShareGroupOffsets per share group. One group per request: Kafka
// 4.3.1 answered a request naming several share groups in 2 to 6 s now
// and then (one group each: a few milliseconds), and each lesson step
// waits for the partition's next poll, this read included.
func (c *Cluster) ShareGroupsOn(ctx context.Context, topic string, partition int32) ([]string, error) {
	snap, err := c.shareSnapshot.get(ctx, c.readShareGroups)
	if err != nil {
		return nil, err
	}
	return slices.Clone(snap[topicPartition{topic, partition}]), nil
}

// shareGroupsByPartition names, per partition, the share groups with a
// start offset on it, sorted.
type shareGroupsByPartition map[topicPartition][]string

// readShareGroups lists the share groups and describes their offsets.
func (c *Cluster) readShareGroups(ctx context.Context) (shareGroupsByPartition, error) {
	listed, err := c.admin.ListGroupsByType(ctx, []string{"share"})
	if err != nil && len(listed) == 0 {
		return nil, fmt.Errorf("cluster: list share groups: %w", err)
	}
	out := shareGroupsByPartition{}
	names := listed.Groups()
	slices.Sort(names)
	for _, name := range names {
		described, err := c.admin.DescribeShareGroupOffsets(ctx, name)
		if err != nil && len(described) == 0 {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("cluster: describe share group offsets: %w", err)
			}
			continue // this group's, perhaps deleted meanwhile; the others stand
		}
		for _, d := range described {
			d.Offsets.Each(func(o kadm.ShareOffset) {
				if o.Err == nil {
					tp := topicPartition{o.Topic, o.Partition}
					out[tp] = append(out[tp], name)
				}
			})
		}
	}
	return out, nil
}

// SetGroupConfig sets one config of a group (IncrementalAlterConfigs on
// resource type GROUP), as kafka-configs.sh --entity-type groups
// --alter --add-config does: share.auto.offset.reset,
// share.record.lock.duration.ms, share.delivery.count.limit, ….
func (c *Cluster) SetGroupConfig(ctx context.Context, group, key, value string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = key, kmsg.StringPtr(value)
	r.Configs = append(r.Configs, cfg)
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, c.client)
	if err != nil {
		return fmt.Errorf("cluster: set %s of group %s: %w", key, group, err)
	}
	if len(resp.Resources) != 1 {
		return fmt.Errorf("cluster: set %s of group %s: %d resources answered", key, group, len(resp.Resources))
	}
	if err := kerr.ErrorForCode(resp.Resources[0].ErrorCode); err != nil {
		return fmt.Errorf("cluster: set %s of group %s: %w", key, group, err)
	}
	return nil
}
