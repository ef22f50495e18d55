package api

import (
	"net/http"

	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// lessonsEnabled answers 404 when the server was built without a lesson
// runner.
func (s *Server) lessonsEnabled(w http.ResponseWriter, r *http.Request) bool {
	if s.deps.Lessons == nil {
		s.writeError(w, r, problem.New(problem.NotFound, "error.lessonsDisabled"))
		return false
	}
	return true
}

// ListLessons is GET /api/lessons.
func (s *Server) ListLessons(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"lessons": s.deps.Lessons.List(), "current": s.deps.Lessons.Current()})
}

// StartLesson is POST /api/lessons/{lesson}/runs: a new run, nothing done yet.
func (s *Server) StartLesson(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	st, err := s.deps.Lessons.Start(httpx.PathParam(r, "lesson"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusCreated, st)
}

// GetLessonRun is GET /api/lessons/runs/{run}.
func (s *Server) GetLessonRun(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	st, err := s.deps.Lessons.State(httpx.PathParam(r, "run"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, st)
}

// StepLessonRun is POST /api/lessons/runs/{run}/{next|finish|reset|cleanup}.
func (s *Server) StepLessonRun(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	id, ctx := httpx.PathParam(r, "run"), r.Context()
	var (
		st  lessons.RunState
		err error
	)
	switch action := httpx.PathParam(r, "action"); action {
	case "next":
		st, err = s.deps.Lessons.Next(ctx, id)
	case "finish":
		st, err = s.deps.Lessons.Finish(ctx, id)
	case "reset":
		st, err = s.deps.Lessons.Reset(id)
	case "cleanup":
		st, err = s.deps.Lessons.Cleanup(ctx, id)
	default:
		err = problem.New(problem.NotFound, "error.lessonActionUnknown", "action", action)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, st)
}

// CleanupLessons is POST /api/lessons/cleanup: deletes the topics every
// lesson run but the current one made, and answers their names.
func (s *Server) CleanupLessons(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	deleted, err := s.deps.Lessons.CleanupAll(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if deleted == nil {
		deleted = []string{}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"deleted": deleted})
}
