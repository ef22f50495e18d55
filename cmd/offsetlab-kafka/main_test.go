package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/testenv"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// helperEnv makes the test binary act as offsetlab-kafka: start runs
// os.Executable() again as the supervisor, which is then this binary.
const helperEnv = "OFFSETLAB_KAFKA_CLI_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" && len(os.Args) > 1 && os.Args[1] == superviseCommand {
		os.Exit(run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{nil, 2, ""},
		{[]string{"start", "quad", t.TempDir()}, 1, ""},
		{[]string{"stop-node", t.TempDir(), "two"}, 1, ""},
		{[]string{"status"}, 2, ""},
		{[]string{"settings", "secure"}, 0, "super.users=User:broker;User:admin\n"},
		{[]string{"settings", "triple"}, 0, "transaction.state.log.min.isr=2\n"},
		{[]string{"stop", t.TempDir()}, 0, ""},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), tt.args, func(string) string { return "" }, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.out) {
			t.Errorf("offsetlab-kafka %q: exit %d, stdout %q (stderr %q); want exit %d with %q", tt.args, code, stdout.String(), stderr.String(), tt.code, tt.out)
		}
	}
}

// realKafka sets the environment for the command line to start real
// Kafka from this test binary, or skips (fails under CI=true) when Java or
// the jars are missing.
func realKafka(t *testing.T) {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	cwd, _ := os.Getwd()
	libs := localkafka.DefaultLibs(os.Getenv, filepath.Join(cwd, "..", ".."))
	if _, err := exec.LookPath(localkafka.DefaultJava(os.Getenv)); err != nil || localkafka.FetchJars(t.Context(), libs, nil, nil) != nil {
		testenv.MissingSetup(t, "real Kafka skipped: Java or the Kafka jars (%s) are missing (go run ./cmd/offsetlab-kafka fetch)", libs)
	}
	t.Setenv(helperEnv, "1")
	t.Setenv("OFFSETLAB_KAFKA_LIBS", libs)
}

// cli runs the command line in this process (the supervisor it starts is
// this test binary again) and returns its exit code and stdout.
func cli(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, os.Getenv, &stdout, &stderr)
	if code != 0 {
		t.Logf("offsetlab-kafka %q: exit %d\n%s", args, code, stderr.String())
	}
	return code, stdout.String()
}

// nodePid is the JVM pid DIR/pids records for node 1.
func nodePid(t *testing.T, dir string) int {
	t.Helper()
	pids, err := os.ReadFile(filepath.Join(dir, "pids"))
	f := strings.Fields(string(pids))
	if err != nil || len(f) != 2 {
		t.Fatalf("pids: %q, %v", pids, err)
	}
	pid, _ := strconv.Atoi(f[1])
	return pid
}

// TestWatchdogStopsCluster: a cluster started with
// OFFSETLAB_KAFKA_WATCH_PID stops by itself once that process is gone.
func TestWatchdogStopsCluster(t *testing.T) {
	realKafka(t)
	watched := exec.Command("sleep", "600")
	if err := watched.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watched.Process.Kill(); watched.Wait() })
	t.Setenv("OFFSETLAB_KAFKA_WATCH_PID", strconv.Itoa(watched.Process.Pid))
	dir := t.TempDir()
	t.Cleanup(func() { cli(t, "stop", dir) })
	if code, _ := cli(t, "start", "single", dir); code != 0 {
		t.Fatalf("start: exit %d", code)
	}
	jvm := nodePid(t, dir)
	watched.Process.Kill()
	watched.Wait()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if err := wait.Until(ctx, 100*time.Millisecond, func(context.Context) (bool, error) { return !processAlive(jvm), nil }); err != nil {
		t.Fatalf("the broker's JVM (pid %d) still runs a minute after the watched process exited", jvm)
	}
}

// TestStartStatusStop runs a single node through the command line as the
// test command does: start prints the bootstrap address as its last line
// and writes DIR/bootstrap, status reports the node serving, stop leaves
// no JVM.
func TestStartStatusStop(t *testing.T) {
	realKafka(t)
	t.Setenv("OFFSETLAB_KAFKA_WATCH_PID", strconv.Itoa(os.Getpid()))
	dir := t.TempDir()
	t.Cleanup(func() { cli(t, "stop", dir) })
	code, out := cli(t, "start", "single", dir)
	if code != 0 {
		t.Fatalf("start: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	bootstrap := lines[len(lines)-1]
	if b, err := os.ReadFile(filepath.Join(dir, "bootstrap")); err != nil || strings.TrimSpace(string(b)) != bootstrap {
		t.Errorf("DIR/bootstrap %q (%v), start printed %q", b, err, bootstrap)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Ping(t.Context()); err != nil {
		t.Errorf("ping %s: %v", bootstrap, err)
	}
	cl.Close()
	if code, out := cli(t, "start", "single", dir); code == 0 {
		t.Errorf("a second start in the same directory: exit 0, %q", out)
	}
	if code, out := cli(t, "status", dir); code != 0 || !strings.Contains(out, "node 1 serving "+bootstrap) {
		t.Errorf("status: exit %d, %q", code, out)
	}
	jvm := nodePid(t, dir)
	if code, _ := cli(t, "stop", dir); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if processAlive(jvm) {
		t.Errorf("the broker's JVM (pid %d) still runs after stop", jvm)
	}
	if code, _ := cli(t, "status", dir); code != 1 {
		t.Errorf("status after stop: exit %d, want 1 (no cluster)", code)
	}
}
