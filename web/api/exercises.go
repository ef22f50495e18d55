package api

import (
	"context"
	"encoding/csv"
	"net/http"
	"time"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// longPoll bounds how long GET …/results?after= waits for a change.
const longPoll = 25 * time.Second

// ListExercises is GET /api/exercises.
func (s *Server) ListExercises(w http.ResponseWriter, r *http.Request) {
	if !s.exercisesEnabled(w, r) {
		return
	}
	out := []exercises.Summary{}
	for _, e := range exercises.Builtin() {
		out = append(out, e.Summary())
	}
	var current *string
	if c := s.deps.Exercises.Current(); c != "" {
		current = &c
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"exercises": out, "current": current})
}

// exerciseView is one exercise for the caller: what to build and the
// starter code, with the caller's names.
type exerciseView struct {
	exercises.Summary
	Current  bool                `json:"current"`
	Names    exercises.Names     `json:"names"`
	Steps    []exercises.Text    `json:"steps"`
	Starters []exercises.Starter `json:"starters"`
}

// view is ex for the request's caller: a student's own names and
// credentials, or the teacher's placeholders.
func (s *Server) view(r *http.Request, ex exercises.Exercise) exerciseView {
	id := s.deps.Exercises.Class().Placeholder("<name>")
	names := ex.NamesFor("<name>")
	if st, ok := s.studentOf(r); ok {
		id, names = st.Kafka, ex.NamesFor(st.Name)
	}
	return exerciseView{
		Summary: ex.Summary(), Current: s.deps.Exercises.Current() == ex.ID, Names: names,
		Steps: ex.StepTexts(names, id.Bootstrap), Starters: ex.Starters(id, names),
	}
}

// exerciseOf is the path's exercise, or a 404 written.
func (s *Server) exerciseOf(w http.ResponseWriter, r *http.Request) (exercises.Exercise, bool) {
	if !s.exercisesEnabled(w, r) {
		return exercises.Exercise{}, false
	}
	id := httpx.PathParam(r, "exercise")
	ex, ok := exercises.Find(id)
	if !ok {
		s.writeError(w, r, problem.New(problem.NotFound, "error.unknownExercise", "exercise", id))
	}
	return ex, ok
}

// GetExercise is GET /api/exercises/{exercise}.
func (s *Server) GetExercise(w http.ResponseWriter, r *http.Request) {
	ex, ok := s.exerciseOf(w, r)
	if !ok {
		return
	}
	w.Header().Set("Cache-Control", "no-store") // a student's starters hold their password
	httpx.WriteJSON(w, http.StatusOK, s.view(r, ex))
}

