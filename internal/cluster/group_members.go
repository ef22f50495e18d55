package cluster

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// GroupSummary is one group as kafka-consumer-groups.sh --list --state
// shows it, with its member count.
type GroupSummary struct {
	Group        string `json:"group"`
	State        string `json:"state"`
	ProtocolType string `json:"protocolType"`
	// Type is the group's protocol generation as ListGroups v5 reports
	// it: "classic", "consumer" (KIP-848) or "share"; empty from brokers
	// that do not say.
	Type        string `json:"type,omitempty"`
	Coordinator int32  `json:"coordinator"`
	// Members is how many members the group has, -1 when describing the
	// group failed.
	Members int `json:"members"`
	// Lag is the group's offset lag summed over its committed partitions
	// (high watermark − committed offset, as kafka-consumer-groups.sh
	// prints it per partition); -1 when it could not be read, or for the
	// groups past the first MaxGroupLags.
	Lag int64 `json:"lag"`
}

// MaxGroupLags bounds the groups whose lag ListGroups sums: an OffsetFetch
// per coordinator and a ListOffsets per topic they commit on.
const MaxGroupLags = 200

// ListGroups lists every group the cluster knows, sorted by name, with
// its state, protocol type and member count. Cost: one ListGroups per
// broker and one DescribeGroups (classic groups), ConsumerGroupDescribe
// (KIP-848 consumer groups) or ShareGroupDescribe (KIP-932 share groups)
// per coordinator.
func (c *Cluster) ListGroups(ctx context.Context) ([]GroupSummary, error) {
	var listed kadm.ListedGroups
	err := wait.Retry(ctx, func() (err error) {
		listed, err = c.admin.ListGroups(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: list groups: %w", err)
	}
	out := []GroupSummary{}
	var classic, consumer, share []string
	for _, g := range listed.Sorted() {
		out = append(out, GroupSummary{Group: g.Group, State: g.State, ProtocolType: g.ProtocolType, Type: g.GroupType, Coordinator: g.Coordinator, Members: -1})
		switch g.GroupType {
		case "consumer":
			consumer = append(consumer, g.Group)
		case "share":
			share = append(share, g.Group)
		case "", "classic":
			classic = append(classic, g.Group)
		}
	}
	members := map[string]int{}
	if len(classic) > 0 {
		if described, err := c.admin.DescribeGroups(ctx, classic...); err == nil || len(described) > 0 {
			for name, d := range described {
				if d.Err == nil {
					members[name] = len(d.Members)
				}
			}
		}
	}
	if len(consumer) > 0 {
		if described, err := c.admin.DescribeConsumerGroups(ctx, consumer...); err == nil || len(described) > 0 {
			for name, d := range described {
				if d.Err == nil {
					members[name] = len(d.Members)
				}
			}
		}
	}
	if len(share) > 0 {
		if described, err := c.admin.DescribeShareGroups(ctx, share...); err == nil || len(described) > 0 {
			for name, d := range described {
				if d.Err == nil {
					members[name] = len(d.Members)
				}
			}
		}
	}
	for k := range out {
		if n, ok := members[out[k].Group]; ok {
			out[k].Members = n
		}
	}
	c.sumLags(ctx, out)
	return out, nil
}

// sumLags sets each group's Lag (the first MaxGroupLags), leaving -1 where
// its offsets or the log ends could not be read.
func (c *Cluster) sumLags(ctx context.Context, groups []GroupSummary) {
	var names []string
	for k := range groups {
		groups[k].Lag = -1
		if k < MaxGroupLags {
			names = append(names, groups[k].Group)
		}
	}
	if len(names) == 0 {
		return
	}
	fetched := c.admin.FetchManyOffsets(ctx, names...)
	topics := fetched.CommittedPartitions().Topics()
	if len(topics) == 0 {
		for k := range groups[:len(names)] {
			if r, ok := fetched[groups[k].Group]; ok && r.Err == nil {
				groups[k].Lag = 0
			}
		}
		return
	}
	ends, err := c.admin.ListEndOffsets(ctx, topics...)
	if err != nil {
		return
	}
	for k := range groups[:len(names)] {
		r, ok := fetched[groups[k].Group]
		if !ok || r.Err != nil {
			continue
		}
		lag, known := int64(0), true
		r.Fetched.Each(func(o kadm.OffsetResponse) {
			if o.Err == nil && o.At < 0 {
				return // no offset committed there: no lag to count
			}
			end, found := ends.Lookup(o.Topic, o.Partition)
			if o.Err != nil || !found || end.Err != nil {
				known = false
				return
			}
			lag += max(end.Offset-o.At, 0)
		})
		if known {
			groups[k].Lag = lag
		}
	}
}

// GroupMember is one member of a group and what it was assigned, as
// kafka-consumer-groups.sh --describe --members --verbose prints it.
type GroupMember struct {
	MemberID   string `json:"memberId"`
	InstanceID string `json:"instanceId,omitempty"`
	ClientID   string `json:"clientId"`
	Host       string `json:"host"`
	// Assignment lists the partitions the member consumes, by topic.
	Assignment []TopicPartitions `json:"assignment"`
}

// TopicPartitions is a topic and some of its partitions, ascending.
type TopicPartitions struct {
	Topic      string  `json:"topic"`
	Partitions []int32 `json:"partitions"`
}

// GroupOffset is a group's committed offset on one partition with two
// lags: the offset lag every tool shows (log end - committed) and the
// record lag, what a read_committed consumer at the committed offset
// would still receive.
type GroupOffset struct {
	GroupPartitionOffset
	// RecordLag counts the plain and committed data records from the
	// committed offset up to the last stable offset: markers, aborted
	// records and gaps take offsets but reach no read_committed consumer,
	// so a trailing COMMIT marker makes lag 1 and recordLag 0. It is -1
	// when it could not be counted (RecordLagWhy says why).
	RecordLag int64 `json:"recordLag"`
	// RecordLagWhy, with a RecordLag of -1, says why the record lag is
	// missing, in the catalogue's words; RecordLagNote is its English.
	RecordLagWhy  *catalog.Message `json:"recordLagWhy,omitempty"`
	RecordLagNote string           `json:"recordLagNote,omitempty"`
	// RecordLagProblem, when the brokers refused the read that counts
	// it, names the missing right (the sentence the page shows; also
	// RecordLagWhy then).
	RecordLagProblem *catalog.Message `json:"recordLagProblem,omitempty"`
	// Held, set by internal/lab, says what holds the partition's last
	// stable offset when an open transaction holds it at or above the
	// committed offset: the record lag stops at the LSO, Held.Waiting
	// records wait behind it.
	Held *LSOHold `json:"held,omitempty"`
}

// GroupDetail is a group's state, members with their assignments, and
// committed offsets with both lags.
type GroupDetail struct {
	Group        string `json:"group"`
	State        string `json:"state"`
	ProtocolType string `json:"protocolType"`
	// Protocol is the partition assignor the group chose (classic
	// groups) or the server-side assignor (KIP-848 consumer groups).
	Protocol    string        `json:"protocol"`
	Type        string        `json:"type,omitempty"`
	MemberCount int           `json:"memberCount"`
	Members     []GroupMember `json:"members"`
	Offsets     []GroupOffset `json:"offsets"`
	// ShareOffsets are a share group's start offsets and lags (a share
	// group commits no offsets); ShareEpochs its group and assignment
	// epochs. Both only for Type "share".
	ShareOffsets []ShareGroupOffset `json:"shareOffsets,omitempty"`
	ShareEpochs  *ShareEpochs       `json:"shareEpochs,omitempty"`
}

// RecordLagCounter counts what a read_committed consumer positioned at
// offset committed would still receive from a partition, up to its last
// stable offset. *inspect.Inspector implements it (RecordLag); the
// cluster package does not import inspect, so the caller passes it.
type RecordLagCounter interface {
	RecordLag(ctx context.Context, topic string, partition int32, committed int64) (int64, error)
}

// DescribeGroup describes a group: state, protocol, members with their
// assignments, and per committed offset the log end offset, the offset lag
// and the record lag counted by lags (nil leaves recordLag -1). A group
// with no members and no committed offsets is an unknown group (problem.NotFound).
//
// Cost: Group's requests (DescribeGroups, OffsetFetch, ListOffsets), a
// ConsumerGroupDescribe when the group uses the KIP-848 protocol, and per
// partition with a positive lag one lags.RecordLag call (for
// *inspect.Inspector: a pass over the batch headers between the committed
// offset and the last stable offset, at most inspect.RecordLagBudget
// bytes). Partitions are counted one after another; ctx bounds the whole.
func (c *Cluster) DescribeGroup(ctx context.Context, group string, lags RecordLagCounter) (GroupDetail, error) {
	info, d, err := c.groupOffsets(ctx, group)
	if err != nil {
		return GroupDetail{}, err
	}
	detail := GroupDetail{
		Group: group, State: d.State, ProtocolType: d.ProtocolType, Protocol: d.Protocol, Type: "classic",
		Members: []GroupMember{}, Offsets: []GroupOffset{},
	}
	for _, m := range d.Members {
		member := GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, Assignment: []TopicPartitions{}}
		if m.InstanceID != nil {
			member.InstanceID = *m.InstanceID
		}
		if a, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range a.Topics {
				member.Assignment = append(member.Assignment, TopicPartitions{Topic: t.Topic, Partitions: sorted(t.Partitions)})
			}
		}
		detail.Members = append(detail.Members, member)
	}
	if len(d.Members) == 0 {
		// Perhaps a KIP-848 consumer group, whose members DescribeGroups
		// does not list: Kafka 4.3.1 answers GROUP_ID_NOT_FOUND, the
		// embedded broker Stable with no members. A classic group
		// without members is not found by ConsumerGroupDescribe.
		// Else perhaps a share group (KIP-932), which commits no offsets.
		if cg, ok := c.describeConsumerGroup(ctx, group); ok {
			detail.State, detail.ProtocolType, detail.Protocol, detail.Type, detail.Members = cg.State, "consumer", cg.Protocol, "consumer", cg.Members
		} else if len(info.Offsets) == 0 {
			sg, ok, err := c.describeShareGroup(ctx, group)
			if err != nil {
				return GroupDetail{}, err
			}
			if ok {
				return sg, nil
			}
		}
	}
	detail.MemberCount = len(detail.Members)
	if unknownGroup(detail.State, detail.MemberCount, len(info.Offsets)) {
		return GroupDetail{}, errUnknownGroup(group)
	}
	for _, o := range info.Offsets {
		g := GroupOffset{GroupPartitionOffset: o, RecordLag: -1}
		switch {
		case o.Lag == 0:
			g.RecordLag = 0
		case o.Lag < 0:
			g.missing(catalog.M("groupLag.noOffsets"))
		case lags == nil:
			g.missing(catalog.M("groupLag.notCounted"))
		default:
			n, err := lags.RecordLag(ctx, o.Topic, o.Partition, o.Committed)
			switch {
			case err == nil:
				g.RecordLag = n
			case problem.Denied(err) != nil:
				m := problem.As(problem.NotAllowed(err, c.security.User, "READ", "topic", o.Topic)).Message
				g.RecordLagProblem = &m
				g.missing(m)
			default:
				g.missing(problem.As(err).Message)
			}
		}
		detail.Offsets = append(detail.Offsets, g)
	}
	return detail, nil
}

