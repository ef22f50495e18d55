package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/exercises"
)

// classStub is a class with no exercise started, for the pages.
type classStub struct{ class *exercises.Class }

func (c classStub) Class() *exercises.Class                               { return c.class }
func (classStub) Current() string                                         { return "" }
func (classStub) Start(string) (exercises.Exercise, error)                { return exercises.Exercise{}, nil }
func (classStub) Reset(context.Context, string) (map[string]int64, error) { return nil, nil }
func (classStub) Results(string) ([]exercises.Result, int64, error)       { return nil, 0, nil }
func (classStub) Wait(context.Context, int64) int64                       { return 0 }
func (classStub) Remove(context.Context, string, bool) error              { return nil }
func (classStub) Stage() (exercises.Stage, bool)                          { return exercises.Stage{}, false }
func (classStub) SetStage(exercises.Stage)                                {}
func (classStub) Flush(context.Context) error                             { return nil }

// TestStudentExercisePage: /exercise is the join form and the frame of
// the student's exercise (its labels rendered, the starter code's four
// tabs, its own module) when the server has a class, and says there are
// no exercises (404) when it has none.
func TestStudentExercisePage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		exercises bool
		status    int
		want      []string
		absent    []string
	}{
		{"a class", true, http.StatusOK, []string{
			`data-testid="join-form"`, `data-testid="join-name"`, `maxlength="16"`, `data-hands-on="true"`,
			`data-testid="identity-password"`, `data-testid="copy-password"`, `data-testid="checklist"`,
			`data-testid="starter-tab-python"`, `data-testid="starter-tab-java"`, `data-testid="starter-tab-kcat"`, `data-testid="starter-tab-go"`,
			`data-i18n="student.join.title"`, "exercises/student.js", "exercises/student.css",
		}, []string{`data-testid="problem"`}},
		{"no class", false, http.StatusNotFound, []string{`data-i18n="error.exercisesDisabled"`, `data-hands-on="false"`},
			[]string{`data-testid="join-form"`, `data-testid="checklist"`}},
	}
	for _, tt := range tests {
		deps := Deps{Lab: &sectionLab{}}
		if tt.exercises {
			deps.Exercises = classStub{exercises.NewClass(exercises.ClassConfig{})}
		}
		ts := httptest.NewServer(New(deps, nil, WithAccess(Access{Classroom: true})).Handler())
		resp, err := http.Get(ts.URL + "/exercise")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ts.Close()
		page := string(body)
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.status)
		}
		if got := resp.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", tt.name, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %s", tt.name, w)
			}
		}
		for _, a := range tt.absent {
			if strings.Contains(page, a) {
				t.Errorf("%s: the page has %s", tt.name, a)
			}
		}
	}
}
