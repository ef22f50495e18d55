package lessons

import (
	"testing"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// TestCheckValuesInKorean: a check's structured value reads in the
// viewer's language word by word (the marker names stay as Kafka prints
// them), while record values keep their words.
func TestCheckValuesInKorean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fact   Fact
		value  string
		en, ko string
	}{
		{FactShape, "0:aborted 1:ABORT 2:committed 3:COMMIT", "0:aborted 1:ABORT 2:committed 3:COMMIT", "0:중단됨 1:ABORT 2:커밋됨 3:COMMIT"},
		{FactGaps, "1-3 compacted, 6 compacted", "1-3 compacted, 6 compacted", "1-3 컴팩션됨, 6 컴팩션됨"},
		{FactEnded, "aborted", "aborted", "중단됨"},
		{FactPID, "yes", "yes", "예"},
		{FactRecords, "0: O-7 created · 3: open", "0: O-7 created · 3: open", "0: O-7 created · 3: open"},
	}
	for _, tt := range tests {
		if got := value(catalog.English, tt.fact, tt.value); got != tt.en {
			t.Errorf("value(en, %s, %q) = %q, want %q", tt.fact, tt.value, got, tt.en)
		}
		if got := value(catalog.Korean, tt.fact, tt.value); got != tt.ko {
			t.Errorf("value(ko, %s, %q) = %q, want %q", tt.fact, tt.value, got, tt.ko)
		}
	}
}
