package web

import (
	"net/http"

	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/problem"
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

// listLessons is GET /api/lessons.
func (s *Server) listLessons(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"lessons": s.deps.Lessons.List(), "current": s.deps.Lessons.Current()})
}

// startLesson is POST /api/lessons/{lesson}/runs: a new run, nothing done yet.
func (s *Server) startLesson(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	st, err := s.deps.Lessons.Start(pathParam(r, "lesson"))
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
	st, err := s.deps.Lessons.State(pathParam(r, "run"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// stepLessonRun is POST /api/lessons/runs/{run}/{next|finish|reset|cleanup}.
func (s *Server) stepLessonRun(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	id, ctx := pathParam(r, "run"), r.Context()
	var (
		st  lessons.RunState
		err error
	)
	switch action := pathParam(r, "action"); action {
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
	writeJSON(w, http.StatusOK, st)
}

// cleanupLessons is POST /api/lessons/cleanup: deletes the topics every
// lesson run but the current one made, and answers their names.
func (s *Server) cleanupLessons(w http.ResponseWriter, r *http.Request) {
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
	writeJSON(w, http.StatusOK, map[string]any{"deleted": deleted})
}
