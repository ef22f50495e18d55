package api

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// fakeLessons is a lesson runner with one run, "r1", recording each call.
type fakeLessons struct {
	calls
	cleanup []string // what a cleanup deletes; nil answers []
}

func (f *fakeLessons) List() []lessons.Summary { f.add("List"); return []lessons.Summary{{ID: "2"}} }
func (f *fakeLessons) Current() string         { return "r1" }

func (f *fakeLessons) run(call, id string) (lessons.RunState, error) {
	f.add("%s %s", call, id)
	if id != "r1" && id != "2" {
		return lessons.RunState{}, problem.New(problem.NotFound, "error.lessonRunUnknown", "id", id, "max", "8")
	}
	return lessons.RunState{ID: "r1", Lesson: "2"}, nil
}

func (f *fakeLessons) Start(id string) (lessons.RunState, error) { return f.run("Start", id) }
func (f *fakeLessons) State(id string) (lessons.RunState, error) { return f.run("State", id) }
func (f *fakeLessons) Next(_ context.Context, id string) (lessons.RunState, error) {
	return f.run("Next", id)
}
func (f *fakeLessons) Finish(_ context.Context, id string) (lessons.RunState, error) {
	return f.run("Finish", id)
}
func (f *fakeLessons) Reset(id string) (lessons.RunState, error) { return f.run("Reset", id) }
func (f *fakeLessons) Cleanup(_ context.Context, id string) (lessons.RunState, error) {
	return f.run("Cleanup", id)
}
func (f *fakeLessons) CleanupPlan(context.Context) ([]string, error) {
	f.add("CleanupPlan")
	return f.cleanup, nil
}
func (f *fakeLessons) CleanupAll(context.Context) ([]string, error) {
	f.add("CleanupAll")
	return f.cleanup, nil
}
func (f *fakeLessons) CleanupConfirmed(_ context.Context, confirm []string) ([]string, error) {
	f.add("CleanupConfirmed %v", confirm)
	return f.cleanup, nil
}
func (f *fakeLessons) TopicLesson(string) (string, catalog.Message, bool) {
	return "", catalog.Message{}, false
}

