package web

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// requestTimeout bounds API calls; a processor run or a produce to an
// unreachable broker gives up rather than hanging the page.
const requestTimeout = 60 * time.Second

// Access says who may use the server and how: the listen address (for the
// Host allowlist and the links) and whether classroom mode is on. The zero
// value is the single-user default: every request is the teacher's, and
// only loopback host names are accepted.
type Access struct {
	// Classroom exposes a read-only student view: a request is the
	// teacher's only with the cookie set by the one-time login link, and
	// every state-changing request of anyone else is refused with 403.
	Classroom bool
	// ListenAddr is the host:port the server bound; it turns on the Host
	// allowlist. Empty (a handler embedded in tests, served on a port
	// chosen later) accepts any Host.
	ListenAddr string
	// AllowedHosts are further Host header values to accept: a name or
	// address (any port) or name:port.
	AllowedHosts []string
	// JoinURL is what students open. Empty derives it from ListenAddr,
	// with this machine's network address when it listens on all of them.
	JoinURL string
}

// Option configures a Server.
type Option func(*Server)

// WithAccess sets who may use the server (see Access).
func WithAccess(a Access) Option {
	return func(s *Server) { s.access = a }
}

// Server serves the dashboard and its API.
type Server struct {
	deps    Deps
	log     *slog.Logger
	access  Access
	limits  Limits
	auth    *teacherAuth
	joinURL string
	class   classroom
	// oneWrite is a one-slot semaphore: one state change at a time.
	oneWrite chan struct{}
	faults   *faultLimiter
	reads    *readLimiter
	viewers  *viewerLimiter
}

// New returns a Server over deps. log may be nil. Without options every
// request is the teacher's and only loopback host names are served (see
// WithAccess for classroom mode, WithLimits for the limits).
func New(deps Deps, log *slog.Logger, opts ...Option) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{deps: deps, log: log}
	for _, o := range opts {
		o(s)
	}
	s.joinURL = s.access.JoinURL
	if s.joinURL == "" && s.access.Classroom {
		s.joinURL = deriveJoinURL(s.access.ListenAddr)
	}
	s.auth = newTeacherAuth()
	s.oneWrite = make(chan struct{}, 1)
	s.faults = newFaultLimiter(faultRate, faultBurst)
	s.limits = s.limits.withDefaults()
	s.reads = newReadLimiter(s.limits)
	s.viewers = &viewerLimiter{limits: s.limits}
	return s
}

// Handler returns the router. Every route is registered here.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer, middleware.GetHead, securityHeaders, s.checkHost, s.identify,
		sameOriginWrites, limitBody, jsonBodies, s.guardWrites)

	r.Get("/", s.home)
	r.Get("/teacher/login", s.teacherLogin)
	r.Get("/classroom/join.svg", s.joinQR)
	r.With(s.reads.limit).Get("/topics", s.topicsPage)
	r.Get("/topics/{topic}", s.topicPage)
	r.Get("/topics/{topic}/partitions/{partition}", s.partitionPage)
	r.Get("/groups", s.groupsPage)
	r.Get("/groups/{group}", s.groupPage)
	r.Get("/transactions", s.transactionsPage)
	r.Get("/static/{version}/*", s.static)
	r.Get("/favicon.ico", s.favicon)
	r.Get("/healthz", s.healthz)
	r.Get("/ws/topics/{topic}/partitions/{partition}", s.watchPartition)

	r.Route("/api", func(r chi.Router) {
		r.Use(middleware.Timeout(requestTimeout))
		r.Get("/cluster", s.getCluster)
		r.Get("/classroom", s.getClassroom)
		r.Get("/events", s.getEvents)
		r.With(s.reads.limit).Get("/topics", s.listTopics)
		r.Post("/topics", s.createTopic)
		r.Get("/topics/{topic}", s.getTopic)
		r.Delete("/topics/{topic}", s.deleteTopic)
		r.Route("/topics/{topic}/partitions/{partition}", func(r chi.Router) {
			r.With(s.reads.limit).Get("/log", s.getLog)
			r.With(s.reads.limit).Get("/records", s.getRecords)
			r.With(s.reads.limit).Get("/map", s.getMap)
			r.With(s.reads.limit).Get("/search", s.getSearch)
			r.With(s.reads.limit).Get("/jump", s.getJump)
			r.Get("/offset", s.getOffsetForTime)
			r.Get("/producers", s.getProducers)
			r.Get("/history", s.getHistory)
			r.Post("/transactions/{start}/abort", s.abortTransaction)
		})
		r.Post("/produce", s.produce)
		r.Post("/processor/runs", s.runProcessor)
		r.Get("/groups", s.listGroups)
		r.Get("/groups/{group}", s.getGroup)
		r.Get("/transactions", s.listTransactions)
		r.Get("/transactions/{transactionalID}", s.getTransaction)
		r.Post("/transactions/{transactionalID}/{step}", s.transactionStep)
		r.Get("/lessons", s.listLessons)
		r.Post("/lessons/cleanup", s.cleanupLessons)
		r.Post("/lessons/{lesson}/runs", s.startLesson)
		r.Get("/lessons/runs/{run}", s.getLessonRun)
		r.Post("/lessons/runs/{run}/{action}", s.stepLessonRun)
		r.Get("/brokers", s.getBrokers)
		r.Post("/brokers/{id}/{action}", s.brokerAction)
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			refuse(w, problem.NotFound, "error.noEndpoint", "method", r.Method, "path", r.URL.Path)
		})
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", "GET, HEAD, POST, DELETE")
			writeProblem(w, http.StatusMethodNotAllowed, problem.New(problem.Invalid, "error.methodNotAllowed", "method", r.Method, "path", r.URL.Path))
		})
	})
	return r
}
