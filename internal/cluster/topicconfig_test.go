package cluster

import (
	"testing"

	"github.com/offsetlab/offsetlab/internal/problem"
)

func TestValidateTopicConfigs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		configs map[string]string
		wantKey string // "" = accepted
	}{
		{"none", nil, ""},
		{"seed 002", map[string]string{"min.insync.replicas": "2"}, ""},
		{"compaction", map[string]string{"cleanup.policy": "compact,delete", "min.cleanable.dirty.ratio": "0.01", "segment.ms": "100"}, ""},
		{"unlimited retention", map[string]string{"retention.ms": "-1", "retention.bytes": "-1"}, ""},
		{"max.message.bytes not a number", map[string]string{"max.message.bytes": "abc"}, "error.topicConfigValue"},
		{"unknown name", map[string]string{"bogus.config": "1"}, "error.topicConfigUnknown"},
		{"negative retention", map[string]string{"retention.ms": "-5"}, "error.topicConfigValue"},
		{"zero segment", map[string]string{"segment.bytes": "0"}, "error.topicConfigValue"},
		{"int overflow", map[string]string{"max.message.bytes": "3000000000"}, "error.topicConfigValue"},
		{"bad policy", map[string]string{"cleanup.policy": "shred"}, "error.topicConfigValue"},
		{"bad bool", map[string]string{"preallocate": "yes"}, "error.topicConfigValue"},
		{"ratio above 1", map[string]string{"min.cleanable.dirty.ratio": "1.5"}, "error.topicConfigValue"},
		{"timestamp type", map[string]string{"message.timestamp.type": "LogAppendTime"}, ""},
		{"min.insync.replicas 0", map[string]string{"min.insync.replicas": "0"}, "error.topicConfigValue"},
	}
	for _, tt := range tests {
		err := ValidateTopicConfigs(tt.configs)
		if got := problem.KeyOf(err); got != tt.wantKey {
			t.Errorf("%s: error %v (key %q), want key %q", tt.name, err, got, tt.wantKey)
		}
		if err != nil && problem.KindOf(err) != problem.Invalid {
			t.Errorf("%s: kind %s, want invalid", tt.name, problem.KindOf(err))
		}
	}
}

func TestValidateNewName(t *testing.T) {
	t.Parallel()
	existing := []string{"orders", "order.totals"}
	tests := []struct {
		name    string
		wantKey string
	}{
		{"order-totals", ""},
		{"__consumer_offsets", "error.topicNameReserved"},
		{"__evil", "error.topicNameReserved"},
		{"order_totals", "error.topicNameCollides"},
		{"orders", ""}, // the broker answers TOPIC_ALREADY_EXISTS
		{"bad name", "error.topicNameInvalid"},
	}
	for _, tt := range tests {
		if got := problem.KeyOf(validateNewName(tt.name, existing)); got != tt.wantKey {
			t.Errorf("validateNewName(%q) key %q, want %q", tt.name, got, tt.wantKey)
		}
	}
}
