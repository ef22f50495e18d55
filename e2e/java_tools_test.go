package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/localkafka"
)

// javaTools runs the command-line tools of Apache Kafka 4.3.1 (the classes
// behind bin/kafka-*.sh) from the jars the test command downloads.
type javaTools struct {
	java, classpath string
}

// toolTimeout bounds one tool run; a tool that hangs fails the test.
const toolTimeout = 60 * time.Second

// requireJavaTools finds java and the Kafka jars, skipping the test (failing
// it under CI=true) when either is missing.
func requireJavaTools(t *testing.T) javaTools {
	t.Helper()
	java, err := exec.LookPath("java")
	if home := os.Getenv("JAVA_HOME"); home != "" {
		java, err = filepath.Join(home, "bin", "java"), nil
	}
	if err != nil {
		requireOrSkip(t, "Kafka tools tests skipped: java is not installed (Java 17+ runs Apache Kafka %s's tools)", localkafka.KafkaVersion)
	}
	libs := localkafka.DefaultLibs(os.Getenv, repoRoot(t))
	if _, err := os.Stat(filepath.Join(libs, "kafka-tools-"+localkafka.KafkaVersion+".jar")); err != nil {
		requireOrSkip(t, "Kafka tools tests skipped: the Apache Kafka %s jars are not in %s (scripts/kafka/harness.sh fetch downloads them; OFFSETLAB_CACHE or OFFSETLAB_KAFKA_LIBS says where)", localkafka.KafkaVersion, libs)
	}
	return javaTools{java: java, classpath: filepath.Join(libs, "*")}
}

// command builds the java command line of a tool's main class; the JVM
// flags only make it start faster.
func (j javaTools) command(ctx context.Context, class string, args ...string) *exec.Cmd {
	all := append([]string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-cp", j.classpath, class}, args...)
	return exec.CommandContext(ctx, j.java, all...)
}

// toolRun is what one tool run printed.
type toolRun struct {
	stdout, stderr string
}

// run runs a tool to its end with stdin as its input and fails the test
// unless it exits 0 within toolTimeout.
func (j javaTools) run(t *testing.T, stdin string, class string, args ...string) toolRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := j.command(ctx, class, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	short := class[strings.LastIndex(class, ".")+1:]
	t.Logf("%s %s: %v", short, strings.Join(args, " "), time.Since(begin).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", short, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	if strings.Contains(stderr.String(), "Exception") || strings.Contains(stdout.String(), "Exception") {
		t.Fatalf("%s %s exited 0 but printed an exception\nstdout:\n%s\nstderr:\n%s", short, strings.Join(args, " "), stdout.String(), stderr.String())
	}
	return toolRun{stdout: stdout.String(), stderr: stderr.String()}
}

// runningTool is a tool started in the background.
type runningTool struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
}

// start starts a tool in the background; it is killed when the test ends
// if it is still running.
func (j javaTools) start(t *testing.T, class string, args ...string) *runningTool {
	t.Helper()
	r := &runningTool{cmd: j.command(context.Background(), class, args...), done: make(chan struct{})}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", class, err)
	}
	go func() {
		r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() { r.signal(syscall.SIGKILL) })
	return r
}

// signal sends sig and waits for the process to end.
func (r *runningTool) signal(sig syscall.Signal) {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(sig)
	<-r.done
}

// wait waits for the tool to exit on its own and fails the test unless it
// exits 0 within toolTimeout.
func (r *runningTool) wait(t *testing.T) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(toolTimeout):
		r.signal(syscall.SIGKILL)
		t.Fatalf("%s did not finish within %v\nstderr:\n%s", r.cmd.Args, toolTimeout, r.stderr.String())
	}
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("%s exited %d\nstdout:\n%s\nstderr:\n%s", r.cmd.Args, code, r.stdout.String(), r.stderr.String())
	}
}

// table parses a tool's tab- or space-aligned table: one map per row,
// keyed by the header line that starts with first.
func table(t *testing.T, out, first string) []map[string]string {
	t.Helper()
	var header []string
	var rows []map[string]string
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if fields[0] == first {
			header = fields
			continue
		}
		if header == nil || len(fields) != len(header) {
			continue
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = fields[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// processedRe is the console consumer's closing line.
var processedRe = regexp.MustCompile(`Processed a total of (\d+) messages`)

// processed is how many records a console consumer said it received.
func processed(t *testing.T, stderr string) int {
	t.Helper()
	m := processedRe.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("the console consumer did not say how many messages it processed:\n%s", stderr)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// atoi parses a number a tool printed.
func atoi(t *testing.T, what, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s: %q is not a number", what, s)
	}
	return n
}

// offsetsLine is one "topic:partition:offset" line of kafka-get-offsets.
func offsetsLine(topic string, partition int32, offset int64) string {
	return fmt.Sprintf("%s:%d:%d", topic, partition, offset)
}
