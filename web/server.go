package web

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/api"
	"github.com/offsetlab/offsetlab/web/httpx"
	"github.com/offsetlab/offsetlab/web/pages"
	"github.com/offsetlab/offsetlab/web/static"
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

// Deps are the services the web layer drives (see httpx.Deps).
type Deps = httpx.Deps

// Server serves the dashboard and its API: the router and the middleware
// every request passes are here, the handlers in web/api (JSON) and
// web/pages (HTML), the assets in web/static.
type Server struct {
	deps    Deps
	log     *slog.Logger
	access  Access
	limits  Limits
	auth    *teacherAuth
	joinURL string
	api     *api.Server
	pages   *pages.Server
	// oneWrite is a one-slot semaphore: one state change at a time.
	oneWrite chan struct{}
	reads    *readLimiter
	scans    *readLimiter
	viewers  *viewerLimiter
	joins    joinLimiter
	polls    perClient // long polls of the results, per client address
	// going closes live views when the server stops (CloseViewers).
	going *goingAway
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
	s.api = api.New(api.DepsOf(deps.Lab, deps.Lessons, deps.Exercises), log, api.Options{Classroom: s.access.Classroom, JoinURL: s.joinURL,
		ScanWorkers: func(r *http.Request) func() (func(), bool) { return s.scans.lender(clientAddr(r)) }})
	s.pages = pages.New(deps, log, pages.Options{Classroom: s.access.Classroom, JoinURL: s.joinURL, JoinWarning: s.joinWarning(),
		TeacherWatches: choice(s.api.TeacherWatches), TeacherWrote: choice(s.api.TeacherWrote),
		ListsTopic: s.api.ListsTopic, MayReadOwn: s.api.MayReadOwn})
	s.limits = s.limits.withDefaults()
	s.joins = joinLimiter{burst: s.limits.JoinsPerClient, every: s.limits.JoinEvery}
	s.reads = newReadLimiter(s.limits)
	s.scans = newScanLimiter(s.limits)
	s.viewers = &viewerLimiter{limits: s.limits}
	s.going = newGoingAway()
	return s
}

// choice adapts one of the API's records of what the teacher chose to
// what the pages ask for it.
func choice(f func() (string, int32, bool)) func() *pages.Choice {
	return func() *pages.Choice {
		if topic, partition, ok := f(); ok {
			return &pages.Choice{Topic: topic, Partition: partition}
		}
		return nil
	}
}

