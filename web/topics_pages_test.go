package web

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// TestTopicsPaged: the topics page and GET /api/topics?offset=&limit=
// answer one page of a long list, never the whole of it, and a topic
// with many partitions shows its first rows and a link to the rest.
func TestTopicsPaged(t *testing.T) {
	t.Parallel()
	var topics []cluster.TopicInfo
	for i := range 120 {
		ti := cluster.TopicInfo{Name: fmt.Sprintf("t%03d", i)}
		n := 1
		if i == 50 {
			n = 30
		}
		for p := range n {
			ti.Partitions = append(ti.Partitions, cluster.PartitionInfo{Partition: int32(p)})
		}
		topics = append(topics, ti)
	}
	srv := New(Deps{Lab: &pageLab{topics: topics}}, nil)
	get := func(path string) string {
		t.Helper()
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d %.300s", path, rec.Code, rec.Body.String())
		}
		return rec.Body.String()
	}
	tests := []struct {
		path              string
		cards, rows       int
		first, page, more string
	}{
		{"/topics", 50, 50, "t000", `data-page="1" data-pages="3"`, ""},
		{"/topics?page=2", 50, 69, "t050", `data-page="2" data-pages="3"`, "10 more partition"},
		{"/topics?page=3", 20, 20, "t100", `data-page="3" data-pages="3"`, ""},
		{"/topics?page=99", 20, 20, "t100", `data-page="3" data-pages="3"`, ""},
		{"/topics?q=t11", 10, 10, "t110", `value="t11"`, ""},
	}
	for _, tt := range tests {
		body := get(tt.path)
		if got := strings.Count(body, `data-testid="topic-card"`); got != tt.cards {
			t.Errorf("GET %s: %d topic cards, want %d", tt.path, got, tt.cards)
		}
		if got := strings.Count(body, `data-testid="partition-row"`); got != tt.rows {
			t.Errorf("GET %s: %d partition rows, want %d", tt.path, got, tt.rows)
		}
		if !strings.Contains(body, `data-topic="`+tt.first+`"`) || !strings.Contains(body, tt.page) {
			t.Errorf("GET %s: lacks topic %s or pager %s", tt.path, tt.first, tt.page)
		}
		if tt.more != "" && !strings.Contains(body, tt.more) {
			t.Errorf("GET %s: lacks %q", tt.path, tt.more)
		}
	}

	var page struct {
		Topics []cluster.TopicInfo `json:"topics"`
		Total  int                 `json:"total"`
		Next   *int                `json:"next"`
	}
	for _, tt := range []struct {
		path        string
		n, total    int
		first, next string
	}{
		{"/api/topics", 120, 120, "t000", "null"},
		{"/api/topics?limit=50", 50, 120, "t000", "50"},
		{"/api/topics?offset=100&limit=50", 20, 120, "t100", "null"},
	} {
		page.Next = nil
		if err := json.Unmarshal([]byte(get(tt.path)), &page); err != nil {
			t.Fatal(err)
		}
		next := "null"
		if page.Next != nil {
			next = fmt.Sprint(*page.Next)
		}
		if len(page.Topics) != tt.n || page.Total != tt.total || page.Topics[0].Name != tt.first || next != tt.next {
			t.Errorf("GET %s: %d topics from %s, total %d, next %s; want %d from %s, total %d, next %s",
				tt.path, len(page.Topics), page.Topics[0].Name, page.Total, next, tt.n, tt.first, tt.total, tt.next)
		}
	}
}
