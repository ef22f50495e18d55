package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/kretry"
)

// Domain errors; the web package maps them to HTTP statuses.
var (
	// ErrInvalid marks a request Kafka would refuse as malformed.
	ErrInvalid = errors.New("invalid request")
	// ErrUnknownTopic marks a topic that does not exist.
	ErrUnknownTopic = errors.New("unknown topic")
	// ErrUnknownGroup marks a consumer group that has no state.
	ErrUnknownGroup = errors.New("unknown consumer group")
	// ErrUnknownTransaction marks a transactional.id the coordinator
	// does not know.
	ErrUnknownTransaction = errors.New("unknown transactional id")
	// ErrTopicExists marks a create of a topic that already exists.
	ErrTopicExists = errors.New("topic already exists")
)

// kindError carries a sentence for people and a kind for errors.Is.
type kindError struct {
	kind error
	msg  string
	err  error
	// key and args name the same sentence in the UI catalogue
	// (web/static/i18n, "error." keys; see internal/uikey).
	key  string
	args map[string]string
}

func (e *kindError) Error() string {
	if e.err != nil {
		return e.msg + ": " + e.err.Error()
	}
	return e.msg
}
func (e *kindError) Is(target error) bool { return target == e.kind }
func (e *kindError) Unwrap() error        { return e.err }

// MessageKey names the catalogue sentence (see internal/uikey).
func (e *kindError) MessageKey() (string, map[string]string) { return e.key, e.args }

// keyf is a kind's error with a sentence, the catalogue key of that
// sentence and its placeholders' values.
func keyf(kind error, key string, kv map[string]string, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...), key: key, args: kv}
}

// IsUnavailable reports whether err means the brokers could not be reached
// (as opposed to a broker answering with an error).
func IsUnavailable(err error) bool {
	if errors.Is(err, ErrBrokerUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, kgo.ErrClientClosed)
}

var legalTopic = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)

// ValidateTopicName applies Kafka's rules for topic names.
func ValidateTopicName(name string) error {
	if name == "" {
		return keyf(ErrInvalid, "error.topicNameRequired", nil, "a topic name is required")
	}
	if name == "." || name == ".." {
		return keyf(ErrInvalid, "error.topicNameNotAllowed", map[string]string{"name": name}, "topic name %q is not allowed", name)
	}
	if !legalTopic.MatchString(name) {
		return keyf(ErrInvalid, "error.topicNameInvalid", map[string]string{"name": name}, "topic name %q is not valid: use at most 249 letters, digits, '.', '_' or '-'", name)
	}
	return nil
}

// PartitionInfo is one partition's placement and pointers.
type PartitionInfo struct {
	Partition        int32   `json:"partition"`
	Leader           int32   `json:"leader"`
	Replicas         []int32 `json:"replicas"`
	ISR              []int32 `json:"isr"`
	LogStartOffset   int64   `json:"logStartOffset"`
	LastStableOffset int64   `json:"lastStableOffset"`
	HighWatermark    int64   `json:"highWatermark"`
	Error            string  `json:"error,omitempty"`
}

// TopicInfo is a topic with its partitions.
type TopicInfo struct {
	Name       string          `json:"name"`
	Internal   bool            `json:"internal,omitempty"`
	Partitions []PartitionInfo `json:"partitions"`
}

// Topics lists the non-internal topics, sorted by name, with each
// partition's leader, replicas, ISR and offsets.
func (c *Cluster) Topics(ctx context.Context) ([]TopicInfo, error) {
	return c.describeTopics(ctx)
}

// Topic describes one topic, or fails with ErrUnknownTopic.
func (c *Cluster) Topic(ctx context.Context, name string) (TopicInfo, error) {
	if err := ValidateTopicName(name); err != nil {
		return TopicInfo{}, err
	}
	topics, err := c.describeTopics(ctx, name)
	if err != nil {
		return TopicInfo{}, err
	}
	if len(topics) == 0 {
		return TopicInfo{}, keyf(ErrUnknownTopic, "error.unknownTopic", map[string]string{"topic": name}, "topic %q does not exist", name)
	}
	return topics[0], nil
}

