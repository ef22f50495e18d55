package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestTopicPageNamesItsLesson: the topic page of a topic a lesson's run
// made says which lesson (its title, linked to the Log page where the run
// is open; in Korean after the page's switch, from the catalogue); a topic
// no lesson made says nothing of the kind.
func TestTopicPageNamesItsLesson(t *testing.T) {
	t.Parallel()
	a := startApp(t, embedded)
	run := a.startLessonRun("7")
	a.do("POST", "/api/lessons/runs/"+run.ID+"/next", nil, http.StatusOK, nil) // creates its topic
	prices := run.Names["prices"]
	if prices == "" {
		t.Fatalf("lesson 7's names changed: %v", run.Names)
	}
	status, body := a.request("GET", "/topics/"+prices, nil)
	page := string(body)
	if status != http.StatusOK || !strings.Contains(page, `data-testid="topic-lesson"`) ||
		!strings.Contains(page, `data-i18n="lesson.l7.title"`) || !strings.Contains(page, "Lesson 7 — Compaction") {
		t.Errorf("GET /topics/%s: %d; want the page to name lesson 7", prices, status)
	}
	own := a.name("plain")
	a.createTopic(own)
	if _, body := a.request("GET", "/topics/"+own, nil); strings.Contains(string(body), `data-testid="topic-lesson"`) {
		t.Errorf("the page of %s, which no lesson made, names a lesson", own)
	}
}