// TestLessonHandlers: each lesson endpoint calls its runner once; an
// unknown action is refused; without a runner every one answers 404.
func TestLessonHandlers(t *testing.T) {
	t.Parallel()
	handler := map[string]func(*Server) http.HandlerFunc{
		"list": func(s *Server) http.HandlerFunc { return s.ListLessons }, "start": func(s *Server) http.HandlerFunc { return s.StartLesson },
		"state": func(s *Server) http.HandlerFunc { return s.GetLessonRun }, "step": func(s *Server) http.HandlerFunc { return s.StepLessonRun },
		"plan": func(s *Server) http.HandlerFunc { return s.ListLessonCleanup }, "cleanup": func(s *Server) http.HandlerFunc { return s.CleanupLessons },
	}
	const step = "/api/lessons/runs/{run}/{action}"
	tests := []struct {
		handler string
		req     request
		status  int
		call    string
		body    string
		code    string
	}{
		{"list", request{method: "GET", pattern: "/api/lessons", target: "/api/lessons"}, 200, "List", "", ""},
		{"start", request{method: "POST", pattern: "/api/lessons/{lesson}/runs", target: "/api/lessons/2/runs"}, 201, "Start 2", "", ""},
		{"start", request{method: "POST", pattern: "/api/lessons/{lesson}/runs", target: "/api/lessons/99/runs"}, 404, "Start 99", "", "error.lessonRunUnknown"},
		{"state", request{method: "GET", pattern: "/api/lessons/runs/{run}", target: "/api/lessons/runs/r1"}, 200, "State r1", "", ""},
		{"step", request{method: "POST", pattern: step, target: "/api/lessons/runs/r1/next"}, 200, "Next r1", "", ""},
		{"step", request{method: "POST", pattern: step, target: "/api/lessons/runs/r1/finish"}, 200, "Finish r1", "", ""},
		{"step", request{method: "POST", pattern: step, target: "/api/lessons/runs/r1/reset"}, 200, "Reset r1", "", ""},
		{"step", request{method: "POST", pattern: step, target: "/api/lessons/runs/r1/cleanup"}, 200, "Cleanup r1", "", ""},
		{"step", request{method: "POST", pattern: step, target: "/api/lessons/runs/r1/skip"}, 404, "", "", "error.lessonActionUnknown"},
		{"plan", request{method: "GET", pattern: "/api/lessons/cleanup", target: "/api/lessons/cleanup"}, 200, "CleanupPlan", `{"topics":[]}`, ""},
		{"cleanup", request{method: "POST", pattern: "/api/lessons/cleanup", target: "/api/lessons/cleanup"}, 200, "CleanupAll", `{"deleted":[]}`, ""},
		{"cleanup", request{method: "POST", pattern: "/api/lessons/cleanup", target: "/api/lessons/cleanup", body: `{"confirm":["orders-1"]}`}, 200, "CleanupConfirmed [orders-1]", `{"deleted":[]}`, ""},
		{"cleanup", request{method: "POST", pattern: "/api/lessons/cleanup", target: "/api/lessons/cleanup", body: `{"topics":["orders-1"]}`}, 400, "", "", "error.unknownField"},
	}
	for _, tt := range tests {
		t.Run(tt.req.target, func(t *testing.T) {
			f := &fakeLessons{}
			a := serve(t, handler[tt.handler](New(Deps{Lessons: f}, nil, Options{})), tt.req)
			if a.status != tt.status || a.code() != tt.code || f.String() != tt.call {
				t.Errorf("got %d %q (asked %q), want %d %q (asked %q): %s", a.status, a.code(), f.String(), tt.status, tt.code, tt.call, a.body)
			}
			if tt.body != "" && a.body != tt.body {
				t.Errorf("got %s, want %s", a.body, tt.body)
			}
			// Without a runner, the same request is a 404.
			if a := serve(t, handler[tt.handler](New(Deps{}, nil, Options{})), tt.req); a.status != 404 || a.code() != "error.lessonsDisabled" {
				t.Errorf("without lessons: got %d %s, want 404 error.lessonsDisabled", a.status, a.body)
			}
		})
	}
	f := &fakeLessons{cleanup: []string{"orders-1"}}
	if a := get(t, New(Deps{Lessons: f}, nil, Options{}).ListLessonCleanup, "/c", "/c"); a.body != `{"topics":["orders-1"]}` {
		t.Errorf("the cleanup plan: got %s", a.body)
	}
}

// fakeStage holds one topic, "orders", of two partitions.
type fakeStage struct{ calls }

func (f *fakeStage) Topic(_ context.Context, name string) (cluster.TopicInfo, error) {
	f.add("Topic %s", name)
	if name != "orders" {
		return cluster.TopicInfo{}, problem.New(problem.NotFound, "error.unknownTopic", "topic", name)
	}
	return cluster.TopicInfo{Name: name, Partitions: make([]cluster.PartitionInfo, 2)}, nil
}

