package lessons

import (
	"slices"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// Msg is the id of a lesson sentence: the catalogue key "lesson."+Msg
// (internal/catalog), in English and Korean. Sentences may hold
// placeholders: {name} is a lesson's logical name (a topic, group or
// transactional.id) made unique for the run, and {bootstrap} is the
// brokers' address.
type Msg string

// Key is the sentence's catalogue key.
func (m Msg) Key() string { return "lesson." + string(m) }

// Text is a sentence in every language the lessons speak, as the API
// sends it.
type Text struct {
	En string `json:"en"`
	Ko string `json:"ko"`
}

// text renders a catalogue message in both languages.
func text(m catalog.Message) Text {
	return Text{En: m.In(catalog.English), Ko: m.In(catalog.Korean)}
}

// Lesson is one guided experiment of the seeds, as data.
type Lesson struct {
	// ID is how the API names the lesson ("2", "6b").
	ID string
	// Seed names the seed the lesson follows, e.g. "000".
	Seed    string
	Title   Msg
	Summary Msg
	// NeedsReplication marks a lesson about replicas and ISR: it needs a
	// real cluster of three brokers and refuses to start on the embedded
	// broker, which has no replication.
	NeedsReplication bool
	// Focus is the logical topic whose partition 0 carries the lesson's
	// point (the output log with its markers, say): the page ends the
	// lesson there, whatever log its last step read. Empty leaves the
	// page on the last step's log.
	Focus string
	Steps []Step
}

// Step is one action of a lesson with what to say, the command a learner
// would type on real Kafka, and what the broker must report afterwards.
type Step struct {
	Title Msg
	Say   Msg
	Do    Action
	// Command is the equivalent on real Kafka, one command per line,
	// with the same placeholders as catalogue sentences.
	Command string
	Expect  []Expect
}

// Expect is one check of a step: the fact observed after the action must
// equal Want (Apache Kafka's answer, the seeds' number).
type Expect struct {
	// Say states the check in words.
	Say Msg
	// Fact names what is observed (see facts.go); Arg qualifies a fact
	// that takes one, e.g. the value whose copies FactCount counts.
	Fact Fact
	Arg  string
	Want string
}

// Action is what a step does to the brokers, one type per file of this
// package. Names in an action are logical (the run makes them unique).
type Action interface {
	// Kind names the action in the API ("produce", "read-log", ...).
	Kind() string
	// Facts lists the facts the action observes.
	Facts() []Fact
	// Names lists the logical names the action uses: topics first,
	// then groups and transactional ids.
	Names() []string
	// TopicNames lists the topics among Names.
	TopicNames() []string
	// Icon is the timeline icon of the step (a live.Event kind).
	Icon() string
	run(sc *stepContext) (*observation, error)
}

// TopicSpec is a topic a lesson creates.
type TopicSpec struct {
	Name       string
	Partitions int32
	// ReplicationFactor 0 means the broker's default.
	ReplicationFactor int16
	Configs           map[string]string
}

// defaultProcess names the process of transactional steps that name none.
const defaultProcess = "app"

// lessonNames lists the logical names a lesson's actions use (topics,
// groups, transactional ids), in order of first use.
func lessonNames(l *Lesson) []string {
	var out []string
	for _, s := range l.Steps {
		out = appendNew(out, s.Do.Names()...)
	}
	return out
}

// lessonTopics lists the topics a lesson creates or uses.
func lessonTopics(l *Lesson) []string {
	var out []string
	for _, s := range l.Steps {
		out = appendNew(out, s.Do.TopicNames()...)
	}
	return out
}

// appendNew appends the non-empty names not in list yet.
func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		if n != "" && !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}
