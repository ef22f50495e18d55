package pages

import (
	"context"
	"net/http"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
)

// maxOpenTxnTopics bounds the topics whose open transactions the topics
// page counts (a DescribeProducers per partition each); the others show
// only whether one is open (LSO below HW).
const maxOpenTxnTopics = 8

// topicsView is the topics page: every topic with its partitions.
type topicsView struct {
	layoutView
	ShowInternal bool
	Topics       []topicRow
}

// topicRow is one topic of the topics page.
type topicRow struct {
	Name       string
	Internal   bool
	Partitions []partitionRow
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
func (t topicRow) Count() string { return i64(int64(len(t.Partitions))) }

// Topics is GET /topics: every topic with its partitions' leader,
// replicas, ISR, pointers and open transactions; ?internal=true adds
// Kafka's own topics.
func (s *Server) Topics(w http.ResponseWriter, r *http.Request) {
	v := topicsView{layoutView: s.newLayout(r, sectionTopics, "Topics"), ShowInternal: r.URL.Query().Get("internal") == "true"}
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
	v.Topics = s.topicRows(ctx, topics)
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
		for _, p := range t.Partitions {
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
