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
	// ScanWorkers, when set, gives a topic-wide scan the function that
	// lends it more scan turns for r's client (each reports whether one
	// more partition may run now, and returns its release): the router's
	// scan limits, which the scan's own turn is already counted in.
	ScanWorkers func(r *http.Request) func() (release func(), ok bool)
}

// Deps are the use cases the API's handlers call: one small interface
// per resource, declared in the file of the handlers that use it
// (TopicsLab in topics.go, …). The server fills them all with one
// *lab.Lab (DepsOf); a handler's test fills in only the one its handler
// calls, with a fake. A handler whose dependency is nil is never
// registered by such a test.
type Deps struct {
	Cluster      ClusterLab
	Topics       TopicsLab
	TopicSearch  TopicSearchLab
	Partitions   PartitionsLab
	Producers    ProducersLab
	Groups       GroupsLab
	Shares       SharesLab
	ShareWorkers ShareWorkersLab
	Transactions TransactionsLab
	Produce      ProduceLab
	Processor    ProcessorLab
	Brokers      BrokersLab
	Stage        StageLab
	// Lessons may be nil: the lesson endpoints then answer 404.
	Lessons httpx.Lessons
	// Exercises may be nil: the students' and exercises' endpoints then
	// answer 404.
	Exercises httpx.Exercises
}

// Lab is every use case the API calls, each resource's interface in one;
// *lab.Lab is one, and so is the router's httpx.Lab.
type Lab interface {
	ClusterLab
	TopicsLab
	TopicSearchLab
	PartitionsLab
	ProducersLab
	GroupsLab
	SharesLab
	ShareWorkersLab
	TransactionsLab
	ProduceLab
	ProcessorLab
	BrokersLab
	StageLab
}

// DepsOf is the API's dependencies when one lab serves every resource, as
// it does in the server; lessons and exercises may be nil.
func DepsOf(l Lab, lessons httpx.Lessons, exercises httpx.Exercises) Deps {
	return Deps{
		Cluster: l, Topics: l, TopicSearch: l, Partitions: l, Producers: l, Groups: l, Shares: l, ShareWorkers: l, Transactions: l,
		Produce: l, Processor: l, Brokers: l, Stage: l,
		Lessons: lessons, Exercises: exercises,
	}
}

// Server holds the JSON API's handlers, one file per resource. The web
// package's router registers each handler; the middleware in front of
// them (host check, who may write, one write at a time, read limits) is
// the router's.
type Server struct {
	deps   Deps
	log    *slog.Logger
	access Options
	class  classroom
	faults *faultLimiter
}

// New returns the API over deps. log may be nil.
func New(deps Deps, log *slog.Logger, opts Options) *Server {
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
