package inspect

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkReadLog reads a 200-offset window at the start and at the end of
// a small and a large partition: time and allocations per read must not
// grow with the partition.
func BenchmarkReadLog(b *testing.B) {
	for _, size := range []int{2_000, 200_000} {
		e := newEnv(b)
		fillPartition(b, e, size)
		for _, where := range []string{"start", "end"} {
			from := int64(0)
			if where == "end" {
				from = int64(size) - DefaultLimit
			}
			b.Run(fmt.Sprintf("records=%d/%s", size, where), func(b *testing.B) {
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					log, err := e.ins.ReadLog(ctx, testTopic, 0, from, DefaultLimit)
					if err != nil {
						b.Fatal(err)
					}
					if len(log.Entries) != DefaultLimit {
						b.Fatalf("got %d entries", len(log.Entries))
					}
				}
			})
		}
	}
}

// fillPartition produces n small non-transactional records in batches of
// about a hundred.
func fillPartition(b *testing.B, e *env, n int) {
	b.Helper()
	const chunk = 10_000
	p := e.producer("raw", kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(chunk+1), kgo.ProducerBatchMaxBytes(8<<10))
	recs := make([]*kgo.Record, 0, chunk)
	for i := 0; i < n; i += chunk {
		recs = recs[:0]
		for j := i; j < min(i+chunk, n); j++ {
			recs = append(recs, &kgo.Record{Key: []byte("key"), Value: fmt.Appendf(nil, "value-%d", j)})
		}
		if err := p.ProduceSync(testCtx(b), recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
}
