package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/web/httpx"
	"github.com/offsetlab/offsetlab/web/static"
)

// pageLab is the part of the lab the pages read: topics, one topic,
// whether the broker answers, and the last write of each topic (ReadLog
// answers one entry with that timestamp).
type pageLab struct {
	httpx.Lab // nil: the pages must not call anything else
	topics    []cluster.TopicInfo
	down      bool
	lastWrite map[string]time.Time
}

func (c *pageLab) Mode() cluster.Mode         { return cluster.Embedded }
func (c *pageLab) Brokers() []string          { return []string{"127.0.0.1:9092"} }
func (c *pageLab) ReadOnly() bool             { return false }
func (c *pageLab) Security() cluster.Security { return cluster.Security{} }
func (c *pageLab) SchemaRegistry() string     { return "" }

func (c *pageLab) Topics(context.Context) ([]cluster.TopicInfo, error) {
	if c.down {
		return nil, problem.BrokerUnreachable(errors.New("dial tcp: connection refused"))
	}
	return c.topics, nil
}

func (c *pageLab) Topic(_ context.Context, name string) (cluster.TopicInfo, error) {
	if c.down {
		return cluster.TopicInfo{}, problem.BrokerUnreachable(errors.New("dial tcp: connection refused"))
	}
	for _, t := range c.topics {
		if t.Name == name {
			return t, nil
		}
	}
	return cluster.TopicInfo{}, problem.UnknownTopic(name)
}

func (c *pageLab) Log(_ context.Context, topic string, partition int32, from int64, _ int) (*inspect.Log, error) {
	ts, ok := c.lastWrite[topic]
	if !ok {
		return nil, errors.New("no data")
	}
	return &inspect.Log{Topic: topic, Partition: partition, Entries: []inspect.Entry{{Offset: from, Kind: inspect.KindData, Timestamp: ts}}}, nil
}

func topicWith(name string, hw ...int64) cluster.TopicInfo {
	t := cluster.TopicInfo{Name: name}
	for i, h := range hw {
		t.Partitions = append(t.Partitions, cluster.PartitionInfo{Partition: int32(i), LastStableOffset: h, HighWatermark: h})
	}
	return t
}

