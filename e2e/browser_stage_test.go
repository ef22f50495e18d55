package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserStageScreenshots saves the stage of lesson 2's end state at
// presenter (1280×720, 1920×1080) and phone size, in English and Korean,
// for a person to look at.
func TestBrowserStageScreenshots(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	st := a.runLesson("2", true)
	if st.Status != "finished" {
		t.Fatalf("lesson 2 ended %s", st.Status)
	}
	topic := st.Names["order-totals-tx"]
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("lesson 2's log", `cell(7)?.dataset.marker === 'COMMIT' && byTestID('lessons-panel')?.dataset.ready === 'true'`, 15*time.Second)
	for _, lang := range []string{"en", "ko"} {
		p.click("ui-lang-" + lang)
		for _, size := range []struct {
			name          string
			width, height int64
			phone         bool
		}{
			{"1280x720", 1280, 720, false},
			{"1920x1080", 1920, 1080, false},
			{"phone-390x844", 390, 844, true},
		} {
			p.screenshot(fmt.Sprintf("stage-lesson2-%s-%s", size.name, lang), size.width, size.height, size.phone)
		}
		p.do("back to 1280×720", chromedp.EmulateViewport(1280, 720))
	}
	_ = http.StatusOK
}