// ExerciseAction is POST /api/exercises/{exercise}/{start|reset}, the
// teacher's (the router lets only the teacher write).
func (s *Server) ExerciseAction(w http.ResponseWriter, r *http.Request) {
	ex, ok := s.exerciseOf(w, r)
	if !ok {
		return
	}
	switch action := httpx.PathParam(r, "action"); action {
	case "start":
		if _, err := s.deps.Exercises.Start(ex.ID); err != nil {
			s.writeError(w, r, err)
			return
		}
		s.keepClass(r)
		httpx.WriteJSON(w, http.StatusOK, s.view(r, ex))
	case "reset":
		from, err := s.deps.Exercises.Reset(r.Context(), ex.ID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.keepClass(r)
		httpx.WriteJSON(w, http.StatusOK, map[string]any{"exercise": ex.ID, "from": from})
	default:
		s.writeError(w, r, problem.New(problem.NotFound, "error.unknownExerciseAction", "action", action))
	}
}

// CheckView is one check of a result as the API sends it (the page reads
// it typed: web/static/types/wire.d.ts).
type CheckView struct {
	Key      string             `json:"key"`
	OK       bool               `json:"ok"`
	Evidence exercises.Evidence `json:"evidence"`
	Hint     string             `json:"hint,omitempty"`
	HintCode string             `json:"hintCode,omitempty"`
	HintArgs map[string]string  `json:"hintArgs,omitempty"`
}

// ResultView is one student's result, as GET /api/exercises/{id}/results
// sends it.
type ResultView struct {
	Name      string      `json:"name"`
	Done      bool        `json:"done"`
	Checks    []CheckView `json:"checks"`
	CheckedAt *time.Time  `json:"checkedAt"`
}

func viewOf(res exercises.Result) ResultView {
	v := ResultView{Name: res.Name, Done: res.Done, Checks: []CheckView{}}
	if !res.CheckedAt.IsZero() {
		v.CheckedAt = &res.CheckedAt
	}
	for _, c := range res.Checks {
		cv := CheckView{Key: c.Key, OK: c.OK, Evidence: c.Evidence}
		if !c.Hint.IsZero() {
			cv.Hint, cv.HintCode, cv.HintArgs = c.Hint.String(), c.Hint.Key, c.Hint.Args
		}
		v.Checks = append(v.Checks, cv)
	}
	return v
}

// visibleResults are the exercise's results the caller may see: the
// teacher every student's, a student their own. It waits for a version
// past after (when after >= 0) for at most longPoll.
func (s *Server) visibleResults(w http.ResponseWriter, r *http.Request, ex exercises.Exercise, after int64) ([]ResultView, int64, bool) {
	teacher := httpx.RoleOf(r) == httpx.Teacher
	me, isStudent := s.studentOf(r)
	if !teacher && !isStudent {
		s.writeError(w, r, s.notAStudent(r, problem.Forbidden))
		return nil, 0, false
	}
	if after >= 0 {
		ctx, cancel := context.WithTimeout(r.Context(), longPoll)
		s.deps.Exercises.Wait(ctx, after)
		cancel()
	}
	results, version, err := s.deps.Exercises.Results(ex.ID)
	if err != nil {
		s.writeError(w, r, err)
		return nil, 0, false
	}
	out := []ResultView{}
	for _, res := range results {
		if teacher || res.Name == me.Name {
			out = append(out, viewOf(res))
		}
	}
	return out, version, true
}

// GetResults is GET /api/exercises/{exercise}/results[?after=V].
func (s *Server) GetResults(w http.ResponseWriter, r *http.Request) {
	ex, ok := s.exerciseOf(w, r)
	if !ok {
		return
	}
	after, err := paramsOf(r).number("after", -1) // a version of the results
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	results, version, ok := s.visibleResults(w, r, ex, int64(after))
	if !ok {
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	out := map[string]any{"exercise": ex.ID, "version": version, "students": results}
	if me, ok := s.studentOf(r); ok {
		if share, ok := s.deps.Exercises.Class().Share(r.Context(), me.Name); ok {
			out["share"] = share // what the student's page says of their quotas
		}
	}
	httpx.WriteJSON(w, http.StatusOK, out)
}

// GetResultsCSV is GET /api/exercises/{exercise}/results.csv (the
// teacher's): one row per student, name, done and 1/0 per check.
func (s *Server) GetResultsCSV(w http.ResponseWriter, r *http.Request) {
	ex, ok := s.exerciseOf(w, r)
	if !ok {
		return
	}
	if httpx.RoleOf(r) != httpx.Teacher {
		s.writeError(w, r, problem.New(problem.Forbidden, "error.studentView"))
		return
	}
	results, _, err := s.deps.Exercises.Results(ex.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+ex.ID+`-results.csv"`)
	out := csv.NewWriter(w)
	_ = out.Write(append([]string{"name", "done"}, ex.CheckKeys()...))
	for _, res := range results {
		row := []string{res.Name, bit(res.Done)}
		for _, c := range res.Checks {
			row = append(row, bit(c.OK))
		}
		_ = out.Write(row)
	}
	out.Flush()
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// keepClass waits until the class file holds the teacher's change, so
// that a crash right after the answer does not undo it; a failure to
// write is logged (the change holds in memory).
func (s *Server) keepClass(r *http.Request) {
	if err := s.deps.Exercises.Flush(r.Context()); err != nil {
		s.log.Error("the class was not saved", "err", err)
	}
}
