package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/exercises"
)

// TestExerciseBoardPage: /exercises is the teacher's scoreboard, with
// every exercise to pick and Exercises in the navigation of the teacher's
// section pages in classroom mode (the partition page links it from its
// classroom bar instead); a student is told it is the teacher's, and a
// server without a class says it has none.
func TestExerciseBoardPage(t *testing.T) {
	t.Parallel()
	const host = "127.0.0.1:8080"
	grader := exercises.NewGrader(nil, exercises.NewClass(exercises.ClassConfig{}), exercises.GraderConfig{})
	classroom := New(Deps{Lab: &sectionLab{}, Exercises: grader}, nil, WithAccess(Access{Classroom: true, ListenAddr: host}))
	login, _ := url.Parse(classroom.TeacherLoginURL())
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", login.RequestURI(), nil)
	req.Host = host
	classroom.Handler().ServeHTTP(rec, req)
	cookies := rec.Result().Cookies()
	if len(cookies) == 0 {
		t.Fatalf("the teacher's login set no cookie: %d", rec.Code)
	}

	var board []string
	for _, e := range exercises.Builtin() {
		board = append(board, `<option value="`+e.ID+`"`)
	}
	board = append(board, `data-testid="exercise-start"`, `data-testid="exercise-reset"`, `data-testid="reset-dialog"`,
		`href="/api/exercises/idempotent/results.csv" download`, `data-testid="show-join"`, `data-testid="join-dialog"`,
		`src="/classroom/join.svg"`, `data-testid="scoreboard"`, `exercises/board.js`,
		`href="/exercises" data-testid="nav-exercises" aria-current="page"`)
	tests := []struct {
		name     string
		srv      *Server
		teacher  bool
		path     string
		status   int
		contains []string
		lacks    []string
	}{
		{name: "the teacher's scoreboard", srv: classroom, teacher: true, path: "/exercises", status: http.StatusOK, contains: board},
		{name: "Exercises in the teacher's navigation", srv: classroom, teacher: true, path: "/topics", status: http.StatusOK,
			contains: []string{`href="/exercises" data-testid="nav-exercises"`}},
		{name: "the partition page links it from the classroom bar", srv: classroom, teacher: true, path: "/topics/keys/partitions/0", status: http.StatusOK,
			contains: []string{`href="/exercises" data-testid="classroom-scoreboard"`, `href="/exercises#join" data-testid="join-full-link"`},
			lacks:    []string{`data-testid="nav-exercises"`}},
		{name: "a student is sent to their own page", srv: classroom, path: "/exercises", status: http.StatusForbidden,
			contains: []string{`data-i18n="board.teacherOnly"`, `href="/exercise" data-testid="student-page-link"`}, lacks: []string{`data-testid="scoreboard"`, `data-testid="exercise-start"`}},
		{name: "no Exercises in a student's navigation", srv: classroom, path: "/topics", status: http.StatusOK,
			lacks: []string{`data-testid="nav-exercises"`}},
		{name: "a server without a class", srv: New(Deps{Lab: &sectionLab{}}, nil), teacher: true, path: "/exercises", status: http.StatusNotFound,
			contains: []string{`data-i18n="error.exercisesDisabled"`}, lacks: []string{`data-testid="scoreboard"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("GET", tt.path, nil)
			if tt.srv == classroom {
				req.Host = host
			}
			if tt.teacher {
				for _, c := range cookies {
					req.AddCookie(c)
				}
			}
			tt.srv.Handler().ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != tt.status {
				t.Fatalf("GET %s: status %d, want %d; body %.400s", tt.path, rec.Code, tt.status, body)
			}
			for _, want := range tt.contains {
				if !strings.Contains(body, want) {
					t.Errorf("GET %s: body lacks %s", tt.path, want)
				}
			}
			for _, bad := range tt.lacks {
				if strings.Contains(body, bad) {
					t.Errorf("GET %s: body has %s", tt.path, bad)
				}
			}
			checkStrictPage(t, rec, body)
		})
	}
}
