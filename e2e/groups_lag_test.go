package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestGroupsListLag, on the embedded broker and on real Kafka: the groups
// list gives each group its offset lag summed over its partitions (high
// watermark − committed, as kafka-consumer-groups.sh counts it), in GET
// /api/groups and on the groups page (in Chromium at 1280×720 and
// 1920×1080, inside the window).
func TestGroupsListLag(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			topic, group := a.name("lagging"), a.name("lagging-readers")
			a.do("POST", "/api/topics", map[string]any{"name": topic, "partitions": 2}, http.StatusCreated, nil)
			a.do("POST", "/api/produce", map[string]any{"topic": topic, "partition": 0, "values": []string{"a", "b", "c", "d", "e"}}, http.StatusOK, nil)
			a.do("POST", "/api/produce", map[string]any{"topic": topic, "partition": 1, "values": []string{"f", "g"}}, http.StatusOK, nil)
			offsets := kadm.Offsets{}
			offsets.Add(kadm.Offset{Topic: topic, Partition: 0, At: 2, LeaderEpoch: -1})
			offsets.Add(kadm.Offset{Topic: topic, Partition: 1, At: 1, LeaderEpoch: -1})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if committed, err := kadm.NewClient(a.kafka.Client()).CommitOffsets(ctx, group, offsets); err != nil || committed.Error() != nil {
				t.Fatalf("commit: %v %v", err, committed.Error())
			}
			var list struct {
				Groups []struct {
					Group string `json:"group"`
					Lag   int64  `json:"lag"`
				} `json:"groups"`
			}
			a.do("GET", "/api/groups", nil, http.StatusOK, &list)
			found := false
			for _, g := range list.Groups {
				if g.Group == group {
					found = true
					if g.Lag != 4 {
						t.Errorf("GET /api/groups: %s lags %d, want 3 + 1 = 4", group, g.Lag)
					}
				}
			}
			if !found {
				t.Fatalf("GET /api/groups does not list %s: %+v", group, list)
			}
			status, body := a.request("GET", "/groups", nil)
			if want := fmt.Sprintf(`data-testid="group-lag" data-lag="4"`); status != http.StatusOK || !strings.Contains(string(body), want) {
				t.Errorf("the groups page: %d, lacks %s", status, want)
			}
			if testing.Short() {
				return
			}
			chromium := chromiumPath(t)
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				p := openPage(t, a, chromium, size[0], size[1])
				p.open("/groups")
				cell := fmt.Sprintf(`document.querySelector('[data-testid="group-row"][data-group=%q] [data-testid="group-lag"]')`, group)
				var shown struct {
					Text    string `json:"text"`
					Visible bool   `json:"visible"`
				}
				p.eval(`(() => { const c = `+cell+`; c.scrollIntoView(); const r = c.getBoundingClientRect(); return {text: c.textContent.trim(), visible: r.width > 0 && r.right <= innerWidth + 1}; })()`, &shown)
				if shown.Text != "4" || !shown.Visible {
					t.Errorf("at %v the groups page shows %s's lag as %+v", size, group, shown)
				}
			}
		})
	}
}
