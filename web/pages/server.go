package pages

import (
	"log/slog"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// Options are what the pages need to know of how the server is used.
type Options struct {
	// Classroom is true in classroom mode: the teacher's partition page
	// then shows the join bar and the students' pages follow the teacher.
	Classroom bool
	// JoinURL is the address students open in classroom mode.
	JoinURL string
	// JoinWarning, when set, is why students cannot open JoinURL (it is
	// this computer's loopback address) and the flag that fixes it: the
	// teacher's pages show it beside the join address and its QR code.
	JoinWarning *catalog.Message
	// TeacherWatches and TeacherWrote, when set, tell / what the
	// teacher chose: the partition the teacher's page watches, and the
	// one the teacher last wrote to or created; each nil when none.
	TeacherWatches, TeacherWrote func() *Choice
	// ListsTopic and MayReadOwn, when set, say what a classroom
	// student's lists show: the topics, and the groups and
	// transactional ids, they may read (web/api/reads.go).
	ListsTopic func(r *http.Request, topic string) bool
	MayReadOwn func(r *http.Request, name string) bool
}

// Choice names a partition the teacher chose (see Options).
type Choice struct {
	Topic     string
	Partition int32
}

// Server renders the pages, one file per page with its view and handler
// beside its template. The web package's router registers each handler.
type Server struct {
	deps   httpx.Deps
	log    *slog.Logger
	access Options
}

// New returns the pages over deps. log may be nil.
func New(deps httpx.Deps, log *slog.Logger, opts Options) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{deps: deps, log: log, access: opts}
}