// TestSetStageAndClassroom: the teacher puts an existing partition on
// the stage, which GET /api/classroom then names for the students'
// pages; a missing topic or partition is refused and the stage stays.
func TestSetStageAndClassroom(t *testing.T) {
	t.Parallel()
	s := New(Deps{Stage: &fakeStage{}, Lessons: &fakeLessons{}}, nil, Options{Classroom: true, JoinURL: "http://10.0.0.1:8080/"})
	tests := []struct {
		body   string
		status int
		code   string
		stage  string // the classroom's teacherPartition after
	}{
		{`{"topic":"orders","partition":1}`, 200, "", `{"topic":"orders","partition":1}`},
		{`{"topic":"orders","partition":2}`, 404, "error.unknownPartition", `{"topic":"orders","partition":1}`},
		{`{"topic":"nope"}`, 404, "error.unknownTopic", `{"topic":"orders","partition":1}`},
		{`{"partition":0}`, 400, "error.topicNameRequired", `{"topic":"orders","partition":1}`},
		{`{"topic":"orders","partition":-1}`, 400, "error.partitionNegative", `{"topic":"orders","partition":1}`},
		{`{"topic":"orders"}`, 200, "", `{"topic":"orders","partition":0}`},
	}
	for _, tt := range tests {
		a := post(t, s.SetStage, "/api/classroom/stage", "/api/classroom/stage", tt.body)
		if a.status != tt.status || a.code() != tt.code {
			t.Errorf("%s: got %d %s, want %d %q", tt.body, a.status, a.body, tt.status, tt.code)
		}
		var got classroomView
		decode(t, get(t, s.GetClassroom, "/api/classroom", "/api/classroom").body, &got)
		if stage := jsonOf(t, got.TeacherPartition); stage != tt.stage {
			t.Errorf("after %s the stage is %s, want %s", tt.body, stage, tt.stage)
		}
	}
	// A student's page that names itself is counted; the teacher's is not.
	serve(t, s.GetClassroom, request{method: "GET", pattern: "/api/classroom", target: "/api/classroom?client=tab-aaaaaaaa", student: true})
	serve(t, s.GetClassroom, request{method: "GET", pattern: "/api/classroom", target: "/api/classroom?client=tab-bbbbbbbb"})
	serve(t, s.GetClassroom, request{method: "GET", pattern: "/api/classroom", target: "/api/classroom?client=no", student: true})
	var got classroomView
	decode(t, serve(t, s.GetClassroom, request{method: "GET", pattern: "/api/classroom", target: "/api/classroom", student: true}).body, &got)
	want := classroomView{Classroom: true, Role: "student", Students: 1, TeacherPartition: &partitionRef{"orders", 0}, JoinURL: "http://10.0.0.1:8080/", LessonRun: "r1"}
	if jsonOf(t, got) != jsonOf(t, want) {
		t.Errorf("got %s, want %s", jsonOf(t, got), jsonOf(t, want))
	}
	// A websocket viewer counts while connected; a teacher's opens the stage.
	student := httptest.NewRequest("GET", "/ws", nil)
	student = student.WithContext(httpx.WithRole(student.Context(), httpx.Student, ""))
	done := s.Watching(student, "orders", 1)
	if got := classroomOf(t, s).Students; got != 1 {
		t.Errorf("a student page that polled and watches: %d students, want 1 (the larger count)", got)
	}
	done()
	if topic, partition, ok := s.TeacherWatches(); topic != "orders" || partition != 0 || !ok {
		t.Errorf("TeacherWatches() = %s, %d, %t; want orders, 0, true", topic, partition, ok)
	}
	// Outside a classroom nobody is counted and no join address is sent.
	plain := New(Deps{}, nil, Options{JoinURL: "http://x/"})
	serve(t, plain.GetClassroom, request{method: "GET", pattern: "/c", target: "/c?client=tab-aaaaaaaa", student: true})
	if got := classroomOf(t, plain); got.Students != 0 || got.JoinURL != "" || got.Classroom {
		t.Errorf("outside a classroom: got %+v", got)
	}
}

func classroomOf(t *testing.T, s *Server) classroomView {
	t.Helper()
	var v classroomView
	decode(t, get(t, s.GetClassroom, "/api/classroom", "/api/classroom").body, &v)
	return v
}

// fakeExercises grades one exercise, "commit", whose results are the
// students it was given.
type fakeExercises struct {
	calls
	class   *exercises.Class
	results []exercises.Result
}

func (f *fakeExercises) Class() *exercises.Class { return f.class }
func (f *fakeExercises) Current() string         { return "commit" }
func (f *fakeExercises) Start(id string) (exercises.Exercise, error) {
	f.add("Start %s", id)
	ex, _ := exercises.Find(id)
	return ex, nil
}
func (f *fakeExercises) Reset(_ context.Context, id string) (map[string]int64, error) {
	f.add("Reset %s", id)
	return map[string]int64{"ann": 3}, nil
}
func (f *fakeExercises) Results(id string) ([]exercises.Result, int64, error) {
	f.add("Results %s", id)
	return f.results, 7, nil
}
func (f *fakeExercises) Wait(_ context.Context, after int64) int64 {
	f.add("Wait %d", after)
	return after + 1
}
func (f *fakeExercises) Remove(_ context.Context, name string, deleteNames bool) error {
	f.add("Remove %s %v", name, deleteNames)
	return nil
}
func (f *fakeExercises) Stage() (exercises.Stage, bool) { return exercises.Stage{}, false }
func (f *fakeExercises) SetStage(exercises.Stage)       {}
func (f *fakeExercises) Flush(context.Context) error    { return nil }

