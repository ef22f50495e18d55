package cluster

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// configRule is how Apache Kafka 4.3 validates one topic configuration
// (its TopicConfig and LogConfig definitions): the kind of value and its
// range or choices.
type configRule struct {
	kind    string // "int", "long", "double", "bool", "enum", "list", "any"
	min     float64
	max     float64
	choices []string
}

func atLeast(kind string, min float64) configRule {
	return configRule{kind: kind, min: min, max: math.Inf(1)}
}

// topicConfigRules are the topic configurations Kafka 4.3 accepts. A topic
// created with a name outside this table, or a value outside its range,
// is refused before the broker sees it: the embedded broker would store
// max.message.bytes=abc and then fail every produce, and a real broker
// refuses the same with INVALID_CONFIG.
var topicConfigRules = map[string]configRule{
	"cleanup.policy":                          {kind: "list", choices: []string{"delete", "compact"}},
	"compression.type":                        {kind: "enum", choices: []string{"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"}},
	"compression.gzip.level":                  {kind: "int", min: -1, max: 9},
	"compression.lz4.level":                   {kind: "int", min: 1, max: 17},
	"compression.zstd.level":                  {kind: "int", min: -131072, max: 22},
	"delete.retention.ms":                     atLeast("long", 0),
	"file.delete.delay.ms":                    atLeast("long", 0),
	"flush.messages":                          atLeast("long", 1),
	"flush.ms":                                atLeast("long", 0),
	"follower.replication.throttled.replicas": {kind: "any"},
	"leader.replication.throttled.replicas":   {kind: "any"},
	"index.interval.bytes":                    atLeast("int", 0),
	"local.retention.bytes":                   atLeast("long", -2),
	"local.retention.ms":                      atLeast("long", -2),
	"max.compaction.lag.ms":                   atLeast("long", 1),
	"max.message.bytes":                       atLeast("int", 0),
	"message.timestamp.after.max.ms":          atLeast("long", 0),
	"message.timestamp.before.max.ms":         atLeast("long", 0),
	"message.timestamp.type":                  {kind: "enum", choices: []string{"CreateTime", "LogAppendTime"}},
	"min.cleanable.dirty.ratio":               {kind: "double", min: 0, max: 1},
	"min.compaction.lag.ms":                   atLeast("long", 0),
	"min.insync.replicas":                     atLeast("int", 1),
	"preallocate":                             {kind: "bool"},
	"remote.storage.enable":                   {kind: "bool"},
	"remote.log.copy.disable":                 {kind: "bool"},
	"remote.log.delete.on.disable":            {kind: "bool"},
	"retention.bytes":                         atLeast("long", math.MinInt64),
	"retention.ms":                            atLeast("long", -1),
	"segment.bytes":                           atLeast("int", 1<<20),
	"segment.index.bytes":                     atLeast("int", 4),
	"segment.jitter.ms":                       atLeast("long", 0),
	"segment.ms":                              atLeast("long", 1),
	"unclean.leader.election.enable":          {kind: "bool"},
}

// ValidateTopicConfigs checks topic configurations as Kafka would: every
// name known, every value of its kind and in its range. The error names
// the first offending setting (in name order) and what it accepts.
func ValidateTopicConfigs(configs map[string]string) error {
	names := make([]string, 0, len(configs))
	for name := range configs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		rule, ok := topicConfigRules[name]
		if !ok {
			return problem.New(problem.Invalid, "error.topicConfigUnknown", "name", name)
		}
		if accepts := rule.check(configs[name]); accepts != "" {
			return problem.New(problem.Invalid, "error.topicConfigValue", "name", name, "value", configs[name], "accepts", accepts)
		}
	}
	return nil
}

// check returns "" when v is acceptable, else what the rule accepts.
func (r configRule) check(v string) string {
	v = strings.TrimSpace(v)
	rangeText := func() string {
		switch {
		case math.IsInf(r.max, 1) && r.min == math.MinInt64:
			return "a whole number"
		case math.IsInf(r.max, 1):
			return "a whole number, at least " + strconv.FormatFloat(r.min, 'f', -1, 64)
		}
		return "a whole number from " + strconv.FormatFloat(r.min, 'f', -1, 64) + " to " + strconv.FormatFloat(r.max, 'f', -1, 64)
	}
	switch r.kind {
	case "any":
		return ""
	case "bool":
		if v != "true" && v != "false" {
			return "true or false"
		}
	case "enum":
		if !slices.Contains(r.choices, v) {
			return "one of " + strings.Join(r.choices, ", ")
		}
	case "list":
		for _, item := range strings.Split(v, ",") {
			if !slices.Contains(r.choices, strings.TrimSpace(item)) {
				return "a comma-separated list of " + strings.Join(r.choices, ", ")
			}
		}
	case "double":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < r.min || f > r.max {
			return "a number from " + strconv.FormatFloat(r.min, 'f', -1, 64) + " to " + strconv.FormatFloat(r.max, 'f', -1, 64)
		}
	case "int", "long":
		bits := 64
		if r.kind == "int" {
			bits = 32
		}
		n, err := strconv.ParseInt(v, 10, bits)
		if err != nil || float64(n) < r.min || float64(n) > r.max {
			return rangeText()
		}
	}
	return ""
}

// DefaultMaxMessageBytes is Kafka's default message.max.bytes, what a
// topic without its own max.message.bytes accepts.
const DefaultMaxMessageBytes = 1048588

// MaxMessageBytes is the largest record batch topic accepts: its
// max.message.bytes as the broker describes it (a topic setting, or the
// broker's default). One DescribeConfigs request.
func (c *Cluster) MaxMessageBytes(ctx context.Context, topic string) (int, error) {
	configs, err := c.admin.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("cluster: describe configs of %s: %w", topic, err)
	}
	rc, err := configs.On(topic, nil)
	if err != nil {
		return 0, fmt.Errorf("cluster: describe configs of %s: %w", topic, err)
	}
	if rc.Err != nil {
		return 0, fmt.Errorf("cluster: describe configs of %s: %w", topic, rc.Err)
	}
	for _, c := range rc.Configs {
		if c.Key == "max.message.bytes" && c.Value != nil {
			if n, err := strconv.Atoi(*c.Value); err == nil {
				return n, nil
			}
		}
	}
	return DefaultMaxMessageBytes, nil
}
