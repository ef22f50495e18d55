package lessons

import (
	"os"
	"strings"
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

// TestLesson4ReasonNeedsJavaOnly: on the embedded broker lesson 4 says
// what --local-kafka triple needs as docs/real-kafka.md does — Java 17 or later,
// the jars downloaded from Maven Central on the first start — and never
// that Maven itself is needed.
func TestLesson4ReasonNeedsJavaOnly(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/real-kafka.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "It needs Java 17+ only (no\nMaven") {
		t.Fatal("docs/real-kafka.md no longer says --local-kafka needs Java 17+ only: update lesson 4's reason with it")
	}
	for _, key := range []string{"lesson.unavailable.replication", "lesson.unavailable.replication.java"} {
		for _, lang := range catalog.Languages() {
			s := catalog.Text(lang, key, nil)
			for _, want := range []string{"--local-kafka triple", "Java 17", "Maven Central"} {
				if !strings.Contains(s, want) {
					t.Errorf("%s %s does not say %q: %s", lang, key, want, s)
				}
			}
			for _, wrong := range []string{"needs Maven", "Maven이 필요"} {
				if strings.Contains(s, wrong) {
					t.Errorf("%s %s says %q, but --local-kafka needs Java only: %s", lang, key, wrong, s)
				}
			}
		}
	}
}
