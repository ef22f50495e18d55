package cluster

import (
	"testing"

	"github.com/offsetlab/offsetlab/internal/problem"
)

func TestValidateTopicName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"orders", true},
		{"order-totals_tx.v2", true},
		{"", false},
		{".", false},
		{"..", false},
		{"has space", false},
		{"slash/no", false},
		{string(make([]byte, 250)), false},
	}
	for _, tt := range tests {
		err := ValidateTopicName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateTopicName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && problem.KindOf(err) != problem.Invalid {
			t.Errorf("ValidateTopicName(%q) error %v is not Invalid", tt.name, err)
		}
	}
}
