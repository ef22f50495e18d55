package pages

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// maxStrips is how many partitions the topic page draws side by side
// and follows live: as many as lab.TopicDetail describes (its
// DescribeProducers cap) and the live hub watches at once.
const maxStrips = 64

// topicView is the topic page: every partition as a strip, then the
// topic's configurations.
type topicView struct {
	layoutView
	Topic  string
	Strips []stripView
	// Hidden is how many partitions are past maxStrips.
	Hidden  int
	Configs []configRow
	// ConfigsProblem and OpenProblem say why the configurations or the
	// open transactions could not be read; the rest of the page stands.
	ConfigsProblem, OpenProblem catalog.Message
	// Lesson is the title of the lesson whose run created the topic, zero
	// for a topic no lesson made.
	Lesson catalog.Message
}

// stripView is one partition's strip as the server draws it first;
// static/sections/strips.js fills in the map and follows it.
type stripView struct {
	Topic string
	lab.PartitionDetail
}

// LogPath is the partition page's URL.
func (s stripView) LogPath() string { return partitionPath(s.Topic, s.Partition) }

// Open is the open-transactions count as text ("?" when not described).
func (s stripView) Open() string {
	if s.OpenTransactions < 0 {
		return "?"
	}
	return strconv.Itoa(s.OpenTransactions)
}

// PartitionCount is the topic's partition count as text.
func (v topicView) PartitionCount() string { return strconv.Itoa(len(v.Strips) + v.Hidden) }

// configRow is one configuration entry of the topic.
type configRow struct {
	cluster.TopicConfig
}

// configSources are the config sources the catalogue explains
// ("config.source." keys), in Kafka's spelling.
var configSources = []string{
	"DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG",
	"DYNAMIC_BROKER_LOGGER_CONFIG", "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG",
}

// SourceKey is the catalogue key saying where the value comes from, ""
// for a source the catalogue does not know (shown verbatim).
func (c configRow) SourceKey() string {
	if slices.Contains(configSources, c.Source) {
		return "config.source." + c.Source
	}
	return ""
}

// Default reports whether the value is Kafka's own default.
func (c configRow) Default() bool { return c.Source == "DEFAULT_CONFIG" }

// ValueText is the value, or "" for a sensitive one (never sent).
func (c configRow) ValueText() string {
	if c.Value == nil {
		return ""
	}
	return *c.Value
}

// Topic is GET /topics/{topic}: the topic's partitions side by side
// as live strips (static/sections/strips.js), and its configurations with their
// source.
func (s *Server) Topic(w http.ResponseWriter, r *http.Request) {
	topic := httpx.PathParam(r, "topic")
	v := topicView{layoutView: s.newLayout(r, sectionTopics, topic), Topic: topic}
	ctx, cancel := pageContext(r)
	defer cancel()
	d, err := s.deps.Lab.TopicDetail(ctx, topic)
	if err != nil {
		status := s.failPage(r, &v.layoutView, err, catalog.M("page.noTopic", "topic", strconv.Quote(topic)))
		s.renderPage(w, r, status, topicPage(v))
		return
	}
	if s.deps.Lessons != nil {
		if _, title, ok := s.deps.Lessons.TopicLesson(topic); ok {
			v.Lesson = title
		}
	}
	for i, p := range d.Partitions {
		if i >= maxStrips {
			v.Hidden = len(d.Partitions) - maxStrips
			break
		}
		v.Strips = append(v.Strips, stripView{Topic: topic, PartitionDetail: p})
	}
	for _, c := range d.Configs {
		v.Configs = append(v.Configs, configRow{c})
	}
	if d.ConfigsUnread != nil {
		v.ConfigsProblem = d.ConfigsUnread.Message()
	}
	if d.OpenUnread != nil {
		v.OpenProblem = d.OpenUnread.Message()
	}
	// What was set on purpose first, then Kafka's defaults; by name within.
	slices.SortStableFunc(v.Configs, func(a, b configRow) int {
		if a.Default() != b.Default() {
			if b.Default() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	s.renderPage(w, r, http.StatusOK, topicPage(v))
}