// TestExercisesAndStudents: a student joins (a cookie), sees their own
// identity and results only; the teacher sees every student, starts and
// resets an exercise, and downloads the CSV; without a class every
// endpoint answers 404.
func TestExercisesAndStudents(t *testing.T) {
	t.Parallel()
	class := exercises.NewClass(exercises.ClassConfig{Bootstrap: []string{"10.0.0.1:9092"}})
	ex, _ := exercises.Find("commit")
	f := &fakeExercises{class: class}
	s := New(Deps{Exercises: f}, nil, Options{Classroom: true})

	joined := serve(t, s.JoinClass, request{method: "POST", pattern: JoinPath, target: JoinPath, body: `{"name":"ann"}`, student: true})
	if joined.status != 201 || !strings.Contains(joined.header.Get("Set-Cookie"), StudentCookie+"=") || joined.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("join: got %d %s (%v)", joined.status, joined.body, joined.header)
	}
	if a := serve(t, s.JoinClass, request{method: "POST", pattern: JoinPath, target: JoinPath, body: `{"name":"Ann"}`, student: true}); a.status != 409 || a.code() != "error.studentNameTaken" {
		t.Errorf("a taken name: got %d %s, want 409 error.studentNameTaken", a.status, a.body)
	}
	if a := serve(t, s.JoinClass, request{method: "POST", pattern: JoinPath, target: JoinPath, body: `{"name":"a"}`, student: true}); a.status != 400 || a.code() != "error.studentName" {
		t.Errorf("a bad name: got %d %s, want 400 error.studentName", a.status, a.body)
	}
	ann := class.Students()[0]
	annCookie := &http.Cookie{Name: StudentCookie, Value: ann.Token}
	f.results = []exercises.Result{
		{Name: "ann", Done: true, Checks: []exercises.CheckResult{{Key: "committed", Verdict: exercises.Verdict{OK: true}}, {Key: "readCommitted", Verdict: exercises.Verdict{OK: true}}}},
		{Name: "bob", Checks: []exercises.CheckResult{{Key: "committed", Verdict: exercises.Verdict{Hint: catalog.M("exercise.hint.duplicate", "offset", "3", "of", "1")}}, {Key: "readCommitted"}}},
	}
	const results = "/api/exercises/{exercise}/results"
	tests := []struct {
		name   string
		h      http.HandlerFunc
		req    request
		status int
		has    []string // what the answer holds
		hasnt  []string // what it must not
		code   string
	}{
		{"me", s.GetMe, request{method: "GET", pattern: "/me", target: "/me", student: true, cookie: annCookie}, 200, []string{`"name":"ann"`, `"bootstrap":"10.0.0.1:9092"`}, nil, ""},
		{"me without a cookie", s.GetMe, request{method: "GET", pattern: "/me", target: "/me", student: true}, 404, nil, nil, "error.notAStudent"},
		{"the class", s.ListStudents, request{method: "GET", pattern: "/s", target: "/s"}, 200, []string{`"name":"ann"`, `"topic":"student-ann-"`}, []string{ann.Token}, ""},
		{"the class to a student", s.ListStudents, request{method: "GET", pattern: "/s", target: "/s", student: true, cookie: annCookie}, 403, nil, nil, "error.studentView"},
		{"exercises", s.ListExercises, request{method: "GET", pattern: "/e", target: "/e"}, 200, []string{`"current":"commit"`, `"id":"idempotent"`}, nil, ""},
		{"an exercise for the teacher", s.GetExercise, request{method: "GET", pattern: "/e/{exercise}", target: "/e/commit"}, 200, []string{`"current":true`, `\u003cname\u003e-commit`}, nil, ""},
		{"an exercise for ann", s.GetExercise, request{method: "GET", pattern: "/e/{exercise}", target: "/e/commit", student: true, cookie: annCookie}, 200, []string{`student-ann-commit`}, []string{`\u003cname\u003e`}, ""},
		{"an unknown exercise", s.GetExercise, request{method: "GET", pattern: "/e/{exercise}", target: "/e/nope"}, 404, nil, nil, "error.unknownExercise"},
		{"start", s.ExerciseAction, request{method: "POST", pattern: "/e/{exercise}/{action}", target: "/e/commit/start"}, 200, []string{`"id":"commit"`}, nil, ""},
		{"reset", s.ExerciseAction, request{method: "POST", pattern: "/e/{exercise}/{action}", target: "/e/commit/reset"}, 200, []string{`"from":{"ann":3}`}, nil, ""},
		{"an unknown action", s.ExerciseAction, request{method: "POST", pattern: "/e/{exercise}/{action}", target: "/e/commit/grade"}, 404, nil, nil, "error.unknownExerciseAction"},
		{"the teacher's results", s.GetResults, request{method: "GET", pattern: results, target: "/api/exercises/commit/results"}, 200, []string{`"version":7`, `"name":"ann"`, `"name":"bob"`, `"hintCode":"exercise.hint.duplicate"`}, nil, ""},
		{"ann's results", s.GetResults, request{method: "GET", pattern: results, target: "/api/exercises/commit/results?after=6", student: true, cookie: annCookie}, 200, []string{`"name":"ann"`}, []string{`"bob"`}, ""},
		{"results to nobody", s.GetResults, request{method: "GET", pattern: results, target: "/api/exercises/commit/results", student: true}, 403, nil, nil, "error.notAStudent"},
		{"results after no version", s.GetResults, request{method: "GET", pattern: results, target: "/api/exercises/commit/results?after=new"}, 400, nil, nil, "error.numberParam"},
		{"the CSV to a student", s.GetResultsCSV, request{method: "GET", pattern: "/api/exercises/{exercise}/results.csv", target: "/api/exercises/commit/results.csv", student: true, cookie: annCookie}, 403, nil, nil, "error.studentView"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := serve(t, tt.h, tt.req)
			if a.status != tt.status || a.code() != tt.code {
				t.Fatalf("got %d %s, want %d %q", a.status, a.body, tt.status, tt.code)
			}
			for _, s := range tt.has {
				if !strings.Contains(a.body, s) {
					t.Errorf("the answer lacks %s: %s", s, a.body)
				}
			}
			for _, s := range tt.hasnt {
				if strings.Contains(a.body, s) {
					t.Errorf("the answer holds %s: %s", s, a.body)
				}
			}
		})
	}
	if got := f.String(); !strings.Contains(got, "Wait 6") || !strings.Contains(got, "Start commit") || !strings.Contains(got, "Reset commit") {
		t.Errorf("the grader was asked %q; want a wait past version 6, a start and a reset", got)
	}

	csvAnswer := get(t, s.GetResultsCSV, "/api/exercises/{exercise}/results.csv", "/api/exercises/commit/results.csv")
	rows, err := csv.NewReader(strings.NewReader(csvAnswer.body)).ReadAll()
	want := [][]string{append([]string{"name", "done"}, ex.CheckKeys()...), {"ann", "1", "1", "1"}, {"bob", "0", "0", "0"}}
	if err != nil || jsonOf(t, rows) != jsonOf(t, want) || csvAnswer.header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Errorf("the CSV: got %v %v (%s), want %v", rows, err, csvAnswer.header.Get("Content-Type"), want)
	}

	none := New(Deps{}, nil, Options{})
	for name, h := range map[string]http.HandlerFunc{"join": none.JoinClass, "me": none.GetMe, "students": none.ListStudents, "exercises": none.ListExercises, "exercise": none.GetExercise} {
		if a := serve(t, h, request{method: "GET", pattern: "/x/{exercise}", target: "/x/commit"}); a.status != 404 || a.code() != "error.exercisesDisabled" {
			t.Errorf("%s without a class: got %d %s, want 404 error.exercisesDisabled", name, a.status, a.body)
		}
	}
}
