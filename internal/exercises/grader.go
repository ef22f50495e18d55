package exercises

import (
	"context"
	"reflect"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// Grader defaults.
const (
	// DefaultInterval is how often the grader looks at each student's
	// partition pointers.
	DefaultInterval = 500 * time.Millisecond
	// DefaultRefresh is how long a student's result may go without a
	// full grading while their pointers stay still: group offsets and
	// the coordinator change without the log moving.
	DefaultRefresh = 2 * time.Second
	// DefaultParallel bounds the gradings in flight at once.
	DefaultParallel = 8
	// gradeTimeout bounds one student's grading.
	gradeTimeout = 5 * time.Second
)

// GraderConfig tunes a Grader; zero fields take the defaults.
type GraderConfig struct {
	Interval time.Duration
	Refresh  time.Duration
	Parallel int
	// StateFile, when set, keeps the class on disk (store.go): OpenGrader
	// reads it back, every change is written there, a join returns once
	// it is.
	StateFile string
}

// Grader keeps every student's results of the current exercise up to
// date (see the package doc). Run drives it; it is safe for concurrent
// use.
type Grader struct {
	broker Broker
	class  *Class
	cfg    GraderConfig
	slots  chan struct{}

	mu       sync.Mutex
	current  string
	from     map[string]map[string]int64  // exercise → student → offset
	results  map[string]map[string]Result // exercise → student → result
	seen     map[string]seenState         // student → what the last grading saw
	inflight map[string]bool
	version  int64
	changed  chan struct{}
	stage    *Stage

	// The class file's writer (store.go); dirty is nil without a
	// StateFile.
	dirty      chan struct{}
	urgent     chan struct{} // a Flush waits
	gen        int64         // changes counted
	savedGen   int64         // changes the file holds
	saved      chan struct{}
	saveErr    error
	stopSaving chan struct{}
	saverDone  chan struct{}
	closeOnce  sync.Once
}

// seenState is what a student's last full grading saw.
type seenState struct {
	exercise string
	from     int64
	pointers inspect.Pointers
	at       time.Time
}

// NewGrader returns a grader of class's students over broker.
func NewGrader(broker Broker, class *Class, cfg GraderConfig) *Grader {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = DefaultParallel
	}
	return &Grader{
		broker: broker, class: class, cfg: cfg, slots: make(chan struct{}, cfg.Parallel),
		from: map[string]map[string]int64{}, results: map[string]map[string]Result{},
		seen: map[string]seenState{}, inflight: map[string]bool{}, changed: make(chan struct{}),
	}
}

// OpenGrader is NewGrader with the class read back from cfg.StateFile,
// when there is one, and kept there from now on; Close stops the writer.
// A file that is torn, edited by hand or of another format is refused
// with an error naming it (ErrClassFile): nothing is loaded and nothing
// overwritten.
func OpenGrader(broker Broker, class *Class, cfg GraderConfig) (*Grader, error) {
	g := NewGrader(broker, class, cfg)
	if cfg.StateFile == "" {
		return g, nil
	}
	rec, ok, err := readClassFile(cfg.StateFile)
	if err != nil {
		return nil, err
	}
	if ok {
		class.restore(rec.Students, rec.Joined)
		g.mu.Lock()
		g.restoreLocked(rec)
		g.mu.Unlock()
	}
	g.dirty, g.urgent, g.saved = make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{})
	g.stopSaving, g.saverDone = make(chan struct{}), make(chan struct{})
	class.mu.Lock()
	class.persist = g.Flush
	class.mu.Unlock()
	go g.saveLoop(g.stopSaving, g.saverDone)
	return g, nil
}

// Stage is the partition the teacher put on the stage last; ok is false
// before any.
func (g *Grader) Stage() (Stage, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stage == nil {
		return Stage{}, false
	}
	return *g.stage, true
}

// SetStage records the partition the teacher put on the stage (kept in
// the class file).
func (g *Grader) SetStage(s Stage) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stage != nil && *g.stage == s {
		return
	}
	g.stage = &s
	g.markDirtyLocked()
	g.urgentLocked()
}

// Remove takes a student out of the class (see Class.Remove) and forgets
// their reset points and results, so that a newcomer with the name
// starts clean.
func (g *Grader) Remove(ctx context.Context, name string, deleteNames bool) error {
	gone, err := g.class.Remove(ctx, name, deleteNames)
	if gone.Name == "" {
		return err
	}
	g.mu.Lock()
	for _, m := range g.from {
		delete(m, gone.Name)
	}
	for _, m := range g.results {
		delete(m, gone.Name)
	}
	delete(g.seen, gone.Name)
	g.bumpLocked()
	g.mu.Unlock()
	if ferr := g.Flush(ctx); ferr != nil && err == nil {
		err = ferr
	}
	return err
}

// Class is the grader's class.
func (g *Grader) Class() *Class { return g.class }

// Current is the exercise the teacher started last; "" before any.
func (g *Grader) Current() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.current
}

// Start makes exercise id the current one.
func (g *Grader) Start(id string) (Exercise, error) {
	ex, ok := Find(id)
	if !ok {
		return Exercise{}, problem.New(problem.NotFound, "error.unknownExercise", "exercise", id)
	}
	g.mu.Lock()
	g.current = id
	g.bumpLocked()
	g.urgentLocked()
	g.mu.Unlock()
	return ex, nil
}

