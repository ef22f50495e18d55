package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serverBinary builds cmd/server into a temporary directory once per test
// binary run and returns its path.
func serverBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "offsetlab-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBinary = filepath.Join(dir, "offsetlab")
		cmd := exec.Command("go", "build", "-o", builtBinary, "./cmd/server")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/server: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBinary
}

var (
	buildOnce   sync.Once
	builtBinary string
	buildErr    error
)

// serverProcess is the Offset Lab binary running as a child process.
type serverProcess struct {
	t         *testing.T
	cmd       *exec.Cmd
	url       string
	kafkaAddr string
	done      chan struct{} // closed when the process has exited

	mu  sync.Mutex
	log bytes.Buffer // everything it wrote to stderr
}

var (
	urlLogRe   = regexp.MustCompile(`url=(http://\S+)`)
	kafkaLogRe = regexp.MustCompile(`kafkaAddr=(\S+)`)
)

// startServerProcess runs the server binary with args plus free ports
// (--addr 127.0.0.1:0 --kafka-addr 127.0.0.1:0 unless args name them), and
// waits until it has logged the addresses it bound. The process is killed
// when the test ends, if it is still running.
func startServerProcess(t *testing.T, args ...string) *serverProcess {
	t.Helper()
	bin := serverBinary(t)
	all := append([]string{"--addr", "127.0.0.1:0", "--kafka-addr", "127.0.0.1:0"}, args...)
	cmd := exec.Command(bin, all...)
	// The flags decide; variables from the environment must not.
	cmd.Env = append(os.Environ(), "OFFSETLAB_CLASSROOM=", "OFFSETLAB_ADDR=", "OFFSETLAB_BROKERS=", "OFFSETLAB_LOCAL_KAFKA=",
		"OFFSETLAB_ALLOWED_HOSTS=", "OFFSETLAB_JOIN_URL=", "OFFSETLAB_KAFKA_ADDR=", "OFFSETLAB_DATA_DIR=",
		"OFFSETLAB_COMMAND_CONFIG=", "OFFSETLAB_ALLOW_WRITES=", "OFFSETLAB_SCHEMA_REGISTRY=", "OFFSETLAB_SCHEMA_REGISTRY_ADDR=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	p := &serverProcess{t: t, cmd: cmd, done: make(chan struct{})}
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.log.WriteString(line + "\n")
			if m := kafkaLogRe.FindStringSubmatch(line); m != nil && p.kafkaAddr == "" {
				p.kafkaAddr = m[1]
			}
			if m := urlLogRe.FindStringSubmatch(line); m != nil && p.url == "" {
				p.url = m[1]
			}
			ready := p.url != ""
			p.mu.Unlock()
			if ready && !signalled {
				signalled = true
				close(found)
			}
		}
		if !signalled {
			close(found)
		}
	}()
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("server %d log:\n%s", cmd.Process.Pid, p.logText())
		}
	})
	select {
	case <-found:
	case <-time.After(60 * time.Second):
		t.Fatalf("the server did not log its address within 60s; log:\n%s", p.logText())
	}
	p.mu.Lock()
	url := p.url
	p.mu.Unlock()
	if url == "" {
		t.Fatalf("the server exited without logging its address; log:\n%s", p.logText())
	}
	return p
}

func (p *serverProcess) logText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// kill sends SIGKILL, as `kill -9` does, and waits for the process to go.
func (p *serverProcess) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// rssBytes is the process's resident set size, read from /proc (Linux).
func (p *serverProcess) rssBytes() (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) < 1 {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", p.cmd.Process.Pid)
}

// app returns an app (the HTTP helpers of the e2e tests) over the process.
func (p *serverProcess) app(suffix string) *app {
	return &app{t: p.t, url: p.url, kind: embedded, suffix: suffix}
}

// waitLog waits until the server has logged a line matching re and returns
// the first submatch (or the whole match).
func (p *serverProcess) waitLog(re *regexp.Regexp, timeout time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if m := re.FindStringSubmatch(p.logText()); m != nil {
			return m[len(m)-1]
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the server did not log %s within %v; log:\n%s", re, timeout, p.logText())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
