package api

import (
	"log/slog"
	"net/http"

	"github.com/offsetlab/offsetlab/web/httpx"
)

// Options are what the API needs to know of how the server is used.
type Options struct {
	// Classroom is true in classroom mode: GET /api/classroom then counts
	// the student pages and names JoinURL.
	Classroom bool
	// JoinURL is the address students open in classroom mode.
	JoinURL string
}

// Server holds the JSON API's handlers, one file per resource. The web
// package's router registers each handler; the middleware in front of
// them (host check, who may write, one write at a time, read limits) is
// the router's.
type Server struct {
	deps   httpx.Deps
	log    *slog.Logger
	access Options
	class  classroom
	faults *faultLimiter
}

// New returns the API over deps. log may be nil.
func New(deps httpx.Deps, log *slog.Logger, opts Options) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{deps: deps, log: log, access: opts, faults: newFaultLimiter(faultRate, faultBurst)}
	if deps.Exercises != nil {
		if st, ok := deps.Exercises.Stage(); ok { // the stage of before a restart
			s.class.teacherAt.Store(&partitionRef{Topic: st.Topic, Partition: st.Partition})
		}
	}
	return s
}

// writeError answers with err's status and sentence, logging a broker's
// or the server's own failure (see httpx.WriteError).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	httpx.WriteError(s.log, w, r, err)
}