// Reset makes each student's attempt at exercise id start at their
// topic's log end now, so that earlier attempts no longer count, and
// forgets their results. It costs one ListOffsets per student.
func (g *Grader) Reset(ctx context.Context, id string) (map[string]int64, error) {
	ex, ok := Find(id)
	if !ok {
		return nil, problem.New(problem.NotFound, "error.unknownExercise", "exercise", id)
	}
	from := map[string]int64{}
	for _, s := range g.class.Students() {
		p, err := g.broker.Pointers(ctx, ex.NamesFor(s.Name).Topic, 0)
		switch {
		case err == nil:
			from[s.Name] = p.HighWatermark
		case problem.Is(err, "error.unknownTopic"):
			from[s.Name] = 0
		default:
			return nil, err
		}
	}
	g.mu.Lock()
	g.from[id] = from
	g.urgentLocked()
	delete(g.results, id)
	for name, s := range g.seen {
		if s.exercise == id {
			delete(g.seen, name)
		}
	}
	g.bumpLocked()
	g.mu.Unlock()
	return from, nil
}

// Results are exercise id's results of every student, in the order they
// joined, and the version they are of. A student not graded yet has
// every check not ok, without evidence.
func (g *Grader) Results(id string) ([]Result, int64, error) {
	ex, ok := Find(id)
	if !ok {
		return nil, 0, problem.New(problem.NotFound, "error.unknownExercise", "exercise", id)
	}
	students := g.class.Students()
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Result, 0, len(students))
	for _, s := range students {
		r, ok := g.results[id][s.Name]
		if !ok {
			r = Result{Name: s.Name}
			for _, k := range ex.CheckKeys() {
				r.Checks = append(r.Checks, CheckResult{Key: k})
			}
		}
		out = append(out, r)
	}
	return out, g.version, nil
}

// Version counts the changes of any result, exercise or reset.
func (g *Grader) Version() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.version
}

// Wait returns once the version is past after, or when ctx ends, with
// the version then.
func (g *Grader) Wait(ctx context.Context, after int64) int64 {
	for {
		g.mu.Lock()
		v, ch := g.version, g.changed
		g.mu.Unlock()
		if v > after {
			return v
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return v
		}
	}
}

// bumpLocked counts a change and wakes the waiters.
func (g *Grader) bumpLocked() {
	g.version++
	close(g.changed)
	g.changed = make(chan struct{})
	g.markDirtyLocked()
}

// Run grades until ctx ends: every Interval, each student of the current
// exercise whose previous grading has finished is looked at again.
func (g *Grader) Run(ctx context.Context) {
	t := time.NewTicker(g.cfg.Interval)
	defer t.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		g.tick(ctx, &wg)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// tick starts a grading of each idle student of the current exercise.
func (g *Grader) tick(ctx context.Context, wg *sync.WaitGroup) {
	id := g.Current()
	ex, ok := Find(id)
	if !ok {
		return
	}
	for _, s := range g.class.Students() {
		g.mu.Lock()
		busy := g.inflight[s.Name]
		g.inflight[s.Name] = true
		g.mu.Unlock()
		if busy {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				g.mu.Lock()
				delete(g.inflight, s.Name)
				g.mu.Unlock()
			}()
			select {
			case g.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-g.slots }()
			gctx, cancel := context.WithTimeout(ctx, gradeTimeout)
			defer cancel()
			g.grade(gctx, ex, s.Name)
		}()
	}
}

// grade looks at one student's pointers and, when they moved or the
// last grading is older than Refresh, grades them again.
func (g *Grader) grade(ctx context.Context, ex Exercise, student string) {
	topic := ex.NamesFor(student).Topic
	ptrs, err := g.broker.Pointers(ctx, topic, 0)
	if err != nil && !problem.Is(err, "error.unknownTopic") {
		ptrs = inspect.Pointers{HighWatermark: -1} // grade, to show the error
	}
	g.mu.Lock()
	from := g.from[ex.ID][student]
	last, graded := g.seen[student]
	g.mu.Unlock()
	now := time.Now()
	if graded && last.exercise == ex.ID && last.from == from && last.pointers == ptrs && now.Sub(last.at) < g.cfg.Refresh {
		return
	}
	writeErr := WriteJobs(ctx, g.broker, ex, student, from, ptrs)
	res := grade(ctx, g.broker, ex, student, from, writeErr)
	if ctx.Err() != nil {
		return // the server is stopping, or this student's broker is slow: next tick
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.from[ex.ID][student] != from {
		return // reset meanwhile
	}
	g.seen[student] = seenState{exercise: ex.ID, from: from, pointers: ptrs, at: now}
	if g.results[ex.ID] == nil {
		g.results[ex.ID] = map[string]Result{}
	}
	prev, had := g.results[ex.ID][student]
	if had && sameChecks(prev, res) {
		return
	}
	g.results[ex.ID][student] = res
	g.bumpLocked()
}

// sameChecks reports whether two results say the same.
func sameChecks(a, b Result) bool {
	return a.Done == b.Done && reflect.DeepEqual(a.Checks, b.Checks)
}
