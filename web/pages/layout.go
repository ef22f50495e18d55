package pages

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// The frame every page shares (layout.templ): the document, the broker
// banner and the masthead with the navigation, from a layoutView its
// handler fills in first (newLayout), and the helpers the pages' views
// and templates share.

// pageReadTimeout bounds the broker reads of one section's page, so that a
// slow cluster gives a page that says so rather than a hanging tab.
const pageReadTimeout = 10 * time.Second

// Sections of the masthead's navigation (siteNav): Log · Topics · Groups ·
// Transactions.
const (
	sectionLog          = "log"
	sectionTopics       = "topics"
	sectionGroups       = "groups"
	sectionTransactions = "transactions"
	sectionExercises    = "exercises"
)

// layoutView is what the frame of every page needs: the section on
// show, the cluster for the masthead, who is looking (only the teacher's
// page on a writable cluster has the controls that change it), and the
// sentence that replaces the content when it cannot be shown.
type layoutView struct {
	Section string
	// Title is the document title's first part ("Topics", "orders-0");
	// empty for the product's name alone.
	Title     string
	Mode      string
	KafkaAddr string
	// CommandConfig is the path of the properties file the dashboard
	// connects with ("" without --command-config), User its user: the
	// commands the pages print carry both (see connection).
	CommandConfig string
	User          string
	// SchemaRegistry is the URL of the registry values are decoded with
	// ("" without one), named in the masthead.
	SchemaRegistry string
	// Role is "teacher" or "student".
	Role string
	// Classroom is true in classroom mode; CSRFToken is then the teacher
	// session's token for state changes.
	Classroom bool
	CSRFToken string
	// HandsOn is true when students may join and do the hands-on
	// exercises (classroom mode with a class): the student's stage then
	// links to their exercise page.
	HandsOn bool
	// ReadOnly is true when the server refuses to change the cluster: the
	// page renders no control that would.
	ReadOnly bool
	// Unreachable shows the broker banner.
	Unreachable bool
	// Problem, when set, is why the page has no content (unknown topic,
	// unreachable broker, a denied read).
	Problem catalog.Message
}

// Teacher reports whether the page is the teacher's, with every control.
func (v layoutView) Teacher() bool { return v.Role != httpx.Student.String() }

// ExercisesNav reports whether the page links the teacher's scoreboard
// (Exercises): the teacher's pages of a hands-on class.
func (v layoutView) ExercisesNav() bool { return v.HandsOn && v.Teacher() }

// CanWrite reports whether the page renders the controls that change the
// cluster: the teacher's page on a cluster that may be changed.
func (v layoutView) CanWrite() bool { return v.Teacher() && !v.ReadOnly }

// DocumentTitle is the document title.
func (v layoutView) DocumentTitle() string {
	if v.Title == "" {
		return "Offset Lab"
	}
	return v.Title + " · Offset Lab"
}

// newLayout fills in the frame of a page of section for r.
func (s *Server) newLayout(r *http.Request, section, title string) layoutView {
	v := layoutView{
		Section: section, Title: title,
		Mode: string(s.deps.Lab.Mode()), KafkaAddr: strings.Join(s.deps.Lab.Brokers(), ","),
		Role: httpx.RoleOf(r).String(), Classroom: s.access.Classroom, ReadOnly: s.deps.Lab.ReadOnly(),
		HandsOn: s.access.Classroom && s.deps.Exercises != nil,
	}
	sec := s.deps.Lab.Security()
	v.CommandConfig, v.User = sec.CommandConfig, sec.User
	v.SchemaRegistry = s.deps.Lab.SchemaRegistry()
	if v.Classroom && v.Teacher() {
		v.CSRFToken = httpx.CSRFTokenOf(r)
	}
	return v
}

// pageContext is the request's context bounded by pageReadTimeout.
func pageContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), pageReadTimeout)
}

// failPage sets the page's problem from err and returns the status to
// answer with: the API's status for the error's kind, an unreachable
// broker's banner on. notFound, when set, replaces the sentence of a
// NotFound error with the page's own (one that says where to go instead).
func (s *Server) failPage(r *http.Request, v *layoutView, err error, notFound catalog.Message) int {
	p := problem.As(err)
	status := httpx.StatusOf(p.Kind)
	switch p.Kind {
	case problem.Unavailable:
		v.Unreachable = true
		v.Problem = catalog.M("problem.unreachable")
		s.log.Warn("page: broker unavailable", "path", r.URL.Path, "err", err)
	case problem.NotFound:
		v.Problem = p.Message
		if !notFound.IsZero() {
			v.Problem = notFound
		}
	case problem.Kafka, problem.Internal:
		s.log.Error("page failed", "path", r.URL.Path, "err", err)
		v.Problem = p.Message
	default:
		v.Problem = p.Message
	}
	return status
}

// renderPage writes a page with status, uncached: it shows the cluster as
// it is now.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, status int, page templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := page.Render(r.Context(), w); err != nil {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
	}
}

// msgText is a message's English, as the server renders it.
func msgText(m catalog.Message) string { return m.String() }

// msgArgs is the data-i18n-args attribute of a message.
func msgArgs(m catalog.Message) string {
	if len(m.Args) == 0 {
		return "{}"
	}
	var kv []string
	for k, v := range m.Args {
		kv = append(kv, k, v)
	}
	return i18nArgs(kv...)
}

// itoa32 writes a partition or broker id.
func itoa32(n int32) string { return strconv.Itoa(int(n)) }

func itoa(n int) string { return strconv.Itoa(n) }

// i64 writes an offset or a count.
func i64(n int64) string { return strconv.FormatInt(n, 10) }

// brokerList writes broker ids as "1, 2, 3" ("—" for none).
func brokerList(ids []int32) string {
	if len(ids) == 0 {
		return "—"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = itoa32(id)
	}
	return strings.Join(parts, ", ")
}

// topicPath is the topic page's URL.
func topicPath(topic string) string { return "/topics/" + url.PathEscape(topic) }

// groupPath is a group page's URL; a group name may hold any character,
// '/' included, which PathEscape keeps in its one segment.
func groupPath(group string) string { return "/groups/" + url.PathEscape(group) }

// navCurrent marks the link of the section on show (aria-current="page").
func navCurrent(current, section string) templ.Attributes {
	if current == section {
		return templ.Attributes{"aria-current": "page"}
	}
	return templ.Attributes{}
}

// leaderText is a partition's leader or a coordinator ("—" for none: -1).
func leaderText(id int32) string {
	if id < 0 {
		return "—"
	}
	return itoa32(id)
}

// joinComma writes names as "a, b, c".
func joinComma(names []string) string { return strings.Join(names, ", ") }

// sectionMain is main#app of a section's page (data-page is page): the
// viewer's role, the cluster's mode and whether the viewer may change it.
func (v layoutView) sectionMain(page string) appMain {
	return appMain{Class: "section-main", Page: page, Data: dataAttrs("data-role", v.Role, "data-mode", v.Mode, "data-can-write", boolText(v.CanWrite()))}
}

// dataAttrs is a page's own attributes on main#app, from name, value
// pairs, kept in the order given.
func dataAttrs(pairs ...string) templ.OrderedAttributes {
	attrs := make(templ.OrderedAttributes, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		attrs = append(attrs, templ.KeyValue[string, any]{Key: pairs[i], Value: pairs[i+1]})
	}
	return attrs
}
