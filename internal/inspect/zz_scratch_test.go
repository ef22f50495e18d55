package inspect

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestScratchCompaction(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			f := newFixture(t, kind, map[string]string{"cleanup.policy": "compact", "segment.ms": "1", "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0"})
			p := f.producer("")
			tx := f.producer("tx")
			send := func(cl *kgo.Client, k string, v *string) {
				r := &kgo.Record{Key: []byte(k)}
				if v != nil {
					r.Value = []byte(*v)
				}
				if err := cl.ProduceSync(testCtx(t), r).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			s := func(v string) *string { return &v }
			send(p, "pear", s("pear 300"))
			send(p, "apple", s("apple 100"))
			send(p, "apple", s("apple 120"))
			f.begin(tx)
			send(tx, "kiwi", s("kiwi 50"))
			f.end(tx, true)
			send(p, "apple", s("apple 130"))
			send(p, "kiwi", nil)
			send(p, "plum", s("plum 80"))
			start := time.Now()
			last := ""
			for time.Since(start) < 90*time.Second {
				if f.fake != nil {
					f.fake.Compact()
				}
				l, err := f.ins.ReadLog(context.Background(), f.topic, 0, 0, 100)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "ls=%d lso=%d hw=%d:", l.LogStartOffset, l.LastStableOffset, l.HighWatermark)
				for _, e := range l.Entries {
					switch e.Kind {
					case KindGap:
						fmt.Fprintf(&b, " %d:gap(%s)", e.Offset, e.Reason)
					case KindControl:
						fmt.Fprintf(&b, " %d:%s[%d-%d]", e.Offset, e.Marker, e.BatchBaseOffset, e.BatchLastOffset)
					default:
						v := "null"
						if e.Value != nil {
							v = *e.Value
						}
						fmt.Fprintf(&b, " %d:%q[%d-%d]", e.Offset, v, e.BatchBaseOffset, e.BatchLastOffset)
					}
				}
				if b.String() != last {
					last = b.String()
					t.Logf("%5.1fs %s", time.Since(start).Seconds(), last)
				}
				time.Sleep(time.Second)
			}
		})
	}
}
