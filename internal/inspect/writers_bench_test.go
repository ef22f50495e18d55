package inspect

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkWriters numbers the producers of a partition from its log
// start, as a live feed does once when a page first opens it: batch
// headers only, so its time follows the bytes, not the records.
func BenchmarkWriters(b *testing.B) {
	for _, size := range []int{50_000, 500_000} {
		e := newEnv(b)
		fillPartition(b, e, size)
		b.Run(fmt.Sprintf("records=%d", size), func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				w, err := e.ins.Writers(ctx, testTopic, 0, -1, -1, 64<<20)
				if err != nil {
					b.Fatal(err)
				}
				if w.To != int64(size) {
					b.Fatalf("writers %+v", w)
				}
			}
		})
	}
}
