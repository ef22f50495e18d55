package lessons

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// Limits of a Runner.
const (
	// MaxRuns is how many runs a Runner keeps; starting one more closes
	// the least recently used.
	MaxRuns = 16
	// StepTimeout bounds one step. A step runs to completion even when
	// the request that asked for it goes away, so that a run is never
	// left half a step ahead of its cursor.
	StepTimeout = 90 * time.Second
)

// Run statuses.
const (
	RunReady    = "ready"
	RunRunning  = "running"
	RunFinished = "finished"
	RunFailed   = "failed"
)

// Step statuses.
const (
	StepPending = "pending"
	StepRunning = "running"
	StepDone    = "done"
	StepFailed  = "failed"
)

// Runner starts and steps lesson runs. It is safe for concurrent use;
// Close ends every run's application processes.
type Runner struct {
	lab     Lab
	lessons []Lesson
	// java reports whether Java is installed, for the reason lesson 4
	// gives on the embedded broker.
	java bool
	// created records the topics runs created: the only ones cleanup
	// deletes.
	created *topicRecord

	mu      sync.Mutex
	runs    map[string]*run
	current string // the run started or stepped last
	runPath string // where the current run is kept (keep.go); "" in memory
}

// New returns a Runner over lab with the Builtin lessons. It records the
// topics its runs create in memory only: cleanup deletes those of its own
// runs and nothing else (see Open for a record that outlives it).
func New(lab Lab) *Runner { return NewWith(lab, Builtin()) }

// NewWith returns a Runner over lab with the given lessons, its record of
// created topics in memory (as New).
func NewWith(lab Lab, lessons []Lesson) *Runner {
	_, err := exec.LookPath("java")
	return &Runner{lab: lab, lessons: lessons, java: err == nil, created: &topicRecord{}, runs: make(map[string]*run)}
}

// Open returns a Runner over lab with the Builtin lessons that keeps the
// record of the topics its runs create in the file at recordPath (created
// when the first topic is), and reads the record an earlier Runner left
// there: cleanup then also deletes the topics of an earlier server's runs.
// Give each cluster its own file. A fresh path knows no earlier runs:
// their topics stay until someone deletes them by name. It fails when the
// file exists but cannot be read.
func Open(lab Lab, recordPath string) (*Runner, error) {
	created, err := loadTopicRecord(recordPath)
	if err != nil {
		return nil, err
	}
	r := New(lab)
	r.created = created
	return r, nil
}

// Summary describes a lesson for a picker.
type Summary struct {
	ID      string `json:"id"`
	Seed    string `json:"seed"`
	Title   Text   `json:"title"`
	Summary Text   `json:"summary"`
	Steps   int    `json:"steps"`
	// Available is false when this broker cannot run the lesson;
	// Unavailable then says why.
	Available   bool  `json:"available"`
	Unavailable *Text `json:"unavailable,omitempty"`
}

// List summarises the runner's lessons, in catalogue order.
func (r *Runner) List() []Summary {
	out := make([]Summary, 0, len(r.lessons))
	for i := range r.lessons {
		l := &r.lessons[i]
		s := Summary{ID: l.ID, Seed: l.Seed, Title: text(catalog.M(l.Title.Key())), Summary: text(catalog.M(l.Summary.Key())), Steps: len(l.Steps), Available: true}
		if why := r.unavailable(l); why != "" {
			t := text(catalog.M(why.Key()))
			s.Available, s.Unavailable = false, &t
		}
		out = append(out, s)
	}
	return out
}

// unavailable says why this broker cannot run l, or "".
func (r *Runner) unavailable(l *Lesson) Msg {
	if l.NeedsReplication && r.lab.Mode() == cluster.Embedded {
		if r.java {
			return "unavailable.replication.java"
		}
		return "unavailable.replication"
	}
	return ""
}

func (r *Runner) lesson(id string) (*Lesson, error) {
	for i := range r.lessons {
		if r.lessons[i].ID == id {
			return &r.lessons[i], nil
		}
	}
	ids := make([]string, len(r.lessons))
	for i, l := range r.lessons {
		ids[i] = l.ID
	}
	return nil, problem.New(problem.NotFound, "error.lessonUnknown", "id", id, "ids", strings.Join(ids, ", "))
}

// Start begins a run of lesson id with fresh names, its cursor on the
// first step. Nothing is done to the brokers until Next.
func (r *Runner) Start(id string) (RunState, error) {
	l, err := r.lesson(id)
	if err != nil {
		return RunState{}, err
	}
	if why := r.unavailable(l); why != "" {
		return RunState{}, problem.New(problem.Conflict, why.Key())
	}
	if r.lab.ReadOnly() {
		return RunState{}, problem.New(problem.Forbidden, "error.readOnly", "brokers", strings.Join(r.lab.Brokers(), ","))
	}
	rn := &run{id: "r" + randomHex(6), lesson: l, runner: r, used: time.Now()}
	rn.reset()
	r.mu.Lock()
	r.runs[rn.id] = rn
	r.current = rn.id
	evicted := r.evictLocked()
	r.mu.Unlock()
	for _, old := range evicted {
		old.endProcesses()
	}
	r.keepOrLog()
	return rn.state(), nil
}