// describeConsumerGroup describes a KIP-848 consumer group
// (ConsumerGroupDescribe at its coordinator). Assigned topics are named
// from their topic ids when the broker leaves the names out, as the
// embedded broker does. ok is false when the group is not such a group.
func (c *Cluster) describeConsumerGroup(ctx context.Context, group string) (GroupDetail, bool) {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{group}
	resp, err := req.RequestWith(ctx, c.client)
	if err != nil || len(resp.Groups) != 1 {
		return GroupDetail{}, false
	}
	g := resp.Groups[0]
	if g.ErrorCode != 0 || g.State == "" || g.State == "Dead" {
		return GroupDetail{}, false
	}
	var names map[[16]byte]string
	name := func(tp kmsg.AssignmentTopicPartition) string {
		if tp.Topic != "" {
			return tp.Topic
		}
		if names == nil {
			names = map[[16]byte]string{}
			if details, err := c.admin.ListTopics(ctx); err == nil {
				for _, d := range details {
					names[d.ID] = d.Topic
				}
			}
		}
		return names[tp.TopicID]
	}
	detail := GroupDetail{State: g.State, Protocol: g.AssignorName, Members: []GroupMember{}}
	for _, m := range g.Members {
		member := GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, Assignment: []TopicPartitions{}}
		if m.InstanceID != nil {
			member.InstanceID = *m.InstanceID
		}
		for _, tp := range m.Assignment.TopicPartitions {
			member.Assignment = append(member.Assignment, TopicPartitions{Topic: name(tp), Partitions: sorted(tp.Partitions)})
		}
		sort.Slice(member.Assignment, func(i, j int) bool { return member.Assignment[i].Topic < member.Assignment[j].Topic })
		detail.Members = append(detail.Members, member)
	}
	sort.Slice(detail.Members, func(i, j int) bool { return detail.Members[i].MemberID < detail.Members[j].MemberID })
	return detail, true
}

func sorted(p []int32) []int32 {
	p = slices.Clone(p)
	slices.Sort(p)
	if p == nil {
		p = []int32{}
	}
	return p
}

// missing records why the record lag could not be counted.
func (g *GroupOffset) missing(why catalog.Message) {
	g.RecordLag = -1
	g.RecordLagWhy = &why
	g.RecordLagNote = why.String()
}
