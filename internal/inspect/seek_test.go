package inspect

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

func TestOffsetForTimestamp(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			base := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
			p := f.producer("")
			for i, v := range []string{"a", "b", "c"} {
				rec := &kgo.Record{Value: []byte(v), Timestamp: base.Add(time.Duration(i) * time.Second)}
				if err := p.ProduceSync(testCtx(t), rec).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			ms := base.UnixMilli()
			tests := []struct {
				at   int64
				want TimestampOffset
			}{
				{0, TimestampOffset{0, ms}},
				{ms, TimestampOffset{0, ms}},
				{ms + 1, TimestampOffset{1, ms + 1000}},
				{ms + 2000, TimestampOffset{2, ms + 2000}},
				{ms + 2001, TimestampOffset{3, -1}},
			}
			for _, tt := range tests {
				got, err := f.ins.OffsetForTimestamp(testCtx(t), f.topic, 0, tt.at)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Errorf("at %d: got %+v, want %+v", tt.at, got, tt.want)
				}
			}
			if _, err := f.ins.OffsetForTimestamp(testCtx(t), f.topic, 0, -1); !errors.Is(err, ErrInvalidRange) {
				t.Errorf("negative timestamp: got %v, want ErrInvalidRange", err)
			}
			if _, err := f.ins.OffsetForTimestamp(testCtx(t), "no-such-topic", 0, ms); !problem.Is(err, "error.unknownTopic") {
				t.Errorf("unknown topic: got %v, want ErrUnknownTopic", err)
			}
		})
	}
}