// Handler returns the router. Every route is registered here.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer, middleware.GetHead, securityHeaders, s.checkHost, s.identify, s.studentReads,
		sameOriginWrites, limitBody, jsonBodies, s.guardWrites)

	r.Get("/", s.pages.Home)
	r.Get("/exercise", s.pages.StudentExercise)
	r.Get("/teacher/login", s.teacherLogin)
	r.Get("/classroom/join.svg", s.joinQR)
	r.Get("/exercises", s.pages.ExerciseBoard)
	r.With(s.reads.limit).Get("/topics", s.pages.Topics)
	r.Get("/topics/{topic}", s.pages.Topic)
	r.Get("/topics/{topic}/partitions/{partition}", s.pages.Partition)
	r.Get("/groups", s.pages.Groups)
	r.Get("/groups/{group}", s.pages.Group)
	r.Get("/transactions", s.pages.Transactions)
	r.Get("/static/{version}/*", static.Serve)
	r.Get("/favicon.ico", static.Favicon)
	r.Get("/healthz", s.api.Healthz)
	r.Get("/ws/topics/{topic}/partitions/{partition}", s.watchPartition)

	r.Route("/api", func(r chi.Router) {
		r.Use(middleware.Timeout(requestTimeout))
		r.Get("/cluster", s.api.GetCluster)
		r.Get("/classroom", s.api.GetClassroom)
		r.Post("/classroom/stage", s.api.SetStage)
		r.With(s.limitJoins).Post("/classroom/students", s.api.JoinClass)
		r.Get("/classroom/students", s.api.ListStudents)
		r.Get("/classroom/students/me", s.api.GetMe)
		r.Delete("/classroom/students/{name}", s.api.RemoveStudent)
		r.Get("/exercises", s.api.ListExercises)
		r.Get("/exercises/{exercise}", s.api.GetExercise)
		r.Post("/exercises/{exercise}/{action}", s.api.ExerciseAction)
		r.With(s.limitLongPolls).Get("/exercises/{exercise}/results", s.api.GetResults)
		r.Get("/exercises/{exercise}/results.csv", s.api.GetResultsCSV)
		r.Get("/events", s.api.GetEvents)
		r.With(s.reads.limit).Get("/topics", s.api.ListTopics)
		r.Post("/topics", s.api.CreateTopic)
		r.Get("/topics/{topic}", s.api.GetTopic)
		r.Delete("/topics/{topic}", s.api.DeleteTopic)
		r.With(s.scans.limit).Get("/topics/{topic}/search", s.api.GetTopicSearch)
		r.With(s.scans.limit).Get("/topics/{topic}/offsets", s.api.GetTopicOffsetsForTime)
		r.Route("/topics/{topic}/partitions/{partition}", func(r chi.Router) {
			r.With(s.scanOrRead).Get("/log", s.api.GetLog)
			r.With(s.reads.limit).Get("/records", s.api.GetRecords)
			r.With(s.reads.limit).Get("/share", s.api.GetSharePartition)
			r.With(s.scans.limit).Get("/map", s.api.GetMap)
			r.With(s.scans.limit).Get("/search", s.api.GetSearch)
			r.With(s.scans.limit).Get("/jump", s.api.GetJump)
			r.With(s.scans.limit).Get("/offset", s.api.GetOffsetForTime)
			r.Get("/producers", s.api.GetProducers)
			r.With(s.reads.limit).Get("/lso", s.api.GetHeldLSO)
			r.Get("/history", s.api.GetHistory)
			r.Post("/transactions/{start}/abort", s.api.AbortTransaction)
		})
		r.Post("/produce", s.api.Produce)
		r.Get("/share/workers", s.api.ListShareWorkers)
		r.Post("/share/workers", s.api.StartShareWorker)
		r.Post("/share/workers/{name}/{action}", s.api.ShareWorkerAction)
		r.Delete("/share/workers/{name}", s.api.StopShareWorker)
		r.Post("/processor/runs", s.api.RunProcessor)
		r.Get("/groups", s.api.ListGroups)
		r.Get("/groups/{group}", s.api.GetGroup)
		r.Get("/transactions", s.api.ListTransactions)
		r.Get("/transactions/{transactionalID}", s.api.GetTransaction)
		r.Post("/transactions/{transactionalID}/terminate", s.api.TerminateTransaction)
		r.Post("/transactions/{transactionalID}/{step}", s.api.TransactionStep)
		r.Get("/lessons", s.api.ListLessons)
		r.Get("/lessons/cleanup", s.api.ListLessonCleanup)
		r.Post("/lessons/cleanup", s.api.CleanupLessons)
		r.Post("/lessons/{lesson}/runs", s.api.StartLesson)
		r.Get("/lessons/runs/{run}", s.api.GetLessonRun)
		r.Post("/lessons/runs/{run}/{action}", s.api.StepLessonRun)
		r.Get("/brokers", s.api.GetBrokers)
		r.Post("/brokers/{id}/{action}", s.api.BrokerAction)
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			httpx.Refuse(w, problem.NotFound, "error.noEndpoint", "method", r.Method, "path", r.URL.Path)
		})
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", "GET, HEAD, POST, DELETE")
			httpx.WriteProblem(w, http.StatusMethodNotAllowed, problem.New(problem.Invalid, "error.methodNotAllowed", "method", r.Method, "path", r.URL.Path))
		})
	})
	return r
}