func TestPages(t *testing.T) {
	t.Parallel()
	now := time.Now()
	topics := []cluster.TopicInfo{
		topicWith("__consumer_offsets", 40),
		topicWith("old", 5),
		topicWith("recent", 0, 8),
		topicWith("empty", 0),
	}
	lastWrite := map[string]time.Time{"__consumer_offsets": now, "old": now.Add(-time.Hour), "recent": now.Add(-time.Minute)}
	tests := []struct {
		name   string
		topics []cluster.TopicInfo
		down   bool
		// teacherAt and teacherWrote are what the teacher watched and
		// wrote last, if anything.
		teacherAt, teacherWrote *choiceRef
		path                    string
		status                  int
		location                string
		contains                []string
	}{
		{name: "home without topics invites to set up seed 000", path: "/", status: http.StatusOK,
			// "Nothing to show yet." and the next sentence with a space between.
			contains: []string{`data-testid="empty-state"`, `Set up seed 000`, `data-has-topic="false"`, `Nothing to show yet.</span></strong> <span data-i18n="empty.teacher">`}},
		// A client of the Kafka port wrote "recent" last: / must not
		// open it on every laptop, only what the teacher chose.
		{name: "home does not follow the partition any client wrote last", topics: topics, path: "/", status: http.StatusOK,
			contains: []string{`data-testid="empty-state"`, `Pick a partition above`, `data-has-topic="false"`}},
		{name: "home opens the partition the teacher watches", topics: topics, teacherAt: &choiceRef{"old", 0}, teacherWrote: &choiceRef{"recent", 1},
			path: "/", status: http.StatusFound, location: "/topics/old/partitions/0"},
		{name: "home opens the partition the teacher wrote last", topics: topics, teacherWrote: &choiceRef{"recent", 0},
			path: "/", status: http.StatusFound, location: "/topics/recent/partitions/0"},
		{name: "home skips a choice whose topic is gone", topics: topics, teacherAt: &choiceRef{"deleted", 0}, teacherWrote: &choiceRef{"old", 0},
			path: "/", status: http.StatusFound, location: "/topics/old/partitions/0"},
		{name: "home keeps the view's query", topics: topics, teacherAt: &choiceRef{"recent", 1}, path: "/?at=5&sel=6", status: http.StatusFound,
			location: "/topics/recent/partitions/1?at=5&sel=6"},
		{name: "a partition's page", topics: topics, path: "/topics/recent/partitions/1", status: http.StatusOK,
			contains: []string{`data-topic="recent"`, `data-partition="1"`, `data-has-topic="true"`, `<title>recent-1 · Offset Lab</title>`,
				`value="recent/1" selected`, `data-testid="txn-crash"`, `data-testid="processor-crash"`, `data-testid="seed-setup"`,
				`<link rel="icon" type="image/svg+xml" href="/static/`, `role="tablist"`, `data-testid="dock-tab-lesson" data-tab="lesson" aria-controls="dock-lesson" aria-selected="true" tabindex="0"`,
				`data-testid="dock-act" aria-labelledby="dock-tab-act" tabindex="0" hidden`, `data-testid="replay-scrubber"`, `data-testid="save-view"`,
				// The produce form starts as Kafka clients since 3.0: acks=all, idempotence on.
				`<option value="all" selected data-i18n="producer.acksAll">`, `data-testid="produce-idempotent" checked>`}},
		{name: "the favicon", path: "/favicon.ico", status: http.StatusFound, location: static.URL("favicon.svg")},
		{name: "an unknown topic says so and offers to create it", topics: topics, path: "/topics/nope/partitions/0", status: http.StatusNotFound,
			contains: []string{`Topic &#34;nope&#34; does not exist (yet)`, `id="create-name" value="nope"`}},
		{name: "an unknown partition says so", topics: topics, path: "/topics/old/partitions/3", status: http.StatusNotFound,
			contains: []string{`has 1 partition; partition 3 does not exist`}},
		{name: "a partition that is not a number", topics: topics, path: "/topics/old/partitions/x", status: http.StatusBadRequest,
			contains: []string{`is not a partition number`}},
		{name: "an unreachable broker shows the banner at once", down: true, path: "/", status: http.StatusOK,
			contains: []string{`data-testid="broker-banner" role="alert">`, `not reachable`}},
		{name: "a partition's page while the broker is down still loads", down: true, path: "/topics/old/partitions/0", status: http.StatusOK,
			contains: []string{`data-has-topic="true"`, `data-testid="broker-banner" role="alert">`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := New(Deps{Lab: &produceLab{pageLab{topics: tt.topics, down: tt.down, lastWrite: lastWrite}}}, nil)
			if c := tt.teacherWrote; c != nil {
				if code := produceTo(srv.Handler(), c.topic, c.partition); code != http.StatusOK {
					t.Fatalf("the teacher's produce: %d", code)
				}
			}
			if c := tt.teacherAt; c != nil {
				srv.api.Watching(httptest.NewRequest("GET", "/", nil), c.topic, c.partition)
			}
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
			if rec.Code != tt.status {
				t.Fatalf("GET %s: status %d, want %d; body %.300s", tt.path, rec.Code, tt.status, rec.Body.String())
			}
			if got := rec.Header().Get("Location"); got != tt.location {
				t.Fatalf("GET %s: Location %q, want %q", tt.path, got, tt.location)
			}
			body := rec.Body.String()
			for _, want := range tt.contains {
				if !strings.Contains(body, want) {
					t.Errorf("GET %s: body lacks %s", tt.path, want)
				}
			}
			if rec.Code != http.StatusFound {
				checkStrictPage(t, rec, body)
			}
		})
	}
}

// checkStrictPage checks what the CSP demands of a page: no inline script
// or style, and assets by versioned URL.
func checkStrictPage(t *testing.T, rec *httptest.ResponseRecorder, body string) {
	t.Helper()
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "style-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
	if !strings.Contains(body, `<html lang="en">`) {
		t.Error(`page lacks <html lang="en">`)
	}
	if regexp.MustCompile(`\sstyle=`).MatchString(body) || strings.Contains(body, "<style") {
		t.Error("page has inline style, which the CSP blocks")
	}
	for _, m := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
		if !strings.Contains(m, `src="/static/`+static.Version()+`/`) {
			t.Errorf("script %s is inline or unversioned", m)
		}
	}
	if !strings.Contains(body, `href="/static/`+static.Version()+`/common/style.css"`) {
		t.Error("page does not link the versioned stylesheet")
	}
}

