package lessons

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Cluster is what the runner needs of the brokers; *cluster.Cluster is one.
type Cluster interface {
	Mode() cluster.Mode
	Brokers() []string
	CreateTopic(ctx context.Context, spec cluster.TopicSpec) (cluster.TopicInfo, error)
	Topic(ctx context.Context, name string) (cluster.TopicInfo, error)
	Group(ctx context.Context, group string) (cluster.GroupInfo, error)
	Transaction(ctx context.Context, id string) (cluster.TransactionInfo, error)
}

// LogReader reads partitions; *inspect.Inspector is one.
type LogReader interface {
	ReadLog(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error)
	ReadRecords(ctx context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) ([]inspect.Record, error)
	Pointers(ctx context.Context, topic string, partition int32) (inspect.Pointers, error)
}

// Producer produces with a fresh session per call; *producer.Producer is one.
type Producer interface {
	Produce(ctx context.Context, req producer.Request) (*producer.Outcome, error)
}

// Processor runs the order processor; *producer.Processor is one.
type Processor interface {
	Run(ctx context.Context, cfg producer.RunConfig) (*producer.RunResult, error)
}

// Sessions are the transactional producers of one application process;
// *producer.Sessions is one.
type Sessions interface {
	Begin(ctx context.Context, id string) (producer.SessionState, error)
	BeginTimeout(ctx context.Context, id string, timeout time.Duration) (producer.SessionState, error)
	Send(ctx context.Context, id string, req producer.Request) (producer.SessionState, error)
	End(ctx context.Context, id string, commit bool) (producer.SessionState, error)
	Crash(ctx context.Context, id string) (producer.SessionState, error)
	Close()
}

// Brokers stops and starts brokers when the dashboard runs them itself;
// *localkafka.Cluster is one. Node ids are the brokers' node.id.
type Brokers interface {
	StopNode(ctx context.Context, id int) error
	StartNode(ctx context.Context, id int) error
}

// Narrator tells the live timeline what a step does; *live.Hub is one.
type Narrator interface {
	Narrate(e live.Event)
}

// Deps are the services a Runner drives.
type Deps struct {
	Cluster   Cluster
	Log       LogReader
	Producer  Producer
	Processor Processor
	// NewSessions starts an empty set of transactional producers: one
	// application process. Each run process gets its own.
	NewSessions func() Sessions
	// Narrator may be nil: then nothing is narrated.
	Narrator Narrator
	// Brokers is nil unless the dashboard runs the brokers itself: lesson
	// 4 then stops and starts followers for real; otherwise it shows the
	// command and waits for the ISR to show it.
	Brokers Brokers
}

// Domain errors; the web package maps them to HTTP statuses.
var (
	// ErrUnknownLesson marks a lesson id that is not in the catalogue.
	ErrUnknownLesson = errors.New("unknown lesson")
	// ErrUnknownRun marks a run id the runner does not hold (never
	// started, or evicted by newer runs).
	ErrUnknownRun = errors.New("unknown lesson run")
	// ErrUnavailable marks a lesson this broker cannot run honestly.
	ErrUnavailable = errors.New("lesson unavailable on this broker")
	// ErrBusy marks a request on a run whose step is still running.
	ErrBusy = errors.New("lesson run busy")
	// ErrOver marks Next on a run that finished or stopped at a failed step.
	ErrOver = errors.New("lesson run over")
)

