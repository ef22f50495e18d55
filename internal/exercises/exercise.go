package exercises

import (
	"slices"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
)

// Text is a sentence in both languages the exercises speak.
type Text struct {
	En string `json:"en"`
	Ko string `json:"ko"`
}

// say renders catalogue key key (with its arguments) in both languages.
func say(key string, kv ...string) Text {
	m := catalog.M(key, kv...)
	return Text{En: m.In(catalog.English), Ko: m.In(catalog.Korean)}
}

// Exercise is one hands-on exercise, as data.
type Exercise struct {
	// ID is how the API names the exercise ("commit"); it also ends the
	// student's names for it: topic, group and transactional id
	// "student-<name>-<ID>".
	ID string
	// SharedTopics are the teacher's topics the exercise reads, which
	// every student may read (exactly-once's "orders").
	SharedTopics []string
	// Steps is how many "exercise.<ID>.step.<n>" sentences say what to
	// build, n from 1.
	Steps int
	// Jobs, when set, are records the server writes to each student's
	// topic before grading them (the share exercise's queue).
	Jobs   *Jobs
	Checks []Check
}

// Check is one thing the broker must show.
type Check struct {
	// Key names the check within its exercise; its title is the
	// catalogue sentence "exercise.<ID>.check.<Key>".
	Key  string
	Rule Rule
}

// Names are a student's names for one exercise.
type Names struct {
	Topic           string `json:"topic"`
	Group           string `json:"group"`
	TransactionalID string `json:"transactionalId"`
}

// NamesFor are student's names for the exercise: each is
// cluster.StudentPrefix(student) + ID ("student-ann-commit").
func (e Exercise) NamesFor(student string) Names {
	n := cluster.StudentPrefix(student) + e.ID
	return Names{Topic: n, Group: n, TransactionalID: n}
}

// Summary is an exercise as the list of exercises shows it.
type Summary struct {
	ID     string         `json:"id"`
	Title  Text           `json:"title"`
	Goal   Text           `json:"goal"`
	Checks []CheckSummary `json:"checks"`
}

// CheckSummary is a check's key and title.
type CheckSummary struct {
	Key   string `json:"key"`
	Title Text   `json:"title"`
}

// Summary is e for the list.
func (e Exercise) Summary() Summary {
	s := Summary{ID: e.ID, Title: say("exercise." + e.ID + ".title"), Goal: say("exercise." + e.ID + ".goal")}
	for _, c := range e.Checks {
		s.Checks = append(s.Checks, CheckSummary{Key: c.Key, Title: say("exercise." + e.ID + ".check." + c.Key)})
	}
	return s
}

// StepTexts are the sentences that say what to build, in order, with
// the student's names and the bootstrap address filled in.
func (e Exercise) StepTexts(n Names, bootstrap string) []Text {
	var out []Text
	for i := 1; i <= e.Steps; i++ {
		out = append(out, say("exercise."+e.ID+".step."+itoa(i),
			"topic", n.Topic, "group", n.Group, "transactionalId", n.TransactionalID, "bootstrap", bootstrap))
	}
	return out
}

// CheckKeys are the exercise's check keys, in order.
func (e Exercise) CheckKeys() []string {
	var keys []string
	for _, c := range e.Checks {
		keys = append(keys, c.Key)
	}
	return keys
}

// Find returns the built-in exercise id.
func Find(id string) (Exercise, bool) {
	all := Builtin()
	i := slices.IndexFunc(all, func(e Exercise) bool { return e.ID == id })
	if i < 0 {
		return Exercise{}, false
	}
	return all[i], true
}
