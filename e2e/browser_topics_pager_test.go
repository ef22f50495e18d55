package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestBrowserTopicsPager: with more topics than one page holds, /topics
// shows 50 and a pager; Next opens the rest, and the name filter finds
// one topic among them.
func TestBrowserTopicsPager(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	for i := range 55 {
		a.do("POST", "/api/topics", map[string]any{"name": fmt.Sprintf("pg-%02d-%s", i, a.suffix), "partitions": 1}, http.StatusCreated, nil)
	}
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics?q=" + a.suffix)
	cards := `document.querySelectorAll('[data-testid="topic-card"]').length`
	p.wait("the first page: 50 topics and a pager", cards+` === 50 && byTestID('topics-pager')?.dataset.page === '1' && !!byTestID('topics-next')`, 10*time.Second)
	if got := p.text("topics-range"); got != "Topics 1–50 of 55" {
		t.Errorf("the pager says %q, want %q", got, "Topics 1–50 of 55")
	}
	p.click("topics-next")
	p.waitNav("the second page", `location.search.includes('page=2') && document.querySelector('#app')?.dataset.ready === 'true' && `+cards+` === 5 && !!byTestID('topics-prev')`, 10*time.Second)
	checkTableText(t, p)
	shootExplorer(t, p, "topics-page-2")

	p.fill("topic-filter-q", "pg-42-"+a.suffix)
	p.click("topic-filter-submit")
	p.waitNav("the filtered list", `location.search.includes('q=pg-42') && document.querySelector('#app')?.dataset.ready === 'true' && `+cards+` === 1 && !byTestID('topics-pager')`, 10*time.Second)
}