func TestStaticAssets(t *testing.T) {
	t.Parallel()
	srv := New(Deps{Lab: &pageLab{}}, nil)
	v := static.Version()
	tests := []struct {
		path, status, contentType, cache, body string
	}{
		{path: "/static/" + v + "/partition/app.js", status: "200", contentType: "text/javascript", cache: "immutable", body: "import"},
		{path: "/static/" + v + "/common/style.css", status: "200", contentType: "text/css", cache: "immutable", body: "--slot-min"},
		{path: "/static/0123456789ab/partition/app.js", status: "200", contentType: "text/javascript", cache: "no-cache", body: "import"},
		{path: "/static/" + v + "/", status: "404"},
		{path: "/static/" + v + "/missing.js", status: "404"},
		{path: "/static/" + v + "/../pages.go", status: "404"},
		{path: "/static/" + v + "/sections/sections.js", status: "200", contentType: "text/javascript", cache: "immutable", body: "../common/api.js"},
		{path: "/static/" + v + "/i18n/ko.json", status: "200", contentType: "application/json", cache: "immutable", body: "lang.self"},
		// What sits beside the assets is not one of them.
		{path: "/static/" + v + "/assets.go", status: "404"},
		{path: "/static/" + v + "/package.json", status: "404"},
		{path: "/static/" + v + "/test/cache.test.js", status: "404"},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
		body, _ := io.ReadAll(rec.Body)
		if got := fmt.Sprint(rec.Code); got != tt.status {
			t.Errorf("GET %s: status %s, want %s", tt.path, got, tt.status)
			continue
		}
		if tt.status != "200" {
			continue
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
			t.Errorf("GET %s: Content-Type %q, want %s", tt.path, ct, tt.contentType)
		}
		if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, tt.cache) {
			t.Errorf("GET %s: Cache-Control %q, want %s", tt.path, cc, tt.cache)
		}
		if !strings.Contains(string(body), tt.body) {
			t.Errorf("GET %s: body lacks %q", tt.path, tt.body)
		}
	}
	if len(v) != 12 {
		t.Errorf("asset version %q, want 12 hex digits", v)
	}
}

// choiceRef names a partition the teacher watched or wrote to.
type choiceRef struct {
	topic     string
	partition int32
}

// produceLab is pageLab that takes writes, each to the partition asked
// for, else to partition 1.
type produceLab struct{ pageLab }

func (c *produceLab) Produce(_ context.Context, req producer.Request) (*producer.Outcome, error) {
	out := &producer.Outcome{}
	for range req.Values {
		p := int32(1)
		if req.Partition != nil {
			p = *req.Partition
		}
		out.Results = append(out.Results, producer.Result{Partition: p})
	}
	return out, nil
}

// produceTo POSTs one record to topic/partition through h.
func produceTo(h http.Handler, topic string, partition int32) int {
	body := fmt.Sprintf(`{"topic":%q,"partition":%d,"values":["v"],"acks":"all"}`, topic, partition)
	req := httptest.NewRequest("POST", "/api/produce", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// TestHomeFollowsTheTeachersWrites: a write through the dashboard by the
// teacher makes / open its partition; in classroom mode a student's write
// is refused and changes nothing.
func TestHomeFollowsTheTeachersWrites(t *testing.T) {
	t.Parallel()
	topics := []cluster.TopicInfo{topicWith("a", 1), topicWith("b", 1, 1)}
	home := func(h http.Handler) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		return rec.Header().Get("Location")
	}
	produce := func(h http.Handler, topic string) int { return produceTo(h, topic, 1) }

	single := New(Deps{Lab: &produceLab{pageLab{topics: topics}}}, nil).Handler()
	if got := home(single); got != "" {
		t.Fatalf("before any write / redirects to %q", got)
	}
	if code := produce(single, "b"); code != http.StatusOK {
		t.Fatalf("produce: %d", code)
	}
	if got, want := home(single), "/topics/b/partitions/1"; got != want {
		t.Errorf("after the teacher's write / redirects to %q, want %q", got, want)
	}

	class := New(Deps{Lab: &produceLab{pageLab{topics: topics}}}, nil, WithAccess(Access{Classroom: true})).Handler()
	if code := produce(class, "b"); code != http.StatusForbidden {
		t.Fatalf("a student's produce: %d, want 403", code)
	}
	if got := home(class); got != "" {
		t.Errorf("after a student's write / redirects to %q", got)
	}
}
