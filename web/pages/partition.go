package pages

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// Seed 000's names (docs/lessons.md): the forms start with them so that a
// teacher can run lesson 2 without typing.
const (
	seedOrders     = "orders"
	seedTotals     = "order-totals"
	seedTotalsTx   = "order-totals-tx"
	seedGroupTx    = "totals-tx"
	seedGroupPlain = "totals-plain"
	seedTxnID      = "order-totals-app"
)

// partitionView is what the partition page's template needs. The browser
// script takes it from there: the log itself arrives over the websocket
// and the API.
type partitionView struct {
	layoutView
	Topics []topicOption
	// Topic and Partition are the partition on show; HasTopic is false on
	// the empty home page and when the topic does not exist.
	Topic     string
	Partition int32
	HasTopic  bool

	// JoinURL is where students join, on the teacher's page in classroom
	// mode; JoinWarning why they cannot (a loopback address), nil if they can.
	JoinURL     string
	JoinWarning *catalog.Message

	// Lessons are the lessons panel's picker entries.
	Lessons []lessons.Summary

	// FollowInspect is true off the lab (a real cluster, no lesson
	// running): the Inspect tab names the transaction and the group of the
	// partition on show instead of the lab's order-totals-app and
	// totals-tx.
	FollowInspect bool
}

// topicOption is one entry of the topic picker: a topic's partition.
type topicOption struct {
	Topic     string
	Partition int32
	Offsets   int64 // high watermark minus log start: how many offsets it spans
	// HighWatermark is the partition's high watermark when the page was drawn.
	HighWatermark int64
}

// Value is the option's value, "topic/partition".
func (o topicOption) Value() string { return o.Topic + "/" + strconv.Itoa(int(o.Partition)) }

// Label is what the picker shows (catalogue key picker.partitionOffsets).
func (o topicOption) Label() string {
	return trf("picker.partitionOffsets", o.labelArgs()...)
}

// LabelArgs is the data-i18n-args attribute of Label.
func (o topicOption) LabelArgs() string { return i18nArgs(o.labelArgs()...) }

func (o topicOption) labelArgs() []string {
	return []string{"topic", o.Topic, "partition", strconv.Itoa(int(o.Partition)), "offsets", strconv.FormatInt(o.Offsets, 10)}
}

// setProblem sets Problem, why no log can be shown, to the catalogue
// sentence key.
func (v *partitionView) setProblem(key string, args ...string) {
	v.Problem = catalog.M(key, args...)
}

// PartitionText is the partition number for data attributes.
func (v partitionView) PartitionText() string { return strconv.Itoa(int(v.Partition)) }

// Selected reports whether o is the partition on show.
func (v partitionView) Selected(o topicOption) bool {
	return v.HasTopic && o.Topic == v.Topic && o.Partition == v.Partition
}

// partitionPath is the shareable URL of a partition's log.
func partitionPath(topic string, partition int32) string {
	return "/topics/" + url.PathEscape(topic) + "/partitions/" + strconv.Itoa(int(partition))
}

// Home opens what the teacher chose (see teacherChoice), or shows the
// page that invites the teacher to pick a partition, create a topic or set
// up seed 000. It never follows what a client of the Kafka port wrote
// last: one student's write must not open that partition on every laptop.
func (s *Server) Home(w http.ResponseWriter, r *http.Request) {
	v := s.baseView(r)
	if !v.Unreachable {
		if ref, ok := s.teacherChoice(v.Topics); ok {
			target := partitionPath(ref.Topic, ref.Partition)
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, target, http.StatusFound)
			return
		}
	}
	s.renderPartition(w, r, http.StatusOK, v)
}

// Partition is GET /topics/{topic}/partitions/{partition}: the live log
// of one partition with every control.
func (s *Server) Partition(w http.ResponseWriter, r *http.Request) {
	v := s.baseView(r)
	topic := httpx.PathParam(r, "topic")
	p, err := strconv.ParseInt(httpx.PathParam(r, "partition"), 10, 32)
	if err != nil || p < 0 {
		v.setProblem("problem.badPartition", "partition", strconv.Quote(httpx.PathParam(r, "partition")))
		s.renderPartition(w, r, http.StatusBadRequest, v)
		return
	}
	v.Topic, v.Partition = topic, int32(p)
	status := http.StatusOK
	switch t, err := s.deps.Lab.Topic(r.Context(), topic); {
	case err == nil && int(p) < len(t.Partitions):
		v.HasTopic = true
	case err == nil:
		v.setProblem("problem.noPartition", "topic", strconv.Quote(topic), "count", strconv.Itoa(len(t.Partitions)), "partition", strconv.FormatInt(p, 10))
		status = http.StatusNotFound
	case problem.Unreachable(err) || v.Unreachable:
		// Show the page anyway: the stream connects once the broker is back.
		v.HasTopic = true
	case problem.KindOf(err) == problem.NotFound, problem.KindOf(err) == problem.Invalid:
		if httpx.RoleOf(r) == httpx.Teacher {
			v.setProblem("problem.noTopicTeacher", "topic", strconv.Quote(topic))
		} else {
			v.setProblem("problem.noTopicStudent", "topic", strconv.Quote(topic))
		}
		status = http.StatusNotFound
	default:
		s.log.Error("page: describe topic", "topic", topic, "err", err)
		v.HasTopic = true
	}
	s.renderPartition(w, r, status, v)
}

