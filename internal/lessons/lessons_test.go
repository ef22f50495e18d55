package lessons

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// usedMsgs lists every catalogue id the lessons refer to.
func usedMsgs(lessons []Lesson) []Msg {
	var out []Msg
	add := func(ids ...Msg) {
		for _, id := range ids {
			if id != "" && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	add("unavailable.replication")
	add("unavailable.replication.java")
	for _, l := range lessons {
		add(l.Title, l.Summary)
		for _, s := range l.Steps {
			add(s.Title, s.Say)
			for _, e := range s.Expect {
				add(e.Say)
			}
		}
	}
	return out
}

var placeholderSet = regexp.MustCompile(`\{[A-Za-z0-9._-]+\}`)

func placeholders(s string) []string {
	out := placeholderSet.FindAllString(s, -1)
	slices.Sort(out)
	return slices.Compact(out)
}

// TestCatalogue fails when a lesson sentence is missing in either
// language, when a language has a lesson sentence nobody uses, or when the
// two translations disagree on their placeholders (the catalogue's own
// test checks the rest of it).
func TestCatalogue(t *testing.T) {
	t.Parallel()
	used := usedMsgs(Builtin())
	for _, id := range used {
		for _, lang := range catalog.Languages() {
			if s, ok := catalog.Sentence(lang, id.Key()); !ok || strings.TrimSpace(s) == "" {
				t.Errorf("message %q has no %s text", id, lang)
			}
		}
	}
	for _, lang := range catalog.Languages() {
		for _, key := range catalog.Keys(lang) {
			id, ok := strings.CutPrefix(key, "lesson.")
			// ui: the page's; narration: the runner's; out: the lines
			// the actions print (observation.say).
			if !ok || strings.HasPrefix(id, "ui.") || strings.HasPrefix(id, "narration.") || strings.HasPrefix(id, "out.") {
				continue
			}
			if !slices.Contains(used, Msg(id)) {
				t.Errorf("message %q (%s) is used by no lesson", id, lang)
			}
		}
	}
	for _, id := range used {
		en, _ := catalog.Sentence(catalog.English, id.Key())
		ko, _ := catalog.Sentence(catalog.Korean, id.Key())
		if !slices.Equal(placeholders(en), placeholders(ko)) {
			t.Errorf("message %q: English placeholders %v, Korean %v", id, placeholders(en), placeholders(ko))
		}
		if ko == en && !strings.HasPrefix(string(id), "expect.") {
			t.Errorf("message %q is not translated: %q", id, ko)
		}
	}
	if _, ok := catalog.Sentence(catalog.English, "lesson.ui.next"); !ok {
		t.Error("the panel's label lesson.ui.next is missing")
	}
}

// TestLessonData checks the lessons as data: unique ids, every check names
// a fact its action observes (with an Arg exactly when the fact takes
// one), and every placeholder names one of the lesson's names.
func TestLessonData(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, l := range Builtin() {
		if seen[l.ID] {
			t.Errorf("lesson id %q twice", l.ID)
		}
		seen[l.ID] = true
		names := lessonNames(&l)
		known := func(where, s string) {
			for _, p := range placeholders(s) {
				key := p[1 : len(p)-1]
				if key != "bootstrap" && !slices.Contains(names, key) {
					t.Errorf("lesson %s, %s: placeholder %s names nothing of the lesson (names %v)", l.ID, where, p, names)
				}
			}
		}
		for _, id := range []Msg{l.Title, l.Summary} {
			known(string(id), english(id))
		}
		if len(l.Steps) == 0 {
			t.Errorf("lesson %s has no steps", l.ID)
		}
		if l.Focus != "" && !slices.Contains(lessonTopics(&l), l.Focus) {
			t.Errorf("lesson %s ends on %q, which is none of its topics %v", l.ID, l.Focus, lessonTopics(&l))
		}
		for i, s := range l.Steps {
			where := l.ID + " step " + string(rune('1'+i))
			known(where+" command", s.Command)
			known(where+" title", english(s.Title))
			known(where+" narration", english(s.Say))
			if s.Command == "" {
				t.Errorf("lesson %s: no command", where)
			}
			facts := s.Do.Facts()
			for _, e := range s.Expect {
				known(where+" check", english(e.Say))
				wantArg := strings.HasSuffix(string(e.Fact), ":")
				if !slices.Contains(facts, e.Fact) {
					t.Errorf("lesson %s: %s observes no fact %q (it has %v)", where, s.Do.Kind(), e.Fact, facts)
				}
				if wantArg != (e.Arg != "") {
					t.Errorf("lesson %s: fact %q with arg %q", where, e.Fact, e.Arg)
				}
			}
		}
	}
}

// english is a lesson sentence's English, unfilled.
func english(id Msg) string {
	s, _ := catalog.Sentence(catalog.English, id.Key())
	return s
}

// embeddedRunner is a Runner over a fresh embedded broker; narration goes
// to narrator when it is not nil.
func embeddedRunner(t *testing.T, narrator *recorder) *Runner {
	t.Helper()
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c})
	t.Cleanup(l.Close)
	var runnerLab Lab = l
	if narrator != nil {
		runnerLab = recordingLab{Lab: l, rec: narrator}
	}
	r := New(runnerLab)
	t.Cleanup(r.Close)
	return r
}

