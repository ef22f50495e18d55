package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// One *lab.Lab serves every resource, as the server wires it.
var _ Lab = (*lab.Lab)(nil)

// calls is what a fake was asked, one line a call ("Log t 0 5 10"), for
// a test to compare with what it wants.
type calls struct {
	mu    sync.Mutex
	lines []string
}

func (c *calls) add(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, fmt.Sprintf(format, args...))
}

// String is the calls, one per line; "" when none.
func (c *calls) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, "\n")
}

// request is one request to a handler.
type request struct {
	method  string
	pattern string // the route, as web/server.go registers it
	target  string
	body    string // sent as JSON when not empty
	student bool   // sent by a student of a classroom
	cookie  *http.Cookie
}

// answer is a handler's answer.
type answer struct {
	status int
	body   string
	header http.Header
}

// code is the answer's catalogue key ("" when it is not an error).
func (a answer) code() string {
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal([]byte(a.body), &e)
	return e.Code
}

// args is the answer's catalogue arguments.
func (a answer) args() map[string]string {
	var e struct {
		Args map[string]string `json:"args"`
	}
	_ = json.Unmarshal([]byte(a.body), &e)
	return e.Args
}

// serve sends req to h, routed by chi under req.pattern and with its
// body read as the router does, and returns the answer.
func serve(t *testing.T, h http.HandlerFunc, req request) answer {
	t.Helper()
	router := chi.NewRouter()
	router.MethodFunc(req.method, req.pattern, h)
	var body io.Reader = http.NoBody
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	r := httptest.NewRequest(req.method, req.target, body)
	if req.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if req.cookie != nil {
		r.AddCookie(req.cookie)
	}
	role := httpx.Teacher
	if req.student {
		role = httpx.Student
	}
	r = r.WithContext(httpx.WithRole(r.Context(), role, ""))
	r, err := httpx.BufferBody(r) // as the router's middleware does
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	router.ServeHTTP(w, r)
	return answer{status: w.Code, body: strings.TrimSpace(w.Body.String()), header: w.Header()}
}

// get is serve of a GET.
func get(t *testing.T, h http.HandlerFunc, pattern, target string) answer {
	t.Helper()
	return serve(t, h, request{method: http.MethodGet, pattern: pattern, target: target})
}

// post is serve of a POST with a JSON body (none when empty).
func post(t *testing.T, h http.HandlerFunc, pattern, target, body string) answer {
	t.Helper()
	return serve(t, h, request{method: http.MethodPost, pattern: pattern, target: target, body: body})
}

// jsonOf is v as the API encodes it, for comparing answers.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decode reads a JSON answer into v.
func decode(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

func sprint(v any) string { return fmt.Sprint(v) }