// baseView fills in the cluster and the topic picker.
func (s *Server) baseView(r *http.Request) partitionView {
	v := partitionView{layoutView: s.newLayout(r, sectionLog, "")}
	if s.deps.Lessons != nil {
		v.Lessons = s.deps.Lessons.List()
	}
	v.FollowInspect = v.Mode != "embedded" && s.lessonFocus() == nil
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	topics, err := s.deps.Lab.Topics(ctx)
	if err != nil {
		s.log.Warn("page: list topics", "err", err)
		v.Unreachable = true
		v.setProblem("problem.unreachable")
		return v
	}
	for _, t := range topics {
		if t.Internal || strings.HasPrefix(t.Name, "__") {
			continue
		}
		for _, p := range t.Partitions {
			v.Topics = append(v.Topics, topicOption{
				Topic: t.Name, Partition: p.Partition,
				Offsets: max(p.HighWatermark-p.LogStartOffset, 0), HighWatermark: p.HighWatermark,
			})
		}
	}
	return v
}

// teacherChoice is the partition the teacher chose, among options: the
// one the teacher's page watches (in classroom mode, the one the students
// follow), else the log the guided lesson driven last is about, else the
// partition the teacher last wrote to or created through the dashboard.
// In single-user mode every page is the teacher's.
func (s *Server) teacherChoice(options []topicOption) (Choice, bool) {
	listed := func(c *Choice) bool {
		return c != nil && slices.ContainsFunc(options, func(o topicOption) bool {
			return o.Topic == c.Topic && o.Partition == c.Partition
		})
	}
	for _, c := range []*Choice{call(s.access.TeacherWatches), s.lessonFocus(), call(s.access.TeacherWrote)} {
		if listed(c) {
			return *c, true
		}
	}
	return Choice{}, false
}

// call is f(), or nil when f is.
func call(f func() *Choice) *Choice {
	if f == nil {
		return nil
	}
	return f()
}

// lessonFocus is the log of the lesson run driven last: its focus, else
// its first topic's partition 0; nil without one.
func (s *Server) lessonFocus() *Choice {
	if s.deps.Lessons == nil {
		return nil
	}
	id := s.deps.Lessons.Current()
	if id == "" {
		return nil
	}
	st, err := s.deps.Lessons.State(id)
	switch {
	case err != nil:
		return nil
	case st.Focus != nil:
		return &Choice{Topic: st.Focus.Topic, Partition: st.Focus.Partition}
	case len(st.Topics) > 0:
		return &Choice{Topic: st.Topics[0]}
	}
	return nil
}

// renderPartition writes the partition page with status.
func (s *Server) renderPartition(w http.ResponseWriter, r *http.Request, status int, v partitionView) {
	if v.HasTopic {
		v.Title = fmt.Sprintf("%s-%d", v.Topic, v.Partition)
	}
	if v.Classroom && v.Teacher() {
		v.JoinURL, v.JoinWarning = s.access.JoinURL, s.access.JoinWarning
	}
	s.renderPage(w, r, status, partitionPage(v))
}

// DockTabs names the dock's tabs this page has, the first one chosen when
// the viewer has not chosen another: the guided lesson (any page on a
// cluster that may be changed), the controls that act (the teacher's),
// the partition's explore tools (jumps, seek, search, download), the
// panels that inspect, and the selected offset's details.
func (v partitionView) DockTabs() []string {
	var tabs []string
	if !v.ReadOnly {
		tabs = append(tabs, "lesson")
	}
	if v.CanWrite() {
		tabs = append(tabs, "act")
	}
	return append(tabs, "explore", "inspect", "details")
}

// tabIndex is a tab's tabindex: only the chosen tab is in the tab order
// (the arrow keys move between tabs).
func tabIndex(chosen bool) string {
	if chosen {
		return "0"
	}
	return "-1"
}
