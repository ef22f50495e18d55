package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/web/api"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// untouchableLab answers who it is and nothing else: a use case reached
// through it panics (a nil interface), which the router's Recoverer turns
// into a 500 — so a request the write guard lets through shows.
type untouchableLab struct {
	httpx.Lab
	readOnly bool
}

func (l untouchableLab) ReadOnly() bool             { return l.readOnly }
func (l untouchableLab) Security() cluster.Security { return cluster.Security{} }
func (l untouchableLab) SchemaRegistry() string     { return "" }
func (untouchableLab) Brokers() []string            { return []string{"127.0.0.1:9092"} }
func (untouchableLab) Mode() cluster.Mode           { return cluster.External }

// untouchableLessons is a lesson runner that is never to be reached.
type untouchableLessons struct{ httpx.Lessons }

var routeParam = regexp.MustCompile(`\{[^}]+\}`)

// stateChangingRoutes walks the router Handler builds and returns every
// route that is not a GET, as "METHOD /path" with its parameters filled
// in: a route added tomorrow is on the list without anyone writing it.
func stateChangingRoutes(t *testing.T, h http.Handler) []string {
	t.Helper()
	routes, ok := h.(chi.Routes)
	if !ok {
		t.Fatalf("Handler is a %T, not a chi router", h)
	}
	var out []string
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method == http.MethodGet || method == http.MethodHead {
			return nil
		}
		path := routeParam.ReplaceAllStringFunc(route, func(p string) string {
			switch p {
			case "{partition}", "{start}", "{id}":
				return "0"
			case "{action}":
				return "next"
			case "{step}":
				return "begin"
			}
			return "x"
		})
		out = append(out, method+" "+strings.ReplaceAll(path, "/*", "/x"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryWriteRouteGuarded sends every state-changing route the router
// has — found by walking it, not listed by hand — as a student in
// classroom mode, and as the teacher on a read-only cluster: each answers
// 403 with the guard's sentence, and none reaches the lab or the lesson
// runner (which would answer 500 here). The one exception is a student
// joining the class (POST /api/classroom/students), which studentWrite
// names and TestStudentWriteIsOnlyTheJoin pins.
func TestEveryWriteRouteGuarded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		access Access
		lab    untouchableLab
		code   string
	}{
		{"a student in classroom mode", Access{Classroom: true}, untouchableLab{}, "error.studentView"},
		{"the teacher on a read-only cluster", Access{}, untouchableLab{readOnly: true}, "error.readOnly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := New(Deps{Lab: tt.lab, Lessons: untouchableLessons{}}, nil, WithAccess(tt.access))
			h := s.Handler()
			routes := stateChangingRoutes(t, h)
			for _, want := range []string{
				"POST /api/topics", "DELETE /api/topics/x", "POST /api/topics/x/partitions/0/transactions/0/abort",
				"POST /api/lessons/cleanup", "POST /api/lessons/runs/x/next", "POST /api/brokers/0/next",
			} {
				if !slices.Contains(routes, want) {
					t.Fatalf("the walk of the router found %q, not %s", routes, want)
				}
			}
			for _, route := range routes {
				method, path, _ := strings.Cut(route, " ")
				if route == "POST "+api.JoinPath {
					continue // the one write a student may send (studentWrite); it changes no topic
				}
				req := httptest.NewRequest(method, path, strings.NewReader(`{}`))
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				var body struct {
					Code string `json:"code"`
				}
				_ = json.Unmarshal(w.Body.Bytes(), &body)
				if w.Code != http.StatusForbidden || body.Code != tt.code {
					t.Errorf("%s: %d %s; want 403 %s", route, w.Code, strings.TrimSpace(w.Body.String()), tt.code)
				}
			}
		})
	}
}

// TestStudentWriteIsOnlyTheJoin: of every state-changing route, the write
// guard lets a student through on exactly one, joining the class.
func TestStudentWriteIsOnlyTheJoin(t *testing.T) {
	t.Parallel()
	s := New(Deps{Lab: untouchableLab{}, Lessons: untouchableLessons{}}, nil, WithAccess(Access{Classroom: true}))
	var exempt []string
	for _, route := range stateChangingRoutes(t, s.Handler()) {
		method, path, _ := strings.Cut(route, " ")
		if studentWrite(httptest.NewRequest(method, path, nil)) {
			exempt = append(exempt, route)
		}
	}
	if want := []string{"POST /api/classroom/students"}; !slices.Equal(exempt, want) {
		t.Errorf("student writes %q, want %q", exempt, want)
	}
}
