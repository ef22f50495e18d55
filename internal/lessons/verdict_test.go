package lessons

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/live"
)

// observe is an action that observes fixed facts: what a broker would
// have answered, chosen by the test.
type observe struct{ facts map[Fact]string }

func (observe) Kind() string { return "observe" }
func (a observe) Facts() []Fact {
	var out []Fact
	for f := range a.facts {
		out = append(out, f)
	}
	return out
}
func (observe) Names() []string      { return nil }
func (observe) TopicNames() []string { return nil }
func (observe) Icon() string         { return live.EventInfo }
func (a observe) run(*stepContext) (*observation, error) {
	obs := newObservation("", 0)
	for f, v := range a.facts {
		obs.set(f, v)
	}
	return obs, nil
}

// TestVerdict: a check holds only when the observation equals the
// expectation. A step that observes something else is done (the run goes
// on) with that check not ok, its observed value kept beside the
// expected one, Passed below Checked, and a warning with ✗ on the
// timeline.
func TestVerdict(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	base := embeddedRunner(t, rec)
	lesson := Lesson{ID: "v", Title: "l1.title", Summary: "l1.summary", Steps: []Step{
		{Title: "orders.title", Say: "orders.say", Do: observe{facts: map[Fact]string{FactOffsets: "0, 1, 2", FactCount: "2"}}, Expect: []Expect{
			{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "0, 1, 2"},
			{Say: "expect.countO2", Fact: FactCount, Want: "1"},
		}},
		{Title: "orders.title", Say: "orders.say", Do: observe{facts: map[Fact]string{FactOffsets: "0, 1, 2, 3"}}, Expect: []Expect{
			{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "0, 1, 2"},
		}},
		{Title: "orders.title", Say: "orders.say", Do: observe{facts: map[Fact]string{FactOffsets: "0, 1, 2"}}, Expect: []Expect{
			{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "0, 1, 2"},
		}},
	}}
	r := NewWith(base.lab, []Lesson{lesson})
	t.Cleanup(r.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := r.Start("v")
	if err != nil {
		t.Fatal(err)
	}
	if st, err = r.Finish(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	if st.Status != RunFinished {
		t.Fatalf("a check that does not hold stopped the run: %+v", st)
	}
	type verdict struct {
		expected, observed string
		ok                 bool
	}
	want := [][]verdict{
		{{"0, 1, 2", "0, 1, 2", true}, {"1", "2", false}},
		{{"0, 1, 2", "0, 1, 2, 3", false}},
		{{"0, 1, 2", "0, 1, 2", true}},
	}
	for i, s := range st.Steps {
		if s.Status != StepDone {
			t.Fatalf("step %d: %s", i+1, s.Status)
		}
		for j, c := range s.Expectations {
			if got := (verdict{c.Expected, c.Observed, c.OK}); got != want[i][j] {
				t.Errorf("step %d check %d: %+v, want %+v", i+1, j+1, got, want[i][j])
			}
		}
	}
	if st.Checked != 4 || st.Passed != 2 {
		t.Errorf("%d of %d checks hold, want 2 of 4", st.Passed, st.Checked)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var marks []string
	for _, e := range rec.events {
		if strings.Contains(e.Text, "expected") {
			marks = append(marks, e.Kind+" "+e.Text)
		}
	}
	if len(marks) != 3 || !strings.HasPrefix(marks[0], live.EventWarning) || !strings.Contains(marks[0], "✗") ||
		!strings.HasPrefix(marks[1], live.EventWarning) || strings.HasPrefix(marks[2], live.EventWarning) || strings.Contains(marks[2], "✗") {
		t.Errorf("the timeline says %q; want ✗ and a warning for steps 1 and 2 only", marks)
	}
}
