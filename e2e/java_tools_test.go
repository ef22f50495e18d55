package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// javaTools runs the command-line tools of Apache Kafka 4.3.1 (the classes
// behind bin/kafka-*.sh) from the jars the test command downloads.
type javaTools struct {
	java, classpath string
	// archive is a class-data-sharing archive of the classes a tool
	// loads (see train), or "": it halves a JVM's start.
	archive string
}

// toolTimeout bounds one tool run; a tool that hangs fails the test.
const toolTimeout = 60 * time.Second

// requireJavaTools finds java and the Kafka jars, skipping the test (failing
// it under CI=true) when either is missing.
func requireJavaTools(t *testing.T) javaTools {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	java, err := exec.LookPath("java")
	if home := os.Getenv("JAVA_HOME"); home != "" {
		java, err = filepath.Join(home, "bin", "java"), nil
	}
	if err != nil {
		testenv.MissingSetup(t, "Kafka tools tests skipped: java is not installed (Java 17+ runs Apache Kafka %s's tools)", localkafka.KafkaVersion)
	}
	libs := localkafka.DefaultLibs(os.Getenv, repoRoot(t))
	if _, err := os.Stat(filepath.Join(libs, "kafka-tools-"+localkafka.KafkaVersion+".jar")); err != nil {
		testenv.MissingSetup(t, "Kafka tools tests skipped: the Apache Kafka %s jars are not in %s (`go run ./cmd/offsetlab-kafka fetch` downloads them; OFFSETLAB_CACHE or OFFSETLAB_KAFKA_LIBS says where)", localkafka.KafkaVersion, libs)
	}
	return javaTools{java: java, classpath: filepath.Join(libs, "*")}
}

// jvmFlags make a tool's JVM start faster; cds logging off keeps a stale
// archive's warning out of the tools' output.
var jvmFlags = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"}

// command builds the java command line of a tool's main class; the JVM
// flags only make it start faster.
func (j javaTools) command(ctx context.Context, class string, args ...string) *exec.Cmd {
	flags := slices.Clone(jvmFlags)
	if j.archive != "" {
		flags = append(flags, "-XX:SharedArchiveFile="+j.archive)
	}
	all := append(append(flags, "-cp", j.classpath, class), args...)
	return exec.CommandContext(ctx, j.java, all...)
}

// train returns j with a class-data-sharing archive of what kafka-topics
// --list against bootstrap loads (the admin client and the network stack
// every tool shares), made once per test binary.
func (j javaTools) train(t *testing.T, bootstrap string) javaTools {
	t.Helper()
	trainOnce.Do(func() {
		dir, err := os.MkdirTemp("", "offsetlab-cds-")
		if err != nil {
			return
		}
		archive := filepath.Join(dir, "kafka-tools.jsa")
		ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, j.java, append(jvmFlags, "-XX:ArchiveClassesAtExit="+archive, "-cp", j.classpath, topicCommand, "--bootstrap-server", bootstrap, "--list")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("no class-data-sharing archive (the tools start slower): %v\n%s", err, out)
			return
		}
		trainedArchive = archive
	})
	j.archive = trainedArchive
	return j
}

var (
	trainOnce      sync.Once
	trainedArchive string
)

// toolRun is what one tool run printed.
type toolRun struct {
	stdout, stderr string
}

// toolCall is one tool run: its input, main class and arguments.
type toolCall struct {
	stdin string
	class string
	args  []string
	// refusal, when set, is what the tool must print as it exits non-zero.
	refusal string
}

// call builds a toolCall with no input.
func call(class string, args ...string) toolCall { return toolCall{class: class, args: args} }

// run runs a tool to its end and fails the test unless it exits 0 within
// toolTimeout without printing an exception.
func (j javaTools) run(t *testing.T, stdin string, class string, args ...string) toolRun {
	t.Helper()
	return j.runAll(t, toolCall{stdin: stdin, class: class, args: args})[0]
}

// runAll runs tools at once (a JVM takes seconds to start on a loaded
// machine) and fails the test unless each exits 0 within toolTimeout
// without printing an exception.
func (j javaTools) runAll(t *testing.T, calls ...toolCall) []toolRun {
	t.Helper()
	out := make([]toolRun, len(calls))
	failures := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], failures[i] = j.runOne(t, c)
		}()
	}
	wg.Wait()
	for _, f := range failures {
		if f != "" {
			t.Fatal(f)
		}
	}
	return out
}

// runOne runs one tool and says why it failed, or "".
func (j javaTools) runOne(t *testing.T, c toolCall) (toolRun, string) {
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := j.command(ctx, c.class, c.args...)
	cmd.Stdin = strings.NewReader(c.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	short := c.class[strings.LastIndex(c.class, ".")+1:] + " " + strings.Join(c.args, " ")
	t.Logf("%s: %v", short, time.Since(begin).Round(time.Millisecond))
	run := toolRun{stdout: stdout.String(), stderr: stderr.String()}
	switch {
	case c.refusal != "":
		if err == nil || !strings.Contains(run.stdout+run.stderr, c.refusal) {
			return run, fmt.Sprintf("%s: %v, want it refused with %q\nstdout:\n%s\nstderr:\n%s", short, err, c.refusal, run.stdout, run.stderr)
		}
	case err != nil:
		return run, fmt.Sprintf("%s: %v\nstdout:\n%s\nstderr:\n%s", short, err, run.stdout, run.stderr)
	case strings.Contains(run.stderr, "Exception") || strings.Contains(run.stdout, "Exception"):
		return run, fmt.Sprintf("%s exited 0 but printed an exception\nstdout:\n%s\nstderr:\n%s", short, run.stdout, run.stderr)
	}
	return run, ""
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

// offsetRe is an offset as the console consumer prints it with
// print.offset=true.
var offsetRe = regexp.MustCompile(`(?m)^Offset:(\d+)\b`)

// printedOffsets are the offsets a console consumer printed.
func printedOffsets(stdout string) []int64 {
	var out []int64
	for _, m := range offsetRe.FindAllStringSubmatch(stdout, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		out = append(out, n)
	}
	return out
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
