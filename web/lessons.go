package web

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/lessons"
)

// Lessons runs guided lessons; *lessons.Runner is one.
type Lessons interface {
	List() []lessons.Summary
	Start(id string) (lessons.RunState, error)
	State(id string) (lessons.RunState, error)
	Next(ctx context.Context, id string) (lessons.RunState, error)
	Finish(ctx context.Context, id string) (lessons.RunState, error)
	Reset(id string) (lessons.RunState, error)
}

// lessonsEnabled answers 404 when the server was built without a lesson
// runner.
func (s *Server) lessonsEnabled(w http.ResponseWriter, r *http.Request) bool {
	if s.deps.Lessons == nil {
		s.writeError(w, r, &apiError{status: http.StatusNotFound, msg: "guided lessons are not enabled on this server"})
		return false
	}
	return true
}

// listLessons is GET /api/lessons.
func (s *Server) listLessons(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"lessons": s.deps.Lessons.List()})
}

// startLesson is POST /api/lessons/{lesson}/runs: a new run, nothing done yet.
func (s *Server) startLesson(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	st, err := s.deps.Lessons.Start(chi.URLParam(r, "lesson"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, st)
}

// getLessonRun is GET /api/lessons/runs/{run}.
func (s *Server) getLessonRun(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	st, err := s.deps.Lessons.State(chi.URLParam(r, "run"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// stepLessonRun is POST /api/lessons/runs/{run}/{next|finish|reset}.
func (s *Server) stepLessonRun(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	id, ctx := chi.URLParam(r, "run"), r.Context()
	var (
		st  lessons.RunState
		err error
	)
	switch chi.URLParam(r, "action") {
	case "next":
		st, err = s.deps.Lessons.Next(ctx, id)
	case "finish":
		st, err = s.deps.Lessons.Finish(ctx, id)
	case "reset":
		st, err = s.deps.Lessons.Reset(id)
	default:
		err = &apiError{status: http.StatusNotFound, msg: "unknown lesson action " + chi.URLParam(r, "action") + ": use next, finish or reset"}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