func (c *Cluster) describeTopics(ctx context.Context, names ...string) ([]TopicInfo, error) {
	details, err := c.admin.ListTopics(ctx, names...)
	if err != nil {
		return nil, fmt.Errorf("cluster: list topics: %w", err)
	}
	var present []string
	for _, d := range details.Sorted() {
		if d.Err == nil {
			present = append(present, d.Topic)
		}
	}
	if len(present) == 0 {
		return nil, nil
	}
	starts, err := c.admin.ListStartOffsets(ctx, present...)
	if err != nil {
		return nil, fmt.Errorf("cluster: list log start offsets: %w", err)
	}
	ends, err := c.admin.ListEndOffsets(ctx, present...)
	if err != nil {
		return nil, fmt.Errorf("cluster: list high watermarks: %w", err)
	}
	stables, err := c.admin.ListCommittedOffsets(ctx, present...)
	if err != nil {
		return nil, fmt.Errorf("cluster: list last stable offsets: %w", err)
	}
	var out []TopicInfo
	for _, name := range present {
		d := details[name]
		t := TopicInfo{Name: name, Internal: d.IsInternal}
		for _, p := range d.Partitions.Sorted() {
			info := PartitionInfo{
				Partition: p.Partition,
				Leader:    p.Leader,
				Replicas:  nonNil(p.Replicas),
				ISR:       nonNil(p.ISR),
			}
			if p.Err != nil {
				info.Error = p.Err.Error()
			}
			info.LogStartOffset = offsetOf(starts, name, p.Partition, &info)
			info.HighWatermark = offsetOf(ends, name, p.Partition, &info)
			info.LastStableOffset = offsetOf(stables, name, p.Partition, &info)
			t.Partitions = append(t.Partitions, info)
		}
		out = append(out, t)
	}
	return out, nil
}

func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return slices.Clone(s)
}

func offsetOf(l kadm.ListedOffsets, topic string, partition int32, info *PartitionInfo) int64 {
	o, ok := l.Lookup(topic, partition)
	if !ok {
		return -1
	}
	if o.Err != nil {
		info.Error = o.Err.Error()
		return -1
	}
	return o.Offset
}

// TopicSpec is a topic to create.
type TopicSpec struct {
	Name              string            `json:"name"`
	Partitions        int32             `json:"partitions"`
	ReplicationFactor int16             `json:"replicationFactor"`
	Configs           map[string]string `json:"configs"`
}

// CreateTopic creates a topic. Zero partitions or replication factor mean
// the broker's defaults.
func (c *Cluster) CreateTopic(ctx context.Context, spec TopicSpec) (TopicInfo, error) {
	if err := ValidateTopicName(spec.Name); err != nil {
		return TopicInfo{}, err
	}
	if spec.Partitions < 0 || spec.Partitions > 1000 {
		return TopicInfo{}, keyf(ErrInvalid, "error.partitionsRange", map[string]string{"n": strconv.Itoa(int(spec.Partitions))}, "partitions must be between 1 and 1000, not %d", spec.Partitions)
	}
	if spec.ReplicationFactor < 0 {
		return TopicInfo{}, keyf(ErrInvalid, "error.replicationFactorRange", map[string]string{"n": strconv.Itoa(int(spec.ReplicationFactor))}, "replicationFactor must be 1 or more, not %d", spec.ReplicationFactor)
	}
	partitions, rf := spec.Partitions, spec.ReplicationFactor
	if partitions == 0 {
		partitions = -1
	}
	if rf == 0 {
		rf = -1
	}
	configs := make(map[string]*string, len(spec.Configs))
	for k, v := range spec.Configs {
		configs[k] = &v
	}
	resp, err := c.admin.CreateTopic(ctx, partitions, rf, configs, spec.Name)
	if err == nil {
		err = resp.Err
	}
	switch {
	case errors.Is(err, kerr.TopicAlreadyExists):
		return TopicInfo{}, keyf(ErrTopicExists, "error.topicExists", map[string]string{"topic": spec.Name}, "topic %q already exists", spec.Name)
	case errors.Is(err, kerr.InvalidReplicationFactor), errors.Is(err, kerr.InvalidPartitions),
		errors.Is(err, kerr.InvalidConfig), errors.Is(err, kerr.InvalidTopicException),
		errors.Is(err, kerr.InvalidRequest), errors.Is(err, kerr.PolicyViolation):
		msg := err.Error()
		if resp.ErrMessage != "" {
			msg += " (" + resp.ErrMessage + ")"
		}
		return TopicInfo{}, keyf(ErrInvalid, "error.topicCreateRefused", map[string]string{"topic": spec.Name, "detail": msg}, "the broker refused to create %q: %s", spec.Name, msg)
	case err != nil:
		return TopicInfo{}, fmt.Errorf("cluster: create topic %s: %w", spec.Name, err)
	}
	return c.waitTopic(ctx, spec.Name)
}

