package exercises

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// openClass opens a class kept in path, without a broker (plaintext
// students: names only).
func openClass(t testing.TB, path string) *Grader {
	t.Helper()
	g, err := OpenGrader(nil, NewClass(ClassConfig{Bootstrap: []string{"127.0.0.1:9092"}}), GraderConfig{StateFile: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// fillResults gives every student of g a result of every exercise, as a
// grading would.
func fillResults(g *Grader) {
	g.mu.Lock()
	defer g.mu.Unlock()
	offset := int64(3)
	for _, ex := range Builtin() {
		g.results[ex.ID] = map[string]Result{}
		g.from[ex.ID] = map[string]int64{}
		for _, s := range g.class.Students() {
			r := Result{Name: s.Name, CheckedAt: time.Now().UTC()}
			for i, k := range ex.CheckKeys() {
				c := CheckResult{Key: k, Verdict: Verdict{OK: i%2 == 0, Evidence: Evidence{Offsets: []int64{0, 1, 2}, LogEnd: &offset}}}
				if !c.OK {
					c.Hint = catalog.M("exercise.hint.noRecords", "topic", ex.NamesFor(s.Name).Topic)
				}
				r.Checks = append(r.Checks, c)
			}
			g.results[ex.ID][s.Name] = r
			g.from[ex.ID][s.Name] = 2
		}
	}
	g.bumpLocked()
}

// TestClassKeptOnDisk: the students (with their cookie tokens), the
// current exercise, reset points, results and the stage written by one
// grader are what the next one reads back; the file is 0600; a removed
// student is gone from it.
func TestClassKeptOnDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "classroom", "class.json")
	ctx := context.Background()
	first := openClass(t, path)
	for _, name := range []string{"ann", "bob", "carol"} {
		if _, err := first.Class().Join(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := first.Start("commit"); err != nil {
		t.Fatal(err)
	}
	fillResults(first)
	first.SetStage(Stage{Topic: "student-ann-commit", Partition: 0})
	if err := first.Remove(ctx, "carol", false); err != nil {
		t.Fatal(err)
	}
	before := first.Class().Students()
	wantResults, _, _ := first.Results("commit")
	first.Close()

	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("class file mode %v, want 0600", got)
	}
	second := openClass(t, path)
	after := second.Class().Students()
	if len(after) != 2 || len(before) != 2 {
		t.Fatalf("students %d after, %d before, want 2", len(after), len(before))
	}
	for i := range after {
		a, b := after[i], before[i]
		if a.Name != b.Name || a.Token != b.Token || fmt.Sprint(a.Kafka) != fmt.Sprint(b.Kafka) || !a.JoinedAt.Equal(b.JoinedAt) {
			t.Errorf("student %d: %+v, want %+v", i, a, b)
		}
		if got, ok := second.Class().ByToken(b.Token); !ok || got.Name != b.Name {
			t.Errorf("%s's cookie after the restart: %v %v", b.Name, got.Name, ok)
		}
	}
	if got := second.Current(); got != "commit" {
		t.Errorf("current exercise %q, want commit", got)
	}
	if st, ok := second.Stage(); !ok || st.Topic != "student-ann-commit" {
		t.Errorf("stage %+v %v", st, ok)
	}
	gotResults, _, _ := second.Results("commit")
	if resultsText(gotResults) != resultsText(wantResults) {
		t.Errorf("results after the restart:\n%v\nwant\n%v", gotResults, wantResults)
	}
	if _, err := second.Class().Join(ctx, "carol"); err != nil {
		t.Errorf("carol's name after her removal: %v", err)
	}
	if _, err := second.Class().Join(ctx, "ann"); err == nil {
		t.Error("ann's name is free after the restart")
	}
}

// resultsText is rs as JSON with each check's hint, for comparing.
func resultsText(rs []Result) string {
	var b strings.Builder
	for _, r := range rs {
		j, _ := json.Marshal(r)
		b.Write(j)
		for _, c := range r.Checks {
			b.WriteString(" " + c.Hint.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestClassFileRefused: a class file cut short, edited by hand, of
// another format or naming a student twice is refused at start with an
// error that names it; nothing is loaded and the file is left as it was.
func TestClassFileRefused(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	g := openClass(t, good)
	for _, name := range []string{"ann", "bob"} {
		if _, err := g.Class().Join(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	g.Close()
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		want string
	}{
		{"torn", string(raw[:len(raw)/2]), "torn"},
		{"edited", strings.Replace(string(raw), `"name":"bob"`, `"name":"eve"`, 1), "checksum"},
		{"empty", "", "torn"},
		{"other format", strings.Replace(string(raw), `"format":1`, `"format":9`, 1), "format 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".json")
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := OpenGrader(nil, NewClass(ClassConfig{}), GraderConfig{StateFile: path})
			if !errors.Is(err, ErrClassFile) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrClassFile naming %s and saying %q", err, path, tt.want)
			}
			if after, _ := os.ReadFile(path); string(after) != tt.data {
				t.Error("the refused file was changed")
			}
		})
	}
}

// classOf200 writes a class of 200 students with a result of every
// exercise each and returns its path.
func classOf200(b testing.TB) string {
	path := filepath.Join(b.TempDir(), "class.json")
	g := openClass(b, path)
	for i := range 200 {
		if _, err := g.Class().Join(context.Background(), fmt.Sprintf("s%03d", i)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := g.Start("exactly-once"); err != nil {
		b.Fatal(err)
	}
	fillResults(g)
	if err := g.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	g.Close()
	return path
}

// BenchmarkClassRestore: a class of 200 students with results read back
// at start (OpenGrader).
func BenchmarkClassRestore(b *testing.B) {
	path := classOf200(b)
	info, _ := os.Stat(path)
	b.ResetTimer()
	for range b.N {
		g, err := OpenGrader(nil, NewClass(ClassConfig{}), GraderConfig{StateFile: path})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(g.Class().Students()); n != 200 {
			b.Fatalf("%d students", n)
		}
		g.Close()
	}
	b.ReportMetric(float64(info.Size()), "file-bytes")
}

// BenchmarkClassSaveHold: how long a write of that class holds the
// grader's lock (the copy of its results), which is all a grading ever
// waits for: the encoding and the disk happen outside it.
func BenchmarkClassSaveHold(b *testing.B) {
	g := openClass(b, classOf200(b))
	b.ResetTimer()
	for range b.N {
		g.mu.Lock()
		rec := g.recordLocked()
		g.mu.Unlock()
		if len(rec.Results) == 0 {
			b.Fatal("no results")
		}
	}
}

// BenchmarkClassSave: one whole write of that class (snapshot, encode,
// fsync, rename), done by the writer goroutine.
func BenchmarkClassSave(b *testing.B) {
	g := openClass(b, classOf200(b))
	b.ResetTimer()
	for range b.N {
		g.mu.Lock()
		g.markDirtyLocked()
		g.mu.Unlock()
		if err := g.Flush(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
