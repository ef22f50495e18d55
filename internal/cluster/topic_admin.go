package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// TopicConfig is one configuration entry of a topic, as
// kafka-configs.sh --describe --all prints it.
type TopicConfig struct {
	Name string `json:"name"`
	// Value is null for a sensitive entry (the broker never sends it).
	Value *string `json:"value"`
	// Source says where the value comes from, in Kafka's words:
	// DYNAMIC_TOPIC_CONFIG (set on the topic), DYNAMIC_BROKER_CONFIG,
	// DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG (server
	// properties) or DEFAULT_CONFIG (Kafka's default).
	Source    string `json:"source"`
	Sensitive bool   `json:"sensitive,omitempty"`
	// Synonyms are the values this one overrides, most specific first
	// (for example the broker default a topic setting replaces).
	Synonyms []ConfigSynonym `json:"synonyms,omitempty"`
}

// ConfigSynonym is a lower-precedence definition of a config entry.
type ConfigSynonym struct {
	Name   string  `json:"name"`
	Value  *string `json:"value"`
	Source string  `json:"source"`
}

// TopicConfigs returns every configuration entry of a topic with its
// source, sorted by name (one DescribeConfigs). A topic that does not exist
// is an unknown topic.
func (c *Cluster) TopicConfigs(ctx context.Context, topic string) ([]TopicConfig, error) {
	if err := ValidateTopicName(topic); err != nil {
		return nil, err
	}
	resources, err := c.admin.DescribeTopicConfigs(ctx, topic)
	if err == nil && len(resources) != 1 {
		err = fmt.Errorf("the broker described %d resources", len(resources))
	}
	if err == nil {
		err = resources[0].Err
	}
	switch {
	case errors.Is(err, kerr.UnknownTopicOrPartition):
		return nil, problem.UnknownTopic(topic)
	case err != nil:
		return nil, fmt.Errorf("cluster: describe configs of %s: %w", topic, err)
	}
	out := []TopicConfig{}
	for _, cfg := range resources[0].Configs {
		tc := TopicConfig{Name: cfg.Key, Value: cfg.Value, Source: cfg.Source.String(), Sensitive: cfg.Sensitive}
		for _, syn := range cfg.Synonyms {
			tc.Synonyms = append(tc.Synonyms, ConfigSynonym{Name: syn.Key, Value: syn.Value, Source: syn.Source.String()})
		}
		out = append(out, tc)
	}
	slices.SortFunc(out, func(a, b TopicConfig) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// internalTopics are Kafka's own topics, which Offset Lab never deletes.
var internalTopics = []string{"__consumer_offsets", "__transaction_state", "__share_group_state", "__cluster_metadata"}

// DeleteTopic deletes a topic (DeleteTopics) and waits until metadata no
// longer lists it, so that a topic of the same name can be created next.
// Kafka's internal topics are refused (problem.Invalid); a topic that does not
// exist is an unknown topic. Everything the topic held is gone: the caller
// asks for confirmation first.
func (c *Cluster) DeleteTopic(ctx context.Context, topic string) error {
	if err := ValidateTopicName(topic); err != nil {
		return err
	}
	if slices.Contains(internalTopics, topic) {
		return problem.New(problem.Invalid, "error.topicInternal", "topic", topic)
	}
	resp, err := c.admin.DeleteTopic(ctx, topic)
	if err == nil {
		err = resp.Err
	}
	switch {
	case errors.Is(err, kerr.UnknownTopicOrPartition), errors.Is(err, kerr.UnknownTopicID):
		return problem.UnknownTopic(topic)
	case err != nil:
		return fmt.Errorf("cluster: delete topic %s: %w", topic, err)
	}
	err = wait.Until(ctx, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		details, err := c.admin.ListTopics(ctx, topic)
		if err == nil {
			if d, ok := details[topic]; !ok || d.Err != nil {
				return true, nil
			}
		}
		c.client.ForceMetadataRefresh()
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("cluster: wait for topic %s to be deleted: %w", topic, err)
	}
	return nil
}
