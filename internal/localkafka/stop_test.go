package localkafka

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/wait"
)

// TestStopNodes runs stand-in processes (sleep) for the nodes of a triple
// and checks stopNodes' timeouts: SIGTERM ends an obedient node at once;
// a node that ignores it is SIGKILLed after noQuorumStopTimeout when it is
// the last one, or quorumLostGrace after the others have gone.
func TestStopNodes(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil || runtime.GOOS != "linux" {
		t.Skip("needs sh and /proc")
	}
	const obeys, ignores = "exec sleep 120", `trap "" TERM; exec sleep 120` // SIG_IGN survives exec
	tests := []struct {
		name     string
		nodes    []string // per node: its script, "" = not running
		min, max time.Duration
	}{
		{"all obey", []string{obeys, obeys, obeys}, 0, 3 * time.Second},
		{"last node ignores SIGTERM", []string{ignores, "", ""}, noQuorumStopTimeout, noQuorumStopTimeout + 4*time.Second},
		{"quorum lost half-way", []string{ignores, obeys, obeys}, quorumLostGrace - time.Second, quorumLostGrace + 5*time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer devNull.Close()
			c := &Cluster{
				dir:    t.TempDir(),
				layout: layout{Shape: Triple, Ports: []int{1, 2, 3}, ControllerPorts: []int{4, 5, 6}},
				log:    slog.New(slog.DiscardHandler),
				procs:  make([]*process, 3),
			}
			for i, script := range tt.nodes {
				if script == "" {
					continue
				}
				p, err := startProcess(sh, []string{"-c", script}, devNull)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { p.os.Kill() })
				c.procs[i] = p
				// signal only once sh has set its trap and become sleep
				comm := fmt.Sprintf("/proc/%d/comm", p.os.Pid)
				if err := wait.Until(t.Context(), 10*time.Millisecond, func(context.Context) (bool, error) {
					b, _ := os.ReadFile(comm)
					return string(b) == "sleep\n", nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			if err := c.stopNodes(c.nodeIDs()); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			if n := c.runningCount(); n != 0 {
				t.Errorf("%d processes still running", n)
			}
			if took < tt.min || took > tt.max {
				t.Errorf("stopped in %s, want %s to %s", took.Round(10*time.Millisecond), tt.min, tt.max)
			}
		})
	}
}
