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

// ListLessonCleanup is GET /api/lessons/cleanup: {"topics":[…]}, what
// POST /api/lessons/cleanup would delete — the topics lesson runs of this
// dashboard created, but the current run's — without deleting anything.
func (s *Server) ListLessonCleanup(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	topics, err := s.deps.Lessons.CleanupPlan(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if topics == nil {
		topics = []string{}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"topics": topics})
}

// cleanupRequest is POST /api/lessons/cleanup's optional body: the list
// GET /api/lessons/cleanup answered, as the teacher confirmed it.
type cleanupRequest struct {
	Confirm []string `json:"confirm"`
}

// CleanupLessons is POST /api/lessons/cleanup: deletes the topics lesson
// runs of this dashboard created, but the current run's, and answers their
// names. With {"confirm":[…]} it deletes only those, each of which must be
// on GET's list (409 otherwise, nothing deleted).
func (s *Server) CleanupLessons(w http.ResponseWriter, r *http.Request) {
	if !s.lessonsEnabled(w, r) {
		return
	}
	var (
		deleted []string
		err     error
	)
	if httpx.HasBody(r) {
		var req cleanupRequest
		if err := httpx.DecodeJSON(r, &req); err != nil {
			s.writeError(w, r, err)
			return
		}
		deleted, err = s.deps.Lessons.CleanupConfirmed(r.Context(), req.Confirm)
	} else {
		deleted, err = s.deps.Lessons.CleanupAll(r.Context())
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if deleted == nil {
		deleted = []string{}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"deleted": deleted})
}
