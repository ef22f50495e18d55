package lessons

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// stepContext is what an action runs with: the step's context, its run
// and the lab the run drives.
type stepContext struct {
	context.Context
	run     *run
	lab     Lab
	expects []Expect
}

// name is the run's name for a logical name.
func (sc *stepContext) name(logical string) string { return sc.run.name(logical) }

// args lists the Args the step's expectations give fact, as run names.
func (sc *stepContext) args(fact Fact) []string {
	var out []string
	for _, e := range sc.expects {
		if e.Fact == fact {
			out = append(out, sc.name(e.Arg))
		}
	}
	return out
}

// process is the run's name of an application process the step plays.
func (sc *stepContext) process(name string) string {
	if name == "" {
		name = defaultProcess
	}
	return sc.run.process(name)
}

// memory is what later steps of the run compare against.
func (sc *stepContext) memory() *memory { return &sc.run.memory }

// observation is what a step saw: facts to check, the lines a command
// would have printed, and the log the step concerns.
type observation struct {
	facts map[string]string
	// output is every line in English (StepState.Output); lines the same
	// lines as the page shows them (StepState.Lines).
	output []string
	lines  []OutputLine
	// command, when set, replaces the step's command with the exact one
	// for what the step found (e.g. which brokers are the followers).
	command   string
	topic     string
	partition int32
	// answer, set by a step that only reads, is what it found in the
	// terms the page draws at the cells (StepState.Answer).
	answer *Answer
}

func newObservation(topic string, partition int32) *observation {
	return &observation{facts: map[string]string{}, output: []string{}, lines: []OutputLine{}, topic: topic, partition: partition}
}

func (o *observation) set(f Fact, value string) { o.facts[string(f)] = value }

func (o *observation) setArg(f Fact, arg, value string) { o.facts[string(f)+arg] = value }

// fact returns an observed fact, or "not observed".
func (o *observation) fact(f Fact, arg string) string {
	if v, ok := o.facts[string(f)+arg]; ok {
		return v
	}
	return "not observed"
}

// OutputLine is one line of a step's output: a sentence of the catalogue
// in every language (Text), or a line of verbatim tool output (Tool: what
// the Kafka command or the application would print, in its own words,
// which the page labels as such and does not translate).
type OutputLine struct {
	Text *Text  `json:"text,omitempty"`
	Tool string `json:"tool,omitempty"`
}

// say adds the catalogue sentence "lesson.out.<name>" with its
// placeholders as name, value pairs.
func (o *observation) say(name string, kv ...string) {
	m := text(catalog.M("lesson.out."+name, kv...))
	o.output = append(o.output, m.En)
	o.lines = append(o.lines, OutputLine{Text: &m})
}

// tool adds a line of verbatim tool output.
func (o *observation) tool(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	o.output = append(o.output, line)
	o.lines = append(o.lines, OutputLine{Tool: line})
}

// itoa and i64 spell numbers for catalogue placeholders.
func itoa[T ~int | ~int16 | ~int32](n T) string { return strconv.Itoa(int(n)) }

func i64(n int64) string { return strconv.FormatInt(n, 10) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func joinOffsets(offsets []int64) string {
	if len(offsets) == 0 {
		return "none"
	}
	parts := make([]string, len(offsets))
	for i, o := range offsets {
		parts[i] = strconv.FormatInt(o, 10)
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}
