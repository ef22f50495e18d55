package api

import (
	"context"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// ProcessorLab runs the seeds' order processor; *lab.Lab is one.
type ProcessorLab interface {
	RunProcessor(ctx context.Context, cfg producer.RunConfig) (*producer.RunResult, error)
}

// runBody is POST /api/processor/runs.
type runBody struct {
	Mode            string `json:"mode"`
	Input           string `json:"input"`
	Output          string `json:"output"`
	Group           string `json:"group"`
	TransactionalID string `json:"transactionalId"`
	CrashAt         string `json:"crashAt"`
}

// RunProcessor is POST /api/processor/runs: one start of the seeds'
// order processor, with a crash point if asked.
func (s *Server) RunProcessor(w http.ResponseWriter, r *http.Request) {
	var body runBody
	if err := httpx.DecodeJSON(r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	cfg := producer.RunConfig{
		Mode: producer.Mode(body.Mode), Input: body.Input, Output: body.Output, Group: body.Group,
		TransactionalID: body.TransactionalID, CrashAt: body.CrashAt,
	}
	if err := cfg.Validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !s.allowFault(w, r) {
		return
	}
	s.class.shown.add(cfg.Group, cfg.TransactionalID)
	res, err := s.deps.Processor.RunProcessor(r.Context(), cfg)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, res)
}
