package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// MaxBodyBytes bounds every request body; a larger one is refused with 413.
const MaxBodyBytes = 4 << 20

// requestTimeout bounds API calls; a processor run or a produce to an
// unreachable broker gives up rather than hanging the page.
const requestTimeout = 60 * time.Second

// Server serves the dashboard and its API.
type Server struct {
	deps   Deps
	log    *slog.Logger
	access Access
	*classroomState
}

// New returns a Server over deps. log may be nil. Without options every
// request is the teacher's and only loopback host names are served (see
// WithAccess for classroom mode).
func New(deps Deps, log *slog.Logger, opts ...Option) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{deps: deps, log: log}
	for _, o := range opts {
		o(s)
	}
	s.classroomState = newClassroomState(s.access)
	if s.deps.Lessons != nil {
		s.deps.Lessons = lessonTracker{Lessons: s.deps.Lessons, last: &s.lessonRun}
	}
	return s
}

// Handler returns the router. Every route is registered here.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer, securityHeaders, s.checkHost, s.identify, sameOriginWrites, s.guardWrites, limitBody)

	r.Get("/", s.home)
	r.Get("/teacher/login", s.teacherLogin)
	r.Get("/classroom/join.svg", s.joinQR)
	r.Get("/topics/{topic}/partitions/{partition}", s.partitionPage)
	r.Get("/static/{version}/*", s.static)
	r.Get("/healthz", s.healthz)
	r.Get("/ws/topics/{topic}/partitions/{partition}", s.watchPartition)

	r.Route("/api", func(r chi.Router) {
		r.Use(middleware.Timeout(requestTimeout))
		r.Get("/cluster", s.getCluster)
		r.Get("/classroom", s.getClassroom)
		r.Get("/topics", s.listTopics)
		r.Post("/topics", s.createTopic)
		r.Get("/topics/{topic}", s.getTopic)
		r.Get("/topics/{topic}/partitions/{partition}/log", s.getLog)
		r.Get("/topics/{topic}/partitions/{partition}/records", s.getRecords)
		r.Post("/produce", s.produce)
		r.Post("/processor/runs", s.runProcessor)
		r.Get("/groups/{group}", s.getGroup)
		r.Get("/transactions/{transactionalID}", s.getTransaction)
		r.Post("/transactions/{transactionalID}/{step}", s.transactionStep)
		r.Get("/lessons", s.listLessons)
		r.Post("/lessons/{lesson}/runs", s.startLesson)
		r.Get("/lessons/runs/{run}", s.getLessonRun)
		r.Post("/lessons/runs/{run}/{action}", s.stepLessonRun)
		r.Get("/brokers", s.getBrokers)
		r.Post("/brokers/{id}/{action}", s.brokerAction)
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			writeErrorBody(w, http.StatusNotFound, "no such API endpoint: "+r.Method+" "+r.URL.Path, "error.noEndpoint", "method", r.Method, "path", r.URL.Path)
		})
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			writeErrorBody(w, http.StatusMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path, "error.methodNotAllowed", "method", r.Method, "path", r.URL.Path)
		})
	})
	return r
}

// securityHeaders sets a strict CSP and friends on every response.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// sameOriginWrites refuses state-changing requests sent by a page of
// another origin: a browser always sends Origin (or Sec-Fetch-Site) on a
// cross-origin POST, so a foreign page cannot drive the broker. Requests
// without either header (curl, scripts) are not from a browser page.
func sameOriginWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		if err := checkSameOrigin(r); err != nil {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": err.Error()})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func checkSameOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return errors.New("requests from other sites may not change anything here")
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || origin == "null" || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Errorf("requests from origin %q may not change anything here", origin)
	}
	return nil
}

func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			writeErrorBody(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", MaxBodyBytes), "error.bodyTooLarge", "max", strconv.Itoa(MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// decodeJSON reads the body into v with sentences a person can act on.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		var syntax *json.SyntaxError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooBig):
			return keyedError(http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", MaxBodyBytes), "error.bodyTooLarge", "max", strconv.Itoa(MaxBodyBytes))
		case errors.Is(err, io.EOF):
			return badRequest("the request body is empty; send a JSON object", "error.bodyEmpty")
		case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
			return badRequest("the request body is not valid JSON: "+err.Error(), "error.bodyNotJSON", "detail", err.Error())
		case errors.As(err, &typeErr):
			return badRequest(fmt.Sprintf("field %q must be a JSON %s", typeErr.Field, typeErr.Type.Kind()), "error.fieldType", "field", typeErr.Field, "type", typeErr.Type.Kind().String())
		default:
			return badRequest("the request body could not be read as JSON: "+err.Error(), "error.bodyUnreadable", "detail", err.Error())
		}
	}
	if dec.More() {
		return badRequest("the request body must hold a single JSON object", "error.bodySingleObject")
	}
	return nil
}