// TopicLesson names the lesson whose run created topic (one of the run's
// topics under its names), and the run; ok is false when no run kept in
// memory names it. The newest run wins when several do.
func (r *Runner) TopicLesson(topic string) (runID string, title catalog.Message, ok bool) {
	r.mu.Lock()
	runs := make([]*run, 0, len(r.runs))
	for _, rn := range r.runs {
		runs = append(runs, rn)
	}
	r.mu.Unlock()
	var newest time.Time
	for _, rn := range runs {
		rn.mu.Lock()
		for _, logical := range lessonTopics(rn.lesson) {
			if rn.names[logical] == topic && (!ok || rn.used.After(newest)) {
				runID, title, ok, newest = rn.id, catalog.M(rn.lesson.Title.Key()), true, rn.used
			}
		}
		rn.mu.Unlock()
	}
	return runID, title, ok
}

// evictLocked drops the least recently used idle runs beyond MaxRuns.
func (r *Runner) evictLocked() []*run {
	var out []*run
	for len(r.runs) > MaxRuns {
		var oldest *run
		for _, rn := range r.runs {
			if rn.busy() {
				continue
			}
			if oldest == nil || rn.lastUsed().Before(oldest.lastUsed()) {
				oldest = rn
			}
		}
		if oldest == nil {
			break
		}
		delete(r.runs, oldest.id)
		if r.current == oldest.id {
			r.current = ""
		}
		out = append(out, oldest)
	}
	return out
}

func (r *Runner) get(id string) (*run, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rn, ok := r.runs[id]
	if !ok {
		return nil, problem.New(problem.NotFound, "error.lessonRunUnknown", "id", id, "max", strconv.Itoa(MaxRuns))
	}
	return rn, nil
}

// State returns a run's state without changing it.
func (r *Runner) State(id string) (RunState, error) {
	rn, err := r.get(id)
	if err != nil {
		return RunState{}, err
	}
	return rn.state(), nil
}

// Current is the id of the run started or stepped last, which any page
// (another tab, the projector, the students) resumes; "" when there is
// none.
func (r *Runner) Current() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}

// Next does the step under the cursor and moves the cursor on. A step
// whose action fails stops the run (Reset starts it over); a check that
// does not hold is reported with ok=false, and the run goes on.
func (r *Runner) Next(ctx context.Context, id string) (RunState, error) {
	return r.exclusive(id, "error.lessonBusy", func(rn *run) error { return rn.next(ctx) })
}

// Finish does every remaining step, stopping at a failed one, or between
// steps once ctx ends (the run then waits at its cursor).
func (r *Runner) Finish(ctx context.Context, id string) (RunState, error) {
	return r.exclusive(id, "error.lessonBusy", func(rn *run) error {
		for !rn.over() && ctx.Err() == nil {
			if err := rn.next(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// Reset starts the run over: new names (so fresh topics), cursor on the
// first step, its producers closed as a stopped application's would be.
func (r *Runner) Reset(id string) (RunState, error) {
	return r.exclusive(id, "error.lessonBusyReset", func(rn *run) error {
		rn.endProcesses()
		rn.reset()
		return nil
	})
}

// exclusive runs fn on run id while no other step of it runs, and returns
// the run's state after; busyKey names the refusal of a run already
// stepping.
func (r *Runner) exclusive(id, busyKey string, fn func(*run) error) (RunState, error) {
	rn, err := r.get(id)
	if err != nil {
		return RunState{}, err
	}
	if !rn.stepMu.TryLock() {
		return RunState{}, problem.New(problem.Conflict, busyKey)
	}
	defer rn.stepMu.Unlock()
	r.mu.Lock()
	r.current = id
	r.mu.Unlock()
	err = fn(rn)
	r.keepOrLog()
	if err != nil {
		return RunState{}, err
	}
	return rn.state(), nil
}

// keepOrLog keeps the current run (keep.go), logging a failure to.
func (r *Runner) keepOrLog() {
	if err := r.keep(); err != nil {
		r.lab.Logger().Error("the lesson run in progress was not saved", "err", err)
	}
}

// Close ends every run's application processes and forgets the runs.
func (r *Runner) Close() {
	r.mu.Lock()
	runs := r.runs
	r.runs, r.current = map[string]*run{}, ""
	r.mu.Unlock()
	for _, rn := range runs {
		rn.stepMu.Lock()
		rn.endProcesses()
		rn.stepMu.Unlock()
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}
