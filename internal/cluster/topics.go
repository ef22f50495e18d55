package cluster

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

var legalTopic = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)

// ValidateTopicName applies Kafka's rules for topic names.
func ValidateTopicName(name string) error {
	if name == "" {
		return problem.New(problem.Invalid, "error.topicNameRequired")
	}
	if name == "." || name == ".." {
		return problem.New(problem.Invalid, "error.topicNameNotAllowed", "name", name)
	}
	if !legalTopic.MatchString(name) {
		return problem.New(problem.Invalid, "error.topicNameInvalid", "name", name)
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
	details, err := c.admin.ListTopics(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list topics: %w", err)
	}
	return c.describeTopics(ctx, details)
}

// AllTopics is Topics with Kafka's internal topics too (__consumer_offsets,
// __transaction_state).
func (c *Cluster) AllTopics(ctx context.Context) ([]TopicInfo, error) {
	details, err := c.admin.ListTopicsWithInternal(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list topics: %w", err)
	}
	return c.describeTopics(ctx, details)
}

// Topic describes one topic, or fails with ErrUnknownTopic.
func (c *Cluster) Topic(ctx context.Context, name string) (TopicInfo, error) {
	if err := ValidateTopicName(name); err != nil {
		return TopicInfo{}, err
	}
	details, err := c.admin.ListTopics(ctx, name)
	if err != nil {
		return TopicInfo{}, fmt.Errorf("cluster: list topics: %w", err)
	}
	topics, err := c.describeTopics(ctx, details)
	if err != nil {
		return TopicInfo{}, err
	}
	if len(topics) == 0 {
		return TopicInfo{}, problem.UnknownTopic(name)
	}
	return topics[0], nil
}

// describeTopics adds to the topics of a ListTopics answer their
// partitions' log start offsets, high watermarks and last stable offsets.
func (c *Cluster) describeTopics(ctx context.Context, details kadm.TopicDetails) ([]TopicInfo, error) {
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

// validateNewName applies, on top of ValidateTopicName, the rules of a
// topic to create: names starting with "__" are Kafka's own internal
// topics (__consumer_offsets, __transaction_state), and a name that equals
// an existing one once '.' and '_' are taken as the same character would
// collide with it in the broker's metric names, which Kafka refuses.
func validateNewName(name string, existing []string) error {
	if err := ValidateTopicName(name); err != nil {
		return err
	}
	if strings.HasPrefix(name, "__") {
		return problem.New(problem.Invalid, "error.topicNameReserved", "name", name)
	}
	norm := func(s string) string { return strings.ReplaceAll(s, ".", "_") }
	for _, t := range existing {
		if t != name && norm(t) == norm(name) {
			return problem.New(problem.Invalid, "error.topicNameCollides", "name", name, "existing", t)
		}
	}
	return nil
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
	names, err := c.admin.ListTopics(ctx)
	if err != nil {
		return TopicInfo{}, fmt.Errorf("cluster: list topics: %w", err)
	}
	if err := validateNewName(spec.Name, names.Names()); err != nil {
		return TopicInfo{}, err
	}
	if err := ValidateTopicConfigs(spec.Configs); err != nil {
		return TopicInfo{}, err
	}
	if spec.Partitions < 0 || spec.Partitions > 1000 {
		return TopicInfo{}, problem.New(problem.Invalid, "error.partitionsRange", "n", strconv.Itoa(int(spec.Partitions)))
	}
	if spec.ReplicationFactor < 0 {
		return TopicInfo{}, problem.New(problem.Invalid, "error.replicationFactorRange", "n", strconv.Itoa(int(spec.ReplicationFactor)))
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
		return TopicInfo{}, problem.New(problem.Conflict, "error.topicExists", "topic", spec.Name)
	case errors.Is(err, kerr.PolicyViolation) && c.broker != nil:
		// The embedded broker's only CreateTopics policy is its caps.
		maxTopics, maxPartitions := c.broker.TopicCaps()
		return TopicInfo{}, problem.New(problem.Conflict, "error.topicLimit", "topic", spec.Name,
			"topics", strconv.Itoa(maxTopics), "partitions", strconv.Itoa(maxPartitions))
	case errors.Is(err, kerr.InvalidReplicationFactor), errors.Is(err, kerr.InvalidPartitions),
		errors.Is(err, kerr.InvalidConfig), errors.Is(err, kerr.InvalidTopicException),
		errors.Is(err, kerr.InvalidRequest), errors.Is(err, kerr.PolicyViolation):
		msg := err.Error()
		if resp.ErrMessage != "" {
			msg += " (" + resp.ErrMessage + ")"
		}
		return TopicInfo{}, problem.New(problem.Invalid, "error.topicCreateRefused", "topic", spec.Name, "detail", msg)
	case err != nil:
		return TopicInfo{}, fmt.Errorf("cluster: create topic %s: %w", spec.Name, err)
	}
	return c.waitTopic(ctx, spec.Name)
}

// waitTopic returns the new topic once its metadata shows a leader for
// every partition, so the caller can produce to it at once. It waits as
// long as ctx allows.
func (c *Cluster) waitTopic(ctx context.Context, name string) (TopicInfo, error) {
	var t TopicInfo
	err := wait.Until(ctx, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		var err error
		if t, err = c.Topic(ctx, name); err == nil && allLed(t) {
			return true, nil
		}
		c.client.ForceMetadataRefresh()
		return false, nil
	})
	if err != nil {
		return TopicInfo{}, fmt.Errorf("cluster: wait for topic %s: %w", name, err)
	}
	return t, nil
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

// TopicPartitions is every topic with its partition count, from one
// metadata request (sent as is: kadm may answer from the client's cached
// metadata, which misses a topic made a moment ago).
func (c *Cluster) TopicPartitions(ctx context.Context) (map[string]int, error) {
	req := kmsg.NewPtrMetadataRequest() // nil Topics: every topic
	resp, err := req.RequestWith(ctx, c.client)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(resp.Topics))
	for _, t := range resp.Topics {
		if t.Topic != nil && t.ErrorCode == 0 {
			out[*t.Topic] = len(t.Partitions)
		}
	}
	return out, nil
}
