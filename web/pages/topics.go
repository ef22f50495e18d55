package pages

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
)

// maxOpenTxnTopics bounds the topics whose open transactions the topics
// page counts (a DescribeProducers per partition each); the others show
// only whether one is open (LSO below HW).
const maxOpenTxnTopics = 8

// topicsPerPage and partitionsPerCard bound the topics page: 50 topics
// of at most 20 partition rows each, ~1,000 rows whatever the cluster
// holds (5,000 topics made 8.4 MB of HTML unpaged). The rest of a topic's
// partitions are on its own page.
const (
	topicsPerPage     = 50
	partitionsPerCard = 20
)

// topicsView is the topics page: one page of the topics, each with its
// first partitions.
type topicsView struct {
	layoutView
	ShowInternal bool
	// Filter keeps the topics whose name contains it (?q=), so that one
	// topic among a thousand is a search away.
	Filter string
	Topics []topicRow
	// Page is this page's number (from 1) of Pages; First is the index
	// of its first topic in Total.
	Page, Pages, First, Total int
}

// topicRow is one topic of the topics page.
type topicRow struct {
	Name       string
	Internal   bool
	Partitions []partitionRow
	// More is how many partitions the card leaves out (partitionsPerCard).
	More int
}

// PageRange is "Topics 51–100 of 5,000" as text arguments.
func (v topicsView) PageRange() (from, to, total string) {
	return i64(int64(v.First + 1)), i64(int64(v.First + len(v.Topics))), i64(int64(v.Total))
}

// PagePath is the URL of page n of the list, keeping ?internal and ?q.
func (v topicsView) PagePath(n int) string {
	q := url.Values{}
	if v.ShowInternal {
		q.Set("internal", "true")
	}
	if v.Filter != "" {
		q.Set("q", v.Filter)
	}
	if n > 1 {
		q.Set("page", strconv.Itoa(n))
	}
	if len(q) == 0 {
		return "/topics"
	}
	return "/topics?" + q.Encode()
}

// partitionRow is one partition of a topic: placement, pointers and how
// many transactions are open on it.
type partitionRow struct {
	Topic string
	cluster.PartitionInfo
	// OpenTransactions is how many transactions are open on the
	// partition; -1 when not counted (see OpenText).
	OpenTransactions int
}

// OpenText is the open-transactions cell: the count, "≥ 1" when the LSO
// waits below the HW but the transactions were not counted, "—" when
// nothing is known.
func (p partitionRow) OpenText() string {
	switch {
	case p.OpenTransactions >= 0:
		return i64(int64(p.OpenTransactions))
	case p.Held():
		return "≥ 1"
	default:
		return "—"
	}
}

// Held reports whether an open transaction holds the LSO below the HW.
func (p partitionRow) Held() bool {
	return p.LastStableOffset >= 0 && p.LastStableOffset < p.HighWatermark
}

// LogPath is the partition page's URL.
func (p partitionRow) LogPath() string { return partitionPath(p.Topic, p.Partition) }

// Count is the topic's partition count, as text.
func (t topicRow) Count() string { return i64(int64(len(t.Partitions) + t.More)) }

// Topics is GET /topics[?page=N]: a page of topicsPerPage topics with
// their partitions' leader, replicas, ISR, pointers and open
// transactions; ?internal=true adds Kafka's own topics. The router runs it
// behind the read limiter: it reads every partition's offsets.
func (s *Server) Topics(w http.ResponseWriter, r *http.Request) {
	v := topicsView{layoutView: s.newLayout(r, sectionTopics, "Topics"), ShowInternal: r.URL.Query().Get("internal") == "true"}
	v.Page, _ = strconv.Atoi(r.URL.Query().Get("page"))
	v.Filter = strings.TrimSpace(r.URL.Query().Get("q"))
	ctx, cancel := pageContext(r)
	defer cancel()
	list := s.deps.Lab.Topics
	if v.ShowInternal {
		list = s.deps.Lab.AllTopics
	}
	topics, err := list(ctx)
	if err != nil {
		s.renderPage(w, r, s.failPage(r, &v.layoutView, err, catalog.Message{}), topicsPage(v))
		return
	}
	if v.Filter != "" || s.access.ListsTopic != nil {
		var kept []cluster.TopicInfo // a new slice: the list may be shared
		for _, t := range topics {
			if strings.Contains(t.Name, v.Filter) && (s.access.ListsTopic == nil || s.access.ListsTopic(r, t.Name)) {
				kept = append(kept, t)
			}
		}
		topics = kept
	}
	v.Total = len(topics)
	v.Pages = max(1, (v.Total+topicsPerPage-1)/topicsPerPage)
	v.Page = min(max(v.Page, 1), v.Pages)
	v.First = (v.Page - 1) * topicsPerPage
	v.Topics = s.topicRows(ctx, topics[v.First:min(v.First+topicsPerPage, v.Total)])
	s.renderPage(w, r, http.StatusOK, topicsPage(v))
}

// topicRows turns topics into rows, counting the open transactions of
// the partitions whose LSO waits below the HW (a partition whose LSO is
// its HW has none) for the first maxOpenTxnTopics such topics.
func (s *Server) topicRows(ctx context.Context, topics []cluster.TopicInfo) []topicRow {
	rows := make([]topicRow, 0, len(topics))
	described := 0
	for _, t := range topics {
		row := topicRow{Name: t.Name, Internal: t.Internal || strings.HasPrefix(t.Name, "__")}
		held := false
		parts := t.Partitions
		if len(parts) > partitionsPerCard {
			row.More = len(parts) - partitionsPerCard
			parts = parts[:partitionsPerCard]
		}
		for _, p := range parts {
			pr := partitionRow{Topic: t.Name, PartitionInfo: p, OpenTransactions: 0}
			if pr.Held() || p.Error != "" {
				pr.OpenTransactions = -1
				held = true
			}
			row.Partitions = append(row.Partitions, pr)
		}
		if held && !row.Internal && described < maxOpenTxnTopics {
			described++
			if d, err := s.deps.Lab.TopicDetail(ctx, t.Name); err == nil {
				for i := range row.Partitions {
					if i < len(d.Partitions) && d.Partitions[i].Partition == row.Partitions[i].Partition {
						row.Partitions[i].OpenTransactions = d.Partitions[i].OpenTransactions
					}
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}
