package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBrowserReducedMotion: new cells flash for attention, unless the
// viewer asked the system for reduced motion.
func TestBrowserReducedMotion(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	tests := []struct {
		motion    string
		animating bool
	}{
		{"no-preference", true},
		{"reduce", false},
	}
	for _, tt := range tests {
		t.Run(tt.motion, func(t *testing.T) {
			t.Parallel()
			a := startApp(t, embedded)
			topic := a.name("motion")
			a.createTopic(topic)
			p := openPage(t, a, chromium, 1280, 720)
			p.do("emulate prefers-reduced-motion: "+tt.motion, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
				_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: tt.motion}},
				})
				return err
			}))
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("the stream to connect", `byTestID('stream-status').dataset.state === 'open'`, 15*time.Second)

			client, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := client.ProduceSync(ctx, kgo.StringRecord("new")).FirstErr(); err != nil {
				t.Fatal(err)
			}
			p.wait("offset 0 to appear", `cell(0)?.dataset.kind === 'data'`, 5*time.Second)
			// The flash class stays after its animation ends, so this does
			// not depend on how fast the check runs.
			var animation string
			p.eval(`cell(0).classList.contains('flash') ? getComputedStyle(cell(0)).animationName : 'none'`, &animation)
			if got := animation == "flash"; got != tt.animating {
				t.Fatalf("prefers-reduced-motion: %s: the new cell's animation is %q, want animating=%v", tt.motion, animation, tt.animating)
			}
		})
	}
}
