package schemareg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// Embedded is the embedded broker's Schema Registry: franz-go's srfake (a
// Confluent-compatible REST API in memory) served on a listener of its
// own, so that the class's clients (confluent-kafka's serializers, the
// Java ones) register and look up schemas as against Confluent's. Every
// schema registered is appended to a file under the data directory and
// registered again, in the same order, when it starts: the ids stay those
// the broker's records carry. Close stops it.
type Embedded struct {
	reg  *srfake.Registry
	srv  *http.Server
	url  string
	file string

	mu sync.Mutex // one append at a time
}

// registered is one line of the file: a schema as it was registered.
type registered struct {
	Subject string    `json:"subject"`
	ID      int       `json:"id"`
	Schema  sr.Schema `json:"schema"`
}

// StartEmbedded listens on addr (host:port; when the port is taken, on a
// free port of the same host, which URL then names) and serves the
// registry, its schemas kept in dir/schemas.jsonl (dir "" keeps them in
// memory only).
func StartEmbedded(addr, dir string) (*Embedded, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		host, _, splitErr := net.SplitHostPort(addr)
		if splitErr != nil {
			return nil, fmt.Errorf("schemareg: listen %s: %w", addr, err)
		}
		if ln, err = net.Listen("tcp", net.JoinHostPort(host, "0")); err != nil {
			return nil, fmt.Errorf("schemareg: listen %s: %w", addr, err)
		}
	}
	e := &Embedded{reg: srfake.NewRegistry(), url: "http://" + ln.Addr().String()}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			ln.Close()
			return nil, fmt.Errorf("schemareg: %w", err)
		}
		e.file = filepath.Join(dir, "schemas.jsonl")
		if err := e.replay(); err != nil {
			ln.Close()
			return nil, err
		}
	}
	e.srv = &http.Server{Handler: e.keep(e.reg.Handler()), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// URL is where clients reach the registry (http://host:port).
func (e *Embedded) URL() string { return e.url }

// Close stops serving.
func (e *Embedded) Close() error { return e.srv.Close() }

// replay registers the file's schemas again, in order.
func (e *Embedded) replay() error {
	f, err := os.Open(e.file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("schemareg: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var r registered
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("schemareg: %s line %d: %w", e.file, n, err)
		}
		id, _, err := e.reg.RegisterSchema(r.Subject, r.Schema)
		if err != nil || id != r.ID {
			// Registered under another id (the file was edited): keep
			// the one the records carry.
			e.reg.SeedSchema(r.Subject, 0, r.ID, r.Schema)
		}
	}
	return sc.Err()
}

// keep wraps the registry's handler: a schema registered (POST
// /subjects/{subject}/versions answering an id) is appended to the file.
func (e *Embedded) keep(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		subject, ok := registering(r)
		if !ok || e.file == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		var answer struct {
			ID int `json:"id"`
		}
		var s sr.Schema
		if rec.status != http.StatusOK || json.Unmarshal(rec.body.Bytes(), &answer) != nil || answer.ID == 0 || json.Unmarshal(body, &s) != nil {
			return
		}
		e.append(registered{Subject: subject, ID: answer.ID, Schema: s})
	})
}

// registering is the subject of a request that registers a schema.
func registering(r *http.Request) (string, bool) {
	if r.Method != http.MethodPost {
		return "", false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/subjects/")
	if !ok {
		return "", false
	}
	subject, ok := strings.CutSuffix(rest, "/versions")
	return subject, ok && subject != ""
}

func (e *Embedded) append(r registered) {
	line, err := json.Marshal(r)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	f, err := os.OpenFile(e.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
	_ = f.Sync()
}

// recorder keeps the status and body of an answer while writing it.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
