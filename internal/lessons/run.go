package lessons

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/problem"
)

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
	// Focus is the log that carries the lesson's point, where a page
	// shows the finished lesson; nil when the lesson names none.
	Focus *LogRef `json:"focus,omitempty"`
}

// LogRef names a partition's log by the run's topic name.
type LogRef struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
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
	// Output is what the step printed, as the command would, in
	// English; Lines are the same lines as the page shows them: a
	// catalogue sentence in every language, or verbatim tool output.
	Output       []string     `json:"output"`
	Lines        []OutputLine `json:"lines"`
	Expectations []Check      `json:"expectations"`
	// Answer is, for a step that only reads (describes a transaction or
	// a group, consumes, reads the log), what it found, for the page to
	// draw at the cells; nil for other steps and until the step is done.
	Answer *Answer `json:"answer,omitempty"`
	// Error is why the step failed or waits, in English; ErrorText says
	// it in every language.
	Error     string `json:"error,omitempty"`
	ErrorText *Text  `json:"errorText,omitempty"`
}

// Check is one expectation of a step: Expected is this broker's expected
// answer; Observed and OK are set once the step is done.
type Check struct {
	Text Text `json:"text"`
	// Name is the fact checked, as the API names it ("count"); Arg
	// qualifies it.
	Name     string `json:"fact"`
	Fact     Fact   `json:"-"`
	Arg      string `json:"arg,omitempty"`
	Expected string `json:"expected"`
	Observed string `json:"observed"`
	OK       bool   `json:"ok"`
}

// run is one run of a lesson.
type run struct {
	id     string
	lesson *Lesson
	runner *Runner
	memory memory

	stepMu sync.Mutex // held while a step runs, and by Reset and Close

	mu        sync.Mutex // guards everything below
	suffix    string
	names     map[string]string
	cursor    int
	steps     []StepState
	failed    string
	running   bool
	used      time.Time
	processes []string // the lab's names of the run's application processes
	workers   []string // the lab's names of the run's share consumers
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
func (rn *run) reset() { rn.resetWith(randomHex(3)) }

// resetWith is reset with the names' suffix given (a run read back from
// its file keeps its names).
func (rn *run) resetWith(suffix string) {
	rn.memory.reset()
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.suffix = suffix
	rn.names = map[string]string{}
	for _, name := range lessonNames(rn.lesson) {
		rn.names[name] = name + "-" + rn.suffix
	}
	rn.cursor, rn.failed, rn.running, rn.used = 0, "", false, time.Now()
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
			Lines:        []OutputLine{},
			Expectations: make([]Check, len(s.Expect)),
		}
		for j, e := range s.Expect {
			c := Check{Text: rn.textLocked(e.Say), Fact: e.Fact, Arg: rn.nameLocked(e.Arg), Expected: rn.renderLocked(e.Want)}
			c.Name = e.Fact.Name()
			st.Expectations[j] = c
		}
		rn.steps[i] = st
	}
}

// process is the lab's name of the run's application process name.
func (rn *run) process(name string) string {
	full := "lesson-" + rn.id + "/" + name
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if !slices.Contains(rn.processes, full) {
		rn.processes = append(rn.processes, full)
	}
	return full
}

// endProcesses stops the run's application processes.
func (rn *run) endProcesses() {
	rn.mu.Lock()
	procs := rn.processes
	rn.processes = nil
	rn.mu.Unlock()
	for _, p := range procs {
		rn.runner.lab.EndProcess(p)
	}
	rn.mu.Lock()
	workers := rn.workers
	rn.workers = nil
	rn.mu.Unlock()
	for _, w := range workers {
		// A worker already stopped is unknown: nothing to do.
		_ = rn.runner.lab.StopShareWorker(w)
	}
}

// worker is the lab's name of the run's share consumer name, which the
// run stops when it ends; first is true the first time the run names it.
func (rn *run) worker(name string) (full string, first bool) {
	full = "l" + rn.id + "-" + name
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if slices.Contains(rn.workers, full) {
		return full, false
	}
	rn.workers = append(rn.workers, full)
	return full, true
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

// namePlaceholder is {name}, or {name|A/B}: the Korean particle that
// follows the run's name for name, A after a final consonant, B after a
// vowel (catalog.Particle).
var namePlaceholder = regexp.MustCompile(`\{([A-Za-z0-9._-]+)(?:\|([^/{}]*)/([^{}]*))?\}`)

// renderLocked replaces {name} placeholders with the run's names and
// {bootstrap} with the brokers' address (a Kafka tool's
// --bootstrap-server {bootstrap} followed, on a cluster the dashboard
// reaches with a properties file, by --command-config with its path, so
// that the command runs as printed), and {name|A/B} with the particle
// that follows the run's name (catalog.Particle: gwa after orders-b9cd86,
// ro after payments-1f).
func (rn *run) renderLocked(s string) string {
	if file := rn.runner.lab.Security().CommandConfig; file != "" {
		s = strings.ReplaceAll(s, "--bootstrap-server {bootstrap}", "--bootstrap-server {bootstrap} --command-config "+file)
	}
	return namePlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		g := namePlaceholder.FindStringSubmatch(m)
		key, afterConsonant, afterVowel := g[1], g[2], g[3]
		value, ok := rn.names[key]
		if key == "bootstrap" {
			value, ok = strings.Join(rn.runner.lab.Brokers(), ","), true
		}
		switch {
		case !ok:
			return m
		case afterConsonant != "" || afterVowel != "":
			return catalog.Particle(value, afterConsonant, afterVowel)
		default:
			return value
		}
	})
}