// kindError carries a sentence for people, a kind for errors.Is, and the
// UI catalogue key (web/static/i18n) that says the same in each language.
type kindError struct {
	kind error
	msg  string
	key  string
	args map[string]string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// MessageKey implements uikey.Keyed.
func (e *kindError) MessageKey() (string, map[string]string) { return e.key, e.args }

// keyf is an error of kind with its catalogue key and placeholder values
// (name, value pairs) and its English sentence.
func keyf(kind error, key string, kv []string, format string, args ...any) error {
	e := &kindError{kind: kind, msg: fmt.Sprintf(format, args...), key: key}
	if len(kv) > 0 {
		e.args = make(map[string]string, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			e.args[kv[i]] = kv[i+1]
		}
	}
	return e
}

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
// Close ends every run's sessions.
type Runner struct {
	deps    Deps
	lessons []Lesson

	mu   sync.Mutex
	runs map[string]*run
}

// New returns a Runner over deps with the Builtin lessons.
func New(deps Deps) *Runner { return NewWith(deps, Builtin()) }

// NewWith returns a Runner over deps with the given lessons.
func NewWith(deps Deps, lessons []Lesson) *Runner {
	return &Runner{deps: deps, lessons: lessons, runs: make(map[string]*run)}
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
func (r *Runner) List() []Summary { return Summarize(r.lessons, r.deps.Cluster.Mode()) }

// Summarize summarises lessons for a picker on a broker of the given mode.
func Summarize(lessons []Lesson, mode cluster.Mode) []Summary {
	out := make([]Summary, 0, len(lessons))
	for i := range lessons {
		l := &lessons[i]
		s := Summary{ID: l.ID, Seed: l.Seed, Title: text(l.Title), Summary: text(l.Summary), Steps: len(l.Steps), Available: true}
		if why := unavailable(l, mode); why != "" {
			t := text(why)
			s.Available, s.Unavailable = false, &t
		}
		out = append(out, s)
	}
	return out
}

// unavailable says why a broker of this mode cannot run l, or "".
func unavailable(l *Lesson, mode cluster.Mode) Msg {
	if l.NeedsReplication && mode == cluster.Embedded {
		if javaOnPath() {
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
	return nil, keyf(ErrUnknownLesson, "error.lessonUnknown", []string{"id", id, "ids", strings.Join(ids, ", ")}, "there is no lesson %q; the lessons are %s", id, strings.Join(ids, ", "))
}

// Start begins a run of lesson id with fresh names, its cursor on the
// first step. Nothing is done to the brokers until Next.
func (r *Runner) Start(id string) (RunState, error) {
	l, err := r.lesson(id)
	if err != nil {
		return RunState{}, err
	}
	if why := unavailable(l, r.deps.Cluster.Mode()); why != "" {
		return RunState{}, keyf(ErrUnavailable, "", nil, "%s", text(why).En) // GET /api/lessons carries the reason in both languages
	}
	rn := &run{id: "r" + randomHex(6), lesson: l, runner: r, used: time.Now()}
	rn.reset()
	r.mu.Lock()
	r.runs[rn.id] = rn
	evicted := r.evictLocked()
	r.mu.Unlock()
	for _, old := range evicted {
		old.closeProcesses()
	}
	return rn.state(), nil
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
		out = append(out, oldest)
	}
	return out
}

func (r *Runner) get(id string) (*run, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rn, ok := r.runs[id]
	if !ok {
		return nil, keyf(ErrUnknownRun, "error.lessonRunUnknown", []string{"id", id, "max", strconv.Itoa(MaxRuns)}, "there is no lesson run %q (runs are kept in memory; the newest %d survive). Start the lesson again.", id, MaxRuns)
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

// Next does the step under the cursor and moves the cursor on. A step
// whose action fails stops the run (Reset starts it over); a check that
// does not hold is reported with ok=false, and the run goes on.
func (r *Runner) Next(ctx context.Context, id string) (RunState, error) {
	return r.exclusive(id, errBusy, func(rn *run) error { return rn.next(ctx) })
}

// Finish does every remaining step, stopping at a failed one, or between
// steps once ctx ends (the run then waits at its cursor).
func (r *Runner) Finish(ctx context.Context, id string) (RunState, error) {
	return r.exclusive(id, errBusy, func(rn *run) error {
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
	return r.exclusive(id, errBusyReset, func(rn *run) error {
		rn.closeProcesses()
		rn.reset()
		return nil
	})
}

// exclusive runs fn on run id while no other step of it runs, and returns
// the run's state after; busy makes the error for a run already stepping.
func (r *Runner) exclusive(id string, busy func() error, fn func(*run) error) (RunState, error) {
	rn, err := r.get(id)
	if err != nil {
		return RunState{}, err
	}
	if !rn.stepMu.TryLock() {
		return RunState{}, busy()
	}
	defer rn.stepMu.Unlock()
	if err := fn(rn); err != nil {
		return RunState{}, err
	}
	return rn.state(), nil
}

func errBusy() error {
	return keyf(ErrBusy, "error.lessonBusy", nil, "a step of this lesson run is still running; wait for it to finish")
}

func errBusyReset() error {
	return keyf(ErrBusy, "error.lessonBusyReset", nil, "a step of this lesson run is still running; reset it when the step is done")
}

// Close ends every run's transactional sessions and forgets the runs.
func (r *Runner) Close() {
	r.mu.Lock()
	runs := r.runs
	r.runs = map[string]*run{}
	r.mu.Unlock()
	for _, rn := range runs {
		rn.stepMu.Lock()
		rn.closeProcesses()
		rn.stepMu.Unlock()
	}
}

// RunState is a run as the API shows it.
type RunState struct {
	ID      string `json:"id"`
	Lesson  string `json:"lesson"`
	Seed    string `json:"seed"`
	Title   Text   `json:"title"`
	Summary Text   `json:"summary"`
	// Broker is "embedded" or "external": expectations differ where the
	// embedded broker legitimately answers otherwise.
	Broker string `json:"broker"`
	// Suffix makes the run's names unique; Names maps each logical name
	// of the lesson to the one used on the broker, Topics lists the
	// topics among them.
	Suffix string            `json:"suffix"`
	Names  map[string]string `json:"names"`
	Topics []string          `json:"topics"`
	// Cursor is the index of the next step to do (len(steps) when done).
	Cursor int    `json:"cursor"`
	Status string `json:"status"`
	// Passed of Checked expectations held so far.
	Passed  int         `json:"passed"`
	Checked int         `json:"checked"`
	Steps   []StepState `json:"steps"`
	Error   string      `json:"error,omitempty"`
}

// StepState is one step of a run.
type StepState struct {
	Index     int    `json:"index"`
	Action    string `json:"action"`
	Title     Text   `json:"title"`
	Narration Text   `json:"narration"`
	Command   string `json:"command"`
	Status    string `json:"status"`
	// Topic and Partition name the log the step concerns, if any.
	Topic     string `json:"topic,omitempty"`
	Partition int32  `json:"partition"`
	// Output is what the step printed, as the command would.
	Output       []string `json:"output"`
	Expectations []Check  `json:"expectations"`
	Error        string   `json:"error,omitempty"`
}

// Check is one expectation of a step: Expected is this broker's expected
// answer; Observed and OK are set once the step is done.
type Check struct {
	Text     Text   `json:"text"`
	Fact     string `json:"fact"`
	Arg      string `json:"arg,omitempty"`
	Expected string `json:"expected"`
	Observed string `json:"observed"`
	OK       bool   `json:"ok"`
	// Note explains an expectation where the embedded broker differs
	// from Apache Kafka.
	Note *Text `json:"note,omitempty"`
}

// run is one run of a lesson.
type run struct {
	id     string
	lesson *Lesson
	runner *Runner

	stepMu sync.Mutex // held while a step runs, and by Reset and Close

	mu        sync.Mutex // guards everything below
	suffix    string
	names     map[string]string
	cursor    int
	steps     []StepState
	failed    string
	running   bool
	used      time.Time
	processes map[string]Sessions
	memory    memory
}

// memory is what later steps of a run compare against.
type memory struct {
	// crashedEpoch is the epoch of a transactional.id's producer that
	// crashed or was fenced: a later epoch proves the fence.
	crashedEpoch map[string]int16
	// began records which process began each transactional.id last.
	began map[string]beginRecord
	// producerIDs are the idempotent producers' ids seen so far.
	producerIDs []int64
	// keyPartition is where each key's records went.
	keyPartition map[string]int32
	// stopped are the brokers StopFollowers took down.
	stopped []int32
}

type beginRecord struct {
	process string
	id      int64
	epoch   int16
}

func (rn *run) busy() bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.running
}

func (rn *run) lastUsed() time.Time {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.used
}

func (rn *run) over() bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.failed != "" || rn.cursor >= len(rn.steps)
}

// reset gives the run fresh names and pending steps. The caller holds
// stepMu (or owns the run alone).
func (rn *run) reset() {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.suffix = randomHex(3)
	rn.names = map[string]string{}
	for _, name := range lessonNames(rn.lesson) {
		rn.names[name] = name + "-" + rn.suffix
	}
	rn.cursor, rn.failed, rn.running, rn.used = 0, "", false, time.Now()
	rn.memory = memory{crashedEpoch: map[string]int16{}, began: map[string]beginRecord{}, keyPartition: map[string]int32{}}
	embedded := rn.runner.deps.Cluster.Mode() == cluster.Embedded
	rn.steps = make([]StepState, len(rn.lesson.Steps))
	for i, s := range rn.lesson.Steps {
		st := StepState{
			Index:        i,
			Action:       s.Do.Kind(),
			Title:        rn.textLocked(s.Title),
			Narration:    rn.textLocked(s.Say),
			Command:      rn.renderLocked(s.Command),
			Status:       StepPending,
			Output:       []string{},
			Expectations: make([]Check, len(s.Expect)),
		}
		for j, e := range s.Expect {
			c := Check{Text: rn.textLocked(e.Say), Fact: e.Fact, Arg: rn.nameLocked(e.Arg), Expected: rn.renderLocked(e.Want)}
			if embedded && e.Embedded != nil {
				note := rn.textLocked(e.Embedded.Note)
				c.Expected, c.Note = rn.renderLocked(e.Embedded.Want), &note
			}
			st.Expectations[j] = c
		}
		rn.steps[i] = st
	}
}

// closeProcesses closes the run's transactional producers.
func (rn *run) closeProcesses() {
	rn.mu.Lock()
	procs := rn.processes
	rn.processes = nil
	rn.mu.Unlock()
	for _, p := range procs {
		p.Close()
	}
}

// process returns the named application process, starting it if needed.
func (rn *run) process(name string) Sessions {
	if name == "" {
		name = defaultProcess
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if rn.processes == nil {
		rn.processes = map[string]Sessions{}
	}
	p, ok := rn.processes[name]
	if !ok {
		p = rn.runner.deps.NewSessions()
		rn.processes[name] = p
	}
	return p
}

// name is the run's name for a logical name; other strings are kept.
func (rn *run) name(logical string) string {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.nameLocked(logical)
}

func (rn *run) nameLocked(logical string) string {
	if n, ok := rn.names[logical]; ok {
		return n
	}
	return logical
}

var placeholder = regexp.MustCompile(`\{([A-Za-z0-9._-]+)\}`)

// renderLocked replaces {name} placeholders with the run's names and
// {bootstrap} with the brokers' address.
func (rn *run) renderLocked(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		key := m[1 : len(m)-1]
		if key == "bootstrap" {
			return strings.Join(rn.runner.deps.Cluster.Brokers(), ",")
		}
		if n, ok := rn.names[key]; ok {
			return n
		}
		return m
	})
}

func (rn *run) textLocked(id Msg) Text {
	t := text(id)
	return Text{En: rn.renderLocked(t.En), Ko: rn.renderLocked(t.Ko)}
}

// next does the step under the cursor. The caller holds stepMu.
func (rn *run) next(ctx context.Context) error {
	rn.mu.Lock()
	if rn.failed != "" {
		rn.mu.Unlock()
		return keyf(ErrOver, "error.lessonFailed", []string{"step", rn.failed}, "this lesson run stopped at a failed step (%s); press Reset to start it over with fresh topics", rn.failed)
	}
	if rn.cursor >= len(rn.steps) {
		rn.mu.Unlock()
		return keyf(ErrOver, "error.lessonFinished", nil, "this lesson run is finished; press Reset to run it again with fresh topics")
	}
	i := rn.cursor
	step := &rn.lesson.Steps[i]
	rn.running, rn.used = true, time.Now()
	rn.steps[i].Status = StepRunning
	title, say := rn.steps[i].Title, rn.steps[i].Narration
	rn.mu.Unlock()

	rn.narrate(narrationKind(step.Do), Text{
		En: fmt.Sprintf("Lesson %s · step %d of %d — %s. %s", rn.lesson.ID, i+1, len(rn.steps), title.En, say.En),
		Ko: fmt.Sprintf("실습 %s · %d단계 중 %d단계 — %s. %s", rn.lesson.ID, len(rn.steps), i+1, title.Ko, say.Ko),
	})
	stepCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StepTimeout)
	defer cancel()
	obs, err := step.Do.run(stepContext{Context: stepCtx, run: rn, deps: &rn.runner.deps, expects: step.Expect})

	events := rn.finish(i, obs, err)
	for _, e := range events {
		rn.narrate(e.Kind, e.Text)
	}
	return nil
}

// finish records the outcome of step i and returns what to narrate.
func (rn *run) finish(i int, obs *observation, err error) []narration {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.running, rn.used = false, time.Now()
	st := &rn.steps[i]
	if obs != nil {
		st.Topic, st.Partition = obs.topic, obs.partition
		if obs.output != nil {
			st.Output = obs.output
		}
		if obs.command != "" {
			st.Command = obs.command
		}
	}
	if errors.Is(err, ErrWaiting) {
		st.Status, st.Error = StepPending, err.Error()
		return []narration{{live.EventInfo, Text{
			En: fmt.Sprintf("Lesson %s · step %d waits: %s", rn.lesson.ID, i+1, err.Error()),
			Ko: fmt.Sprintf("실습 %s · %d단계가 기다려요: %s", rn.lesson.ID, i+1, err.Error()),
		}}}
	}
	if err != nil {
		st.Status, st.Error = StepFailed, err.Error()
		rn.failed = fmt.Sprintf("step %d: %s", i+1, err.Error())
		return []narration{{live.EventWarning, Text{
			En: fmt.Sprintf("Lesson %s · step %d failed: %s", rn.lesson.ID, i+1, err.Error()),
			Ko: fmt.Sprintf("실습 %s · %d단계가 실패했어요: %s", rn.lesson.ID, i+1, err.Error()),
		}}}
	}
	st.Status, st.Error = StepDone, ""
	rn.cursor++
	if len(st.Expectations) == 0 {
		return nil
	}
	var checks, checksKo []string
	kind := live.EventInfo
	for j := range st.Expectations {
		c := &st.Expectations[j]
		c.Observed = obs.fact(c.Fact, c.Arg)
		c.OK = c.Observed == c.Expected
		if !c.OK {
			kind = live.EventWarning
		}
		checks = append(checks, fmt.Sprintf("%s: expected %s — observed %s %s", c.Text.En, c.Expected, c.Observed, mark(c.OK)))
		checksKo = append(checksKo, fmt.Sprintf("%s: 예상 %s — 관찰 %s %s", c.Text.Ko, c.Expected, c.Observed, mark(c.OK)))
	}
	return []narration{{kind, Text{
		En: fmt.Sprintf("Lesson %s · step %d checked: %s.", rn.lesson.ID, i+1, strings.Join(checks, "; ")),
		Ko: fmt.Sprintf("실습 %s · %d단계 확인: %s.", rn.lesson.ID, i+1, strings.Join(checksKo, "; ")),
	}}}
}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// narrationKind picks the timeline icon of a step.
func narrationKind(a Action) string {
	switch a := a.(type) {
	case RunProcessor:
		if a.CrashAt != "" {
			return live.EventCrash
		}
	case End:
		if a.Commit {
			return live.EventCommit
		}
		return live.EventAbort
	case Crash:
		return live.EventCrash
	}
	return live.EventInfo
}

// narration is a sentence for the timeline and its icon.
type narration struct {
	Kind string
	Text Text
}

// narrate tells the timeline msg. The lessons have their own catalogue
// (messages_ko.go), so the runner writes the sentence in both languages
// itself: the event carries Key "narration.lesson" (the UI catalogue's
// "{text}") with Args "en" and "ko", and the page shows the one of its
// language (web/static/timeline.js); Text stays the English sentence.
func (rn *run) narrate(kind string, msg Text) {
	if n := rn.runner.deps.Narrator; n != nil {
		n.Narrate(live.Event{Kind: kind, Text: msg.En, Key: "narration.lesson", Args: map[string]string{"en": msg.En, "ko": msg.Ko}})
	}
}

// state snapshots the run.
func (rn *run) state() RunState {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	l := rn.lesson
	st := RunState{
		ID: rn.id, Lesson: l.ID, Seed: l.Seed, Title: rn.textLocked(l.Title), Summary: rn.textLocked(l.Summary),
		Broker: string(rn.runner.deps.Cluster.Mode()), Suffix: rn.suffix,
		Names: make(map[string]string, len(rn.names)), Topics: []string{},
		Cursor: rn.cursor, Error: rn.failed,
	}
	for k, v := range rn.names {
		st.Names[k] = v
	}
	for _, t := range lessonTopics(l) {
		st.Topics = append(st.Topics, rn.names[t])
	}
	switch {
	case rn.running:
		st.Status = RunRunning
	case rn.failed != "":
		st.Status = RunFailed
	case rn.cursor >= len(rn.steps):
		st.Status = RunFinished
	default:
		st.Status = RunReady
	}
	st.Steps = make([]StepState, len(rn.steps))
	for i, s := range rn.steps {
		s.Output = slices.Clone(s.Output)
		s.Expectations = slices.Clone(s.Expectations)
		if s.Status == StepDone {
			for _, c := range s.Expectations {
				st.Checked++
				if c.OK {
					st.Passed++
				}
			}
		}
		st.Steps[i] = s
	}
	return st
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}
