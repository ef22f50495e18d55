package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// exerciseBenchEnv turns on TestExerciseBench.
const exerciseBenchEnv = "OFFSETLAB_EXERCISE_BENCH"

var loginLogRe = regexp.MustCompile(`loginURL="?([^"\s]+)`)

// TestExerciseBench: thirty students doing `commit` at once against the
// server binary in classroom mode (its embedded broker on SASL). It
// measures, for each student, the time from their COMMIT (EndTransaction
// returned) to their scoreboard cell turning ✓ in the teacher's long poll,
// and the server process's CPU time and resident memory. It asserts only
// that every student turns ✓; the numbers are logged. It stops by itself.
func TestExerciseBench(t *testing.T) {
	if os.Getenv(exerciseBenchEnv) == "" {
		t.Skipf("exercise benchmark skipped: set %s=1", exerciseBenchEnv)
	}
	const students = 30
	p := startServerProcess(t, "--classroom", "--data-dir", t.TempDir())
	var link string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := wait.Until(ctx, 50*time.Millisecond, func(context.Context) (bool, error) {
		if m := loginLogRe.FindStringSubmatch(p.logText()); m != nil {
			link = m[1]
		}
		return link != "", nil
	}); err != nil {
		t.Fatalf("no teacher login link in the log (%v):\n%s", err, p.logText())
	}
	h := &handsOn{t: t, url: strings.TrimSuffix(p.url, "/"), suffix: randomSuffix(t)[:6]}
	teacher := loginTeacher(t, h.url, link)
	if status, body := teacher.post("/api/exercises/commit/start", ""); status != http.StatusOK {
		t.Fatalf("start: %d %s", status, body)
	}
	ex, _ := exercises.Find("commit")
	var class []*joined
	for i := range students {
		class = append(class, h.join("b"+strconv.Itoa(i)+"x"))
	}
	cpu0, _ := procCPU(p.cmd.Process.Pid)

	committedAt := make([]time.Time, students)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, s := range class {
		n := ex.NamesFor(s.Name)
		cl := s.franz(t, kgo.TransactionalID(n.TransactionalID))
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := cl.BeginTransaction(); err != nil {
				t.Error(err)
				return
			}
			for _, v := range []string{"a", "b", "c"} {
				cl.Produce(ctx, &kgo.Record{Topic: n.Topic, Value: []byte(v)}, nil)
			}
			if err := cl.Flush(ctx); err != nil {
				t.Error(err)
				return
			}
			if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
				t.Error(err)
				return
			}
			committedAt[i] = time.Now()
		}()
	}
	okAt := map[string]time.Time{}
	var lastBoard string
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		after := int64(0)
		stop := time.Now().Add(2 * time.Minute)
		for len(okAt) < students && time.Now().Before(stop) {
			status, body, _ := teacher.get(fmt.Sprintf("/api/exercises/commit/results?after=%d", after))
			now := time.Now()
			if status != http.StatusOK {
				t.Errorf("scoreboard: %d %s", status, body)
				return
			}
			lastBoard = body
			var r apiResults
			if err := json.Unmarshal([]byte(body), &r); err != nil {
				t.Error(err)
				return
			}
			for _, st := range r.Students {
				if _, seen := okAt[st.Name]; st.Done && !seen {
					okAt[st.Name] = now
				}
			}
			after = r.Version
		}
	}()
	close(start)
	wg.Wait()
	<-polled
	cpu1, _ := procCPU(p.cmd.Process.Pid)
	rss, hwm := procMemory(p.cmd.Process.Pid)
	// The grader's steady cost: thirty students polled, nothing changing,
	// over a fixed measurement window (not a wait for a condition).
	const idle = 5 * time.Second
	<-time.After(idle)
	cpu2, _ := procCPU(p.cmd.Process.Pid)

	var latencies []time.Duration
	for i, s := range class {
		ok, done := okAt[s.Name]
		if !done || committedAt[i].IsZero() {
			t.Errorf("%s never turned ✓ (committed at %v); the scoreboard: %.600s", s.Name, committedAt[i], lastBoard)
			continue
		}
		latencies = append(latencies, max(0, ok.Sub(committedAt[i])))
	}
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	pct := func(q float64) time.Duration { return latencies[min(len(latencies)-1, int(q*float64(len(latencies))))] }
	t.Logf("%d students doing commit at once: COMMIT → ✓ p50 %v, p99 %v, max %v; server CPU %.2fs over the run, %.1f%% of a core while the class idles; RSS %d MiB (peak %d MiB)",
		len(latencies), pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), latencies[len(latencies)-1].Round(time.Millisecond),
		cpu1-cpu0, 100*(cpu2-cpu1)/idle.Seconds(), rss>>20, hwm>>20)
}

// procCPU is a process's user+system CPU seconds, from /proc.
func procCPU(pid int) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100, nil // USER_HZ is 100 on Linux
}

// procMemory is a process's resident and peak resident bytes, from /proc.
func procMemory(pid int) (rss, hwm int64) {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			hwm = kb << 10
		}
	}
	return rss, hwm
}