// textLocked is a lesson sentence in both languages with the run's names.
func (rn *run) textLocked(id Msg) Text {
	t := text(catalog.M(id.Key()))
	return Text{En: rn.renderLocked(t.En), Ko: rn.renderLocked(t.Ko)}
}

// next does the step under the cursor. The caller holds stepMu.
func (rn *run) next(ctx context.Context) error {
	rn.mu.Lock()
	if rn.failed != "" {
		rn.mu.Unlock()
		return problem.New(problem.Conflict, "error.lessonFailed", "step", rn.failed)
	}
	if rn.cursor >= len(rn.steps) {
		rn.mu.Unlock()
		return problem.New(problem.Conflict, "error.lessonFinished")
	}
	i := rn.cursor
	step := &rn.lesson.Steps[i]
	rn.running, rn.used = true, time.Now()
	rn.steps[i].Status = StepRunning
	title, say := rn.steps[i].Title, rn.steps[i].Narration
	rn.mu.Unlock()

	rn.narrateStart(step.Do.Icon(), i, title, say)
	stepCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StepTimeout)
	defer cancel()
	obs, err := step.Do.run(&stepContext{Context: stepCtx, run: rn, lab: rn.runner.lab, expects: step.Expect})
	rn.finish(i, obs, err)
	return nil
}

// finish records the outcome of step i and narrates it.
func (rn *run) finish(i int, obs *observation, err error) {
	rn.mu.Lock()
	rn.running, rn.used = false, time.Now()
	st := &rn.steps[i]
	if obs != nil {
		st.Topic, st.Partition = obs.topic, obs.partition
		if obs.output != nil {
			st.Output, st.Lines = obs.output, obs.lines
		}
		if obs.command != "" {
			st.Command = obs.command
		}
		if err == nil {
			st.Answer = obs.answer
		}
	}
	var why Text
	if err != nil {
		why = rn.errorText(st.Action, err)
		st.Error, st.ErrorText = why.En, &why
	}
	switch {
	case errors.Is(err, errWaiting):
		st.Status = StepPending
		rn.mu.Unlock()
		rn.narrateWaits(i, why)
		return
	case err != nil:
		st.Status = StepFailed
		rn.failed = "step " + strconv.Itoa(i+1) + ": " + why.En
		rn.mu.Unlock()
		rn.narrateFailed(i, why)
		return
	}
	st.Status, st.Error, st.ErrorText = StepDone, "", nil
	rn.cursor++
	for j := range st.Expectations {
		c := &st.Expectations[j]
		c.Observed = obs.fact(c.Fact, c.Arg)
		c.OK = c.Observed == c.Expected
	}
	checks := slices.Clone(st.Expectations)
	rn.mu.Unlock()
	rn.narrateChecks(i, checks)
}

// errorText is an error's sentence in both languages: its catalogue
// sentence (a broker's error quoted as Kafka's own words), or, for an
// error of Offset Lab's own, a sentence naming the action that failed,
// the error's text going to the operator's log.
func (rn *run) errorText(action string, err error) Text {
	p := problem.As(err)
	if p.Kind != problem.Internal {
		return text(p.Message)
	}
	rn.runner.lab.Logger().Error("lesson step failed", "lesson", rn.lesson.ID, "action", action, "err", err)
	return text(catalog.M("lesson.out.stepFailed", "action", action))
}

// state snapshots the run.
func (rn *run) state() RunState {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	l := rn.lesson
	st := RunState{
		ID: rn.id, Lesson: l.ID, Seed: l.Seed, Title: rn.textLocked(l.Title), Summary: rn.textLocked(l.Summary),
		Broker: string(rn.runner.lab.Mode()), Suffix: rn.suffix,
		Names: make(map[string]string, len(rn.names)), Topics: []string{},
		Cursor: rn.cursor, Error: rn.failed,
	}
	for k, v := range rn.names {
		st.Names[k] = v
	}
	for _, t := range lessonTopics(l) {
		st.Topics = append(st.Topics, rn.names[t])
	}
	if l.Focus != "" {
		st.Focus = &LogRef{Topic: rn.nameLocked(l.Focus)}
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
		s.Lines = slices.Clone(s.Lines)
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
