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

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/localkafka"
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

// TestStartStatusStop runs a single node through the command line as the
// test command does: start prints the bootstrap address as its last line
// and writes DIR/bootstrap, status reports the node serving, stop leaves
// no JVM.
func TestStartStatusStop(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real Kafka skipped")
	}
	cwd, _ := os.Getwd()
	libs := localkafka.DefaultLibs(os.Getenv, filepath.Join(cwd, "..", ".."))
	if _, err := exec.LookPath(localkafka.DefaultJava(os.Getenv)); err != nil || localkafka.FetchJars(t.Context(), libs, nil, nil) != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: Java or the Kafka jars (%s) are missing", libs)
		}
		t.Skipf("real Kafka skipped: Java or the Kafka jars (%s) are missing (go run ./cmd/offsetlab-kafka fetch)", libs)
	}
	t.Setenv(helperEnv, "1")
	t.Setenv("OFFSETLAB_KAFKA_LIBS", libs)
	t.Setenv("OFFSETLAB_KAFKA_WATCH_PID", strconv.Itoa(os.Getpid()))
	dir := t.TempDir()
	cli := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, os.Getenv, &stdout, &stderr)
		if code != 0 {
			t.Logf("offsetlab-kafka %q: exit %d\n%s", args, code, stderr.String())
		}
		return code, stdout.String()
	}
	t.Cleanup(func() { cli("stop", dir) })
	code, out := cli("start", "single", dir)
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
	if code, out := cli("start", "single", dir); code == 0 {
		t.Errorf("a second start in the same directory: exit 0, %q", out)
	}
	if code, out := cli("status", dir); code != 0 || !strings.Contains(out, "node 1 serving "+bootstrap) {
		t.Errorf("status: exit %d, %q", code, out)
	}
	pids, err := os.ReadFile(filepath.Join(dir, "pids"))
	f := strings.Fields(string(pids))
	if err != nil || len(f) != 2 {
		t.Fatalf("pids: %q, %v", pids, err)
	}
	jvm, _ := strconv.Atoi(f[1])
	if code, _ := cli("stop", dir); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if processAlive(jvm) {
		t.Errorf("the broker's JVM (pid %d) still runs after stop", jvm)
	}
	if code, _ := cli("status", dir); code != 1 {
		t.Errorf("status after stop: exit %d, want 1 (no cluster)", code)
	}
}