// recorder keeps what a runner narrates.
type recorder struct {
	mu     sync.Mutex
	events []live.Event
}

// recordingLab is a Lab whose Narrate records instead.
type recordingLab struct {
	Lab
	rec *recorder
}

func (l recordingLab) Narrate(kind, topic string, partition int32, msg catalog.Message) {
	l.rec.mu.Lock()
	defer l.rec.mu.Unlock()
	l.rec.events = append(l.rec.events, live.NewEvent(kind, topic, partition, msg))
}

// TestRunnerLifecycle steps lesson 1 on the embedded broker: Next moves
// the cursor, Finish runs to the end with every check holding, Next past
// the end and an unknown run are refused, Reset brings fresh names, and
// each step is narrated.
func TestRunnerLifecycle(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	r := embeddedRunner(t, rec)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	st, err := r.Start("1")
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != RunReady || st.Cursor != 0 || st.Steps[0].Status != StepPending || st.Names["orders"] != "orders-"+st.Suffix {
		t.Fatalf("started run = %+v", st)
	}
	// Korean particles follow how the run's generated names end.
	ko := st.Steps[0].Narration.Ko
	orders := st.Names["orders"]
	want := orders + catalog.Particle(orders, "과", "와")
	if strings.ContainsAny(ko, "{|}") || !strings.Contains(ko, want) {
		t.Fatalf("step 1's Korean narration %q: want %q and no placeholder left", ko, want)
	}
	if st.Focus == nil || *st.Focus != (LogRef{Topic: st.Names["order-totals"]}) {
		t.Fatalf("lesson 1 ends on %+v, want partition 0 of %s", st.Focus, st.Names["order-totals"])
	}
	if !strings.Contains(st.Steps[0].Command, "--topic "+st.Names["orders"]) || !strings.Contains(st.Steps[3].Command, "--group "+st.Names["totals-plain"]) {
		t.Fatalf("commands not rendered with the run's names: %q / %q", st.Steps[0].Command, st.Steps[3].Command)
	}
	if st, err = r.Next(ctx, st.ID); err != nil || st.Cursor != 1 || st.Steps[0].Status != StepDone {
		t.Fatalf("Next = %+v, %v", st, err)
	}
	if st, err = r.Finish(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	if st.Status != RunFinished || st.Passed != st.Checked || st.Checked == 0 {
		for _, s := range st.Steps {
			for _, c := range s.Expectations {
				if !c.OK {
					t.Errorf("step %d %q: %s: expected %q, observed %q", s.Index+1, s.Title.En, c.Text.En, c.Expected, c.Observed)
				}
			}
		}
		t.Fatalf("finished run: status %s, %d of %d checks hold", st.Status, st.Passed, st.Checked)
	}
	if _, err := r.Next(ctx, st.ID); !problem.Is(err, "error.lessonFinished") {
		t.Fatalf("Next after the end: %v, want the run over", err)
	}
	if _, err := r.Next(ctx, "nope"); !problem.Is(err, "error.lessonRunUnknown") {
		t.Fatalf("Next on an unknown run: %v, want an unknown run", err)
	}
	reset, err := r.Reset(st.ID)
	if err != nil || reset.Cursor != 0 || reset.Suffix == st.Suffix || reset.Status != RunReady || reset.Checked != 0 {
		t.Fatalf("Reset = %+v, %v; want cursor 0 and a new suffix", reset, err)
	}
	if len(rec.events) < len(st.Steps) {
		t.Fatalf("%d narrated events for %d steps", len(rec.events), len(st.Steps))
	}
	if !strings.HasPrefix(rec.events[0].Text, "Lesson 1 · step 1 of 7 — Create the topics.") {
		t.Fatalf("first narration %q", rec.events[0].Text)
	}
	// Every narration carries both languages for the page (live.Event.Key).
	for _, e := range rec.events {
		if e.Key != "narration.lesson" || e.Args["en"] != e.Text || e.Args["ko"] == "" {
			t.Fatalf("narration %+v: want key narration.lesson, args en = text and ko", e)
		}
	}
	if ko := rec.events[0].Args["ko"]; !strings.HasPrefix(ko, "실습 1 · 7단계 중 1단계 — ") {
		t.Fatalf("first narration in Korean %q", ko)
	}
}

// TestReplicationLessonRefusedOnEmbedded: lesson 4 never pretends to have
// an ISR on the embedded broker.
func TestReplicationLessonRefusedOnEmbedded(t *testing.T) {
	t.Parallel()
	r := embeddedRunner(t, nil)
	if _, err := r.Start("4"); problem.KindOf(err) != problem.Conflict || !strings.Contains(err.Error(), "no replication") {
		t.Fatalf("Start(4) on the embedded broker: %v, want a refusal saying it has no replication", err)
	}
	for _, s := range r.List() {
		if (s.ID == "4") == s.Available {
			t.Errorf("lesson %s: available = %v", s.ID, s.Available)
		}
		if s.ID == "4" && (s.Unavailable == nil || s.Unavailable.Ko == "") {
			t.Errorf("lesson 4 does not say why in both languages: %+v", s.Unavailable)
		}
	}
	if _, err := r.Start("99"); !problem.Is(err, "error.lessonUnknown") {
		t.Fatalf("Start(99): %v, want an unknown lesson", err)
	}
}

// TestOutputLinesSpeakBothLanguages runs lesson 6b (two producers, one
// fenced) to the end: each step's output line is either a catalogue
// sentence rendered in both languages, its English also in Output, or
// verbatim tool output; none is a bare key or keeps a placeholder.
func TestOutputLinesSpeakBothLanguages(t *testing.T) {
	t.Parallel()
	r := embeddedRunner(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := r.Start("6b")
	if err != nil {
		t.Fatal(err)
	}
	if st, err = r.Finish(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	sentences := 0
	for _, s := range st.Steps {
		if len(s.Lines) != len(s.Output) {
			t.Errorf("step %d: %d lines, %d output lines", s.Index+1, len(s.Lines), len(s.Output))
			continue
		}
		for i, line := range s.Lines {
			switch {
			case line.Text != nil:
				sentences++
				if line.Text.En != s.Output[i] {
					t.Errorf("step %d line %d: English %q, Output %q", s.Index+1, i, line.Text.En, s.Output[i])
				}
				for _, said := range []string{line.Text.En, line.Text.Ko} {
					if strings.ContainsAny(said, "{}[]") || said == "" {
						t.Errorf("step %d line %d: %q is not a rendered sentence", s.Index+1, i, said)
					}
				}
				if line.Text.Ko == line.Text.En {
					t.Errorf("step %d line %d: Korean %q is the English", s.Index+1, i, line.Text.Ko)
				}
			case line.Tool != s.Output[i] || line.Tool == "":
				t.Errorf("step %d line %d: tool output %q, Output %q", s.Index+1, i, line.Tool, s.Output[i])
			}
		}
	}
	if sentences < 4 {
		t.Errorf("lesson 6b's output has %d catalogue sentences; want its begins, sends, fence and commit", sentences)
	}
}

// TestLessonsOutsideStudentNamespace: no lesson names anything in the
// students' namespace, which the lab refuses to write (a lesson that did
// would fail at its step, and its name would be a student's).
func TestLessonsOutsideStudentNamespace(t *testing.T) {
	for _, l := range Builtin() {
		for _, n := range lessonNames(&l) {
			if cluster.InStudentNamespace(n) || cluster.InStudentNamespace(n+"-000000") {
				t.Errorf("lesson %s names %q, in the students' namespace %q", l.ID, n, cluster.StudentNamespace)
			}
		}
	}
}
