package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// Seed 000's names (LESSONS.md): the forms start with them so that a
// teacher can run lesson 2 without typing.
const (
	seedOrders     = "orders"
	seedTotals     = "order-totals"
	seedTotalsTx   = "order-totals-tx"
	seedGroupTx    = "totals-tx"
	seedGroupPlain = "totals-plain"
	seedTxnID      = "order-totals-app"
)

// dashboardView is what the page template needs. The browser script takes
// it from there: the log itself arrives over the websocket and the API.
type dashboardView struct {
	Mode      string
	KafkaAddr string
	Topics    []topicOption
	// Topic and Partition are the partition on show; HasTopic is false on
	// the empty home page and when the topic does not exist.
	Topic     string
	Partition int32
	HasTopic  bool
	// Problem is a sentence about why no log can be shown (unknown topic,
	// unreachable broker); empty when all is well.
	Problem     string
	Unreachable bool
	// ProblemKey and ProblemArgs name Problem in the UI catalogue
	// (web/i18n), so the browser can show it in the chosen language.
	ProblemKey  string
	ProblemArgs []string

	// Role is "teacher" or "student"; only the teacher's page has the
	// controls that change anything.
	Role string
	// Classroom is true in classroom mode; JoinURL is then where students
	// join, and CSRFToken the teacher session's token for state changes.
	Classroom bool
	JoinURL   string
	CSRFToken string

	// Lessons are the lessons panel's picker entries.
	Lessons []lessons.Summary

	// ReadOnly is true when the server refuses to change the cluster: the
	// page renders no control that would.
	ReadOnly bool
}

// CanWrite reports whether the page renders the controls that change the
// cluster: the teacher's page on a cluster that may be changed.
func (v dashboardView) CanWrite() bool { return v.Teacher() && !v.ReadOnly }

// Teacher reports whether the page is the teacher's, with every control.
func (v dashboardView) Teacher() bool { return v.Role != studentRole.String() }

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

// setProblem sets Problem to the catalogue sentence key in English, and
// remembers the key so the page can switch its language.
func (v *dashboardView) setProblem(key string, args ...string) {
	v.Problem, v.ProblemKey, v.ProblemArgs = trf(key, args...), key, args
}

// ProblemI18nArgs is the data-i18n-args attribute of Problem.
func (v dashboardView) ProblemI18nArgs() string { return i18nArgs(v.ProblemArgs...) }

// Title is the document title: the partition on show, then the product.
func (v dashboardView) Title() string {
	if v.HasTopic {
		return fmt.Sprintf("%s-%d · Offset Lab", v.Topic, v.Partition)
	}
	return "Offset Lab"
}

// PartitionText is the partition number for data attributes.
func (v dashboardView) PartitionText() string { return strconv.Itoa(int(v.Partition)) }

// Selected reports whether o is the partition on show.
func (v dashboardView) Selected(o topicOption) bool {
	return v.HasTopic && o.Topic == v.Topic && o.Partition == v.Partition
}

// partitionPath is the shareable URL of a partition's log.
func partitionPath(topic string, partition int32) string {
	return "/topics/" + url.PathEscape(topic) + "/partitions/" + strconv.Itoa(int(partition))
}

// home opens what the teacher chose (see teacherChoice), or shows the
// page that invites the teacher to pick a partition, create a topic or set
// up seed 000. It never follows what a client of the Kafka port wrote
// last: one student's write must not open that partition on every laptop.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	v := s.baseView(r.Context())
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
	s.renderDashboard(w, r, http.StatusOK, v)
}

// partitionPage is GET /topics/{topic}/partitions/{partition}: the live log
// of one partition with every control.
func (s *Server) partitionPage(w http.ResponseWriter, r *http.Request) {
	v := s.baseView(r.Context())
	topic := pathParam(r, "topic")
	p, err := strconv.ParseInt(pathParam(r, "partition"), 10, 32)
	if err != nil || p < 0 {
		v.setProblem("problem.badPartition", "partition", strconv.Quote(pathParam(r, "partition")))
		s.renderDashboard(w, r, http.StatusBadRequest, v)
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
		if roleOf(r) == teacherRole {
			v.setProblem("problem.noTopicTeacher", "topic", strconv.Quote(topic))
		} else {
			v.setProblem("problem.noTopicStudent", "topic", strconv.Quote(topic))
		}
		status = http.StatusNotFound
	default:
		s.log.Error("page: describe topic", "topic", topic, "err", err)
		v.HasTopic = true
	}
	s.renderDashboard(w, r, status, v)
}

// baseView fills in the cluster and the topic picker.
func (s *Server) baseView(ctx context.Context) dashboardView {
	v := dashboardView{Mode: string(s.deps.Lab.Mode()), KafkaAddr: strings.Join(s.deps.Lab.Brokers(), ","), ReadOnly: s.deps.Lab.ReadOnly()}
	if s.deps.Lessons != nil {
		v.Lessons = s.deps.Lessons.List()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
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
func (s *Server) teacherChoice(options []topicOption) (partitionRef, bool) {
	listed := func(ref *partitionRef) bool {
		return ref != nil && slices.ContainsFunc(options, func(o topicOption) bool {
			return o.Topic == ref.Topic && o.Partition == ref.Partition
		})
	}
	for _, ref := range []*partitionRef{s.class.teacherAt.Load(), s.lessonFocus(), s.class.teacherWrote.Load()} {
		if listed(ref) {
			return *ref, true
		}
	}
	return partitionRef{}, false
}

// lessonFocus is the log of the lesson run driven last: its focus, else
// its first topic's partition 0; nil without one.
func (s *Server) lessonFocus() *partitionRef {
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
		return &partitionRef{Topic: st.Focus.Topic, Partition: st.Focus.Partition}
	case len(st.Topics) > 0:
		return &partitionRef{Topic: st.Topics[0]}
	}
	return nil
}

func (s *Server) renderDashboard(w http.ResponseWriter, r *http.Request, status int, v dashboardView) {
	v.Role = roleOf(r).String()
	v.Classroom = s.access.Classroom
	if v.Classroom && v.Teacher() {
		v.JoinURL = s.joinURL
		if sess := sessionOf(r); sess != nil {
			v.CSRFToken = sess.csrf
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := dashboardPage(v).Render(r.Context(), w); err != nil {
		s.log.Error("render dashboard", "err", err)
	}
}

// DockTabs names the dock's tabs this page has, the first one chosen when
// the viewer has not chosen another: the guided lesson (any page on a
// cluster that may be changed), the controls that act (the teacher's),
// the partition's explore tools (jumps, seek, search, download), the
// panels that inspect, and the selected offset's details.
func (v dashboardView) DockTabs() []string {
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
