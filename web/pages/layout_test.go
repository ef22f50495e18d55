package pages

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// render writes a component to a string.
func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// mastheadOf is the <header class="masthead"> of a page, up to the
// partition page's own picker.
func mastheadOf(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<header class="masthead">.*?</header>`).FindString(page)
	if m == "" {
		t.Fatalf("no masthead in %.200s…", page)
	}
	m, _, _ = strings.Cut(strings.TrimSuffix(m, "</header>"), `<form class="picker"`)
	m = strings.TrimSpace(m)
	return regexp.MustCompile(`(?s)<div class="brand">.*?<p class="cluster"`).ReplaceAllString(m, `<p class="cluster"`)
}

// TestOneMasthead: every page draws the same masthead from layout.templ —
// the cluster, the navigation with its own section marked, the language
// switch — and only the partition page adds its picker and makes the
// brand its heading.
func TestOneMasthead(t *testing.T) {
	t.Parallel()
	frame := layoutView{Mode: "embedded", KafkaAddr: "127.0.0.1:9092", Role: "teacher"}
	with := func(section string) layoutView { v := frame; v.Section = section; return v }
	pages := map[string]string{
		sectionLog:          render(t, partitionPage(partitionView{layoutView: with(sectionLog)})),
		sectionTopics:       render(t, topicsPage(topicsView{layoutView: with(sectionTopics)})),
		sectionGroups:       render(t, groupsPage(groupsView{layoutView: with(sectionGroups)})),
		sectionTransactions: render(t, transactionsPage(transactionsView{layoutView: with(sectionTransactions)})),
	}
	normalised := func(section, masthead string) string {
		return strings.Replace(masthead, `data-testid="nav-`+section+`" aria-current="page"`, `data-testid="nav-`+section+`"`, 1)
	}
	want := normalised(sectionLog, mastheadOf(t, pages[sectionLog]))
	for section, page := range pages {
		m := mastheadOf(t, page)
		if !strings.Contains(m, `data-testid="nav-`+section+`" aria-current="page"`) {
			t.Errorf("%s: its own section is not the current one in %s", section, m)
		}
		if got := normalised(section, m); got != want {
			t.Errorf("%s's masthead differs from the partition page's:\n%s\nwant\n%s", section, got, want)
		}
		if n := strings.Count(page, "<h1"); n != 1 {
			t.Errorf("%s: %d h1 headings, want 1", section, n)
		}
		for _, part := range []string{`data-testid="broker-banner"`, `data-testid="cluster"`, `data-testid="site-nav"`, `data-testid="ui-lang-switch"`, `<link rel="icon"`} {
			if !strings.Contains(page, part) {
				t.Errorf("%s: the frame lacks %s", section, part)
			}
		}
	}
	if !strings.Contains(pages[sectionLog], `data-testid="topic-picker"`) || strings.Contains(pages[sectionTopics], `data-testid="topic-picker"`) {
		t.Error("the picker belongs to the partition page's masthead alone")
	}
}

// TestLayoutView: who may change the cluster, and the document's title.
func TestLayoutView(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		v                 layoutView
		teacher, canWrite bool
		title             string
	}{
		{"the teacher on a writable cluster", layoutView{Role: "teacher"}, true, true, "Offset Lab"},
		{"the teacher on a read-only cluster", layoutView{Role: "teacher", ReadOnly: true}, true, false, "Offset Lab"},
		{"a student", layoutView{Role: "student", Title: "Topics"}, false, false, "Topics · Offset Lab"},
	}
	for _, tt := range tests {
		if got := tt.v.Teacher(); got != tt.teacher {
			t.Errorf("%s: Teacher() = %v", tt.name, got)
		}
		if got := tt.v.CanWrite(); got != tt.canWrite {
			t.Errorf("%s: CanWrite() = %v", tt.name, got)
		}
		if got := tt.v.DocumentTitle(); got != tt.title {
			t.Errorf("%s: DocumentTitle() = %q, want %q", tt.name, got, tt.title)
		}
	}
	if got := render(t, translatedMessage(catalog.M("page.noTopic", "topic", `"x"`))); !strings.Contains(got, `data-i18n="page.noTopic"`) || !strings.Contains(got, `data-i18n-args="{&#34;topic&#34;:&#34;\&#34;x\&#34;&#34;}"`) {
		t.Errorf("translatedMessage = %s", got)
	}
}
