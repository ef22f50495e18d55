package lessons

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/lab"
)

// TestRunKeptAcrossRestart: lesson 2, stepped three steps, is the current
// run of the next Runner on the same run file, at the same step, with
// the same names and the steps done as they were; it steps on from there
// and finishes. A torn run file is refused with its name.
func TestRunKeptAcrossRestart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c})
	t.Cleanup(l.Close)
	path := filepath.Join(t.TempDir(), "lessons", "run.json")

	first := New(l)
	if err := first.KeepRunIn(path); err != nil {
		t.Fatal(err)
	}
	st, err := first.Start("2")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if st, err = first.Next(ctx, st.ID); err != nil {
			t.Fatal(err)
		}
	}
	first.Close()

	second := New(l)
	t.Cleanup(second.Close)
	if err := second.KeepRunIn(path); err != nil {
		t.Fatal(err)
	}
	if got := second.Current(); got != st.ID {
		t.Fatalf("current run %q after the restart, want %q", got, st.ID)
	}
	back, err := second.State(st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if back.Cursor != 3 || back.Suffix != st.Suffix || back.Steps[2].Status != StepDone || back.Steps[2].Command != st.Steps[2].Command {
		t.Errorf("run after the restart: cursor %d suffix %s step 3 %s, want 3 %s done", back.Cursor, back.Suffix, back.Steps[2].Status, st.Suffix)
	}
	fin, err := second.Finish(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fin.Status != RunFinished {
		t.Errorf("the restored run finished as %s: %s", fin.Status, fin.Error)
	}

	if err := os.WriteFile(path, []byte(`{"format":1,"id":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := New(l).KeepRunIn(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a torn run file: %v, want an error naming it", err)
	}
}
