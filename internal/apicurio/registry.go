package apicurio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Config says how to start Apicurio Registry.
type Config struct {
	// Dir is the unpacked application (Fetch, DefaultDir).
	Dir string
	// Java is the java binary: JAVA_HOME's, or java on PATH when empty.
	Java string
	// Get asks the registry whether it serves yet.
	Get Getter
}

// Registry is a running Apicurio Registry. Close stops it.
type Registry struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once the JVM is gone
	work   string        // its temporary directory and log
	url    string
}

// ReadyTimeout bounds how long Start waits for the registry to answer:
// about 30 to 60 seconds on two busy cores.
const ReadyTimeout = 3 * time.Minute

// Start runs Apicurio Registry on a free port of 127.0.0.1, in-memory, and
// returns once its Confluent-compatible API answers (or ReadyTimeout
// passes, or ctx ends: then it is stopped and the error quotes the end of
// its log). Its temporary files and log live in a directory of their own,
// removed by Close.
func Start(ctx context.Context, cfg Config) (*Registry, error) {
	if !Fetched(cfg.Dir) {
		return nil, fmt.Errorf("apicurio: %s does not hold Apicurio Registry %s (go run ./cmd/offsetlab-apicurio fetch)", cfg.Dir, Version)
	}
	java := cfg.Java
	if java == "" {
		java = "java"
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("apicurio: %w", err)
	}
	work, err := os.MkdirTemp("", "offsetlab-apicurio.")
	if err != nil {
		return nil, fmt.Errorf("apicurio: %w", err)
	}
	logFile, err := os.Create(filepath.Join(work, "registry.log"))
	if err != nil {
		os.RemoveAll(work)
		return nil, fmt.Errorf("apicurio: %w", err)
	}
	defer logFile.Close() // the JVM holds its own descriptor
	cmd := exec.Command(java,
		// The registry's start is class loading and JIT: C1 alone and the
		// serial collector start it in about half the time on two cores.
		"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx512m",
		"-Djava.io.tmpdir="+work,
		"-Dquarkus.http.host=127.0.0.1",
		"-Dquarkus.http.port="+strconv.Itoa(port),
		"-jar", filepath.Join(cfg.Dir, runnerJar))
	cmd.Dir = work
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(work)
		return nil, fmt.Errorf("apicurio: start %s: %w", java, err)
	}
	r := &Registry{cmd: cmd, exited: make(chan struct{}), work: work,
		url: "http://127.0.0.1:" + strconv.Itoa(port) + "/apis/ccompat/v7"}
	go func() { _ = cmd.Wait(); close(r.exited) }()
	if err := r.waitReady(ctx, cfg.Get); err != nil {
		tail := r.logTail()
		r.Close()
		return nil, fmt.Errorf("apicurio: %w; the end of its log:\n%s", err, tail)
	}
	return r, nil
}

// URL is the base of the registry's Confluent-compatible API, what
// --schema-registry and franz-go's sr.URLs take.
func (r *Registry) URL() string { return r.url }

// waitReady polls GET /subjects until it answers 200.
func (r *Registry) waitReady(ctx context.Context, get Getter) error {
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		body, err := get(ctx, r.url+"/subjects")
		if err == nil {
			body.Close()
			return nil
		}
		select {
		case <-r.exited:
			return fmt.Errorf("java exited before the registry served (%v)", r.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("not serving %s after %s: %w", r.url, ReadyTimeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// logTail is the last lines of the registry's log.
func (r *Registry) logTail() string {
	b, _ := os.ReadFile(filepath.Join(r.work, "registry.log"))
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// Close stops the registry (SIGTERM, then SIGKILL after 15 seconds),
// waits until its JVM is gone and removes its temporary directory.
func (r *Registry) Close() error {
	err := r.cmd.Process.Signal(syscall.SIGTERM)
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	select {
	case <-r.exited:
	case <-time.After(15 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.exited
	}
	if rmErr := os.RemoveAll(r.work); err == nil {
		err = rmErr
	}
	return err
}

// freePort is a port of 127.0.0.1 nobody listened on a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