// waitTopic returns the new topic once its metadata shows a leader for
// every partition, so the caller can produce to it at once.
func (c *Cluster) waitTopic(ctx context.Context, name string) (TopicInfo, error) {
	for {
		t, err := c.Topic(ctx, name)
		if err == nil && allLed(t) {
			return t, nil
		}
		if ctx.Err() != nil {
			if err == nil {
				err = ctx.Err()
			}
			return TopicInfo{}, fmt.Errorf("cluster: wait for topic %s: %w", name, err)
		}
		c.client.ForceMetadataRefresh()
		if err := sleepCtx(ctx, 50); err != nil {
			return TopicInfo{}, fmt.Errorf("cluster: wait for topic %s: %w", name, err)
		}
	}
}

func allLed(t TopicInfo) bool {
	if len(t.Partitions) == 0 {
		return false
	}
	for _, p := range t.Partitions {
		if p.Leader < 0 || p.HighWatermark < 0 {
			return false
		}
	}
	return true
}

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
	return keyf(ErrUnknownGroup, "error.unknownGroup", map[string]string{"group": group}, "consumer group %q has no members and no committed offsets", group)
}

// groupOffsets is Group without the unknown-group check, also returning
// the group as DescribeGroups described it.
func (c *Cluster) groupOffsets(ctx context.Context, group string) (GroupInfo, kadm.DescribedGroup, error) {
	if group == "" {
		return GroupInfo{}, kadm.DescribedGroup{}, keyf(ErrInvalid, "error.groupRequired", nil, "a group name is required")
	}
	var d kadm.DescribedGroup
	err := kretry.Do(ctx, func() error {
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
	err = kretry.Do(ctx, func() (err error) {
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

// TransactionInfo is what kafka-transactions.sh describe prints for a
// transactional.id, with State spelled as the coordinator spells it.
type TransactionInfo struct {
	TransactionalID string   `json:"transactionalId"`
	State           string   `json:"state"`
	ProducerID      int64    `json:"producerId"`
	ProducerEpoch   int16    `json:"producerEpoch"`
	TimeoutMs       int32    `json:"timeoutMs"`
	StartTimestamp  int64    `json:"startTimestamp"`
	Coordinator     int32    `json:"coordinator"`
	Partitions      []string `json:"partitions"`
	// BrokerNote says, in embedded mode, where the embedded broker's
	// answer is known to differ from Apache Kafka's.
	BrokerNote string `json:"brokerNote,omitempty"`
}

// Transaction describes a transactional.id at its coordinator, verbatim.
func (c *Cluster) Transaction(ctx context.Context, id string) (TransactionInfo, error) {
	if id == "" {
		return TransactionInfo{}, keyf(ErrInvalid, "error.transactionalIdRequired", nil, "a transactional id is required")
	}
	var d kadm.DescribedTransaction
	found := false
	err := kretry.Do(ctx, func() error {
		described, err := c.admin.DescribeTransactions(ctx, id)
		if err != nil {
			return err
		}
		d, found = described[id]
		return d.Err
	})
	if err != nil {
		return TransactionInfo{}, c.transactionErr(id, err)
	}
	if !found {
		return TransactionInfo{}, keyf(ErrUnknownTransaction, "error.unknownTransaction", map[string]string{"id": id}, "transactional id %q is unknown to the coordinator", id)
	}
	info := TransactionInfo{
		TransactionalID: id,
		State:           d.State,
		ProducerID:      d.ProducerID,
		ProducerEpoch:   d.ProducerEpoch,
		TimeoutMs:       d.TimeoutMillis,
		StartTimestamp:  d.StartTimestamp,
		Coordinator:     d.Coordinator,
		Partitions:      []string{},
	}
	d.Topics.Each(func(t string, p int32) {
		info.Partitions = append(info.Partitions, t+"-"+strconv.Itoa(int(p)))
	})
	sort.Strings(info.Partitions)
	if c.mode == Embedded {
		switch d.State {
		case "Empty":
			info.BrokerNote = "The embedded broker reports Empty once a transaction has ended; Apache Kafka 4.3.1 reports CompleteCommit or CompleteAbort. The log's last marker from this producer shows which it was."
		case "Ongoing":
			info.BrokerNote = "The embedded broker lists only the data partitions of an ongoing transaction; Apache Kafka 4.3.1 also lists the __consumer_offsets partition its offsets were added to."
		}
	}
	return info, nil
}

func (c *Cluster) transactionErr(id string, err error) error {
	if errors.Is(err, kerr.TransactionalIDNotFound) {
		return keyf(ErrUnknownTransaction, "error.unknownTransaction", map[string]string{"id": id}, "transactional id %q is unknown to the coordinator", id)
	}
	return fmt.Errorf("cluster: describe transaction %s: %w", id, err)
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
