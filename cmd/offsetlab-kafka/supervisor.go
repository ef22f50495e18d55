package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// The supervisor: `start` runs this binary again as `_supervise SHAPE DIR`
// in a session of its own, so that the cluster outlives `start`. It starts
// the cluster, reports on the pipe it was given (fd 3) — its log lines,
// then "ready BOOTSTRAP" or "failed WHY" — and then answers one command per
// connection on DIR/control.sock until it is told to stop, gets SIGTERM or
// SIGINT, or the process OFFSETLAB_KAFKA_WATCH_PID names is gone. Its log
// is DIR/offsetlab-kafka.log.

// superviseCommand is the hidden command start runs in the background.
const superviseCommand = "_supervise"

// The replies on the control socket, one per line: "out TEXT" lines for
// the caller's stdout, then "ok", "down" (status: some node does not
// serve) or "error WHY".
var (
	errNotRunning = errors.New("no cluster runs there")
	errSomeDown   = errors.New("some node does not serve")
)

// socketPath is DIR/control.sock; a Unix socket's path has at most ~104
// bytes.
func socketPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	p := filepath.Join(abs, "control.sock")
	if len(p) > 100 {
		return "", fmt.Errorf("%s: the directory's path is too long for a Unix socket (at most ~90 bytes)", dir)
	}
	return p, nil
}

// startSupervisor runs the supervisor for a shape in dir and returns the
// bootstrap addresses once every node serves. Its progress goes to stderr.
// Cancelling ctx before then stops the supervisor and its cluster.
func startSupervisor(ctx context.Context, shape, dir string, stderr io.Writer) (string, error) {
	if _, err := localkafka.SharedSettings(shape); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err != nil {
		return "", err
	}
	sock, err := socketPath(abs)
	if err != nil {
		return "", err
	}
	if conn, err := net.Dial("unix", sock); err == nil {
		conn.Close()
		return "", fmt.Errorf("a cluster already runs in %s; stop it first", abs)
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer r.Close()
	logPath := filepath.Join(abs, "offsetlab-kafka.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		w.Close()
		return "", err
	}
	defer logFile.Close()
	cmd := exec.Command(exe, superviseCommand, shape, abs)
	cmd.Stdout, cmd.Stderr = logFile, logFile // a panic lands in the log
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = detached()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return "", err
	}
	stopOnCancel := context.AfterFunc(ctx, func() { cmd.Process.Signal(syscall.SIGTERM) })
	defer stopOnCancel()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		kind, text, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "log":
			fmt.Fprintln(stderr, text)
		case "ready":
			cmd.Process.Release()
			return text, nil
		case "failed":
			cmd.Wait()
			return "", fmt.Errorf("%s (log: %s)", text, logPath)
		}
	}
	cmd.Wait()
	return "", fmt.Errorf("the supervisor ended before the cluster served (log: %s)", logPath)
}

// statusPipe carries the supervisor's log lines to start until the cluster
// serves; after close it drops them.
type statusPipe struct {
	mu sync.Mutex
	f  *os.File // nil once closed
}

func (p *statusPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f != nil {
		for line := range strings.Lines(string(b)) {
			fmt.Fprintln(p.f, "log", strings.TrimRight(line, "\n"))
		}
	}
	return len(b), nil
}

// finish sends the last line and closes the pipe.
func (p *statusPipe) finish(kind, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f != nil {
		fmt.Fprintln(p.f, kind, strings.ReplaceAll(text, "\n", " "))
		p.f.Close()
		p.f = nil
	}
}

// supervise is the background process: it returns its exit code.
func supervise(shape, dir string, cfg localkafka.Config, getenv func(string) string) int {
	status := &statusPipe{f: os.NewFile(3, "status")}
	logFile, err := os.OpenFile(filepath.Join(dir, "offsetlab-kafka.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		status.finish("failed", err.Error())
		return 1
	}
	defer logFile.Close()
	log := slog.New(slog.NewTextHandler(io.MultiWriter(logFile, status), nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if pid := getenv("OFFSETLAB_KAFKA_WATCH_PID"); pid != "" {
		n, err := strconv.Atoi(pid)
		if err != nil || !processAlive(n) {
			status.finish("failed", fmt.Sprintf("OFFSETLAB_KAFKA_WATCH_PID=%s is not a running process", pid))
			return 1
		}
		ctx = watch(ctx, n, log)
	}
	cfg.Shape, cfg.Dir, cfg.Logger = shape, dir, log
	c, err := localkafka.Start(ctx, cfg)
	if err != nil {
		status.finish("failed", err.Error())
		return 1
	}
	sock, err := socketPath(dir)
	if err == nil {
		os.Remove(sock) // left by a supervisor that was killed
		var ln net.Listener
		if ln, err = net.Listen("unix", sock); err == nil {
			status.finish("ready", strings.Join(c.Brokers(), ","))
			err = serveControl(ctx, ln, c, log)
			os.Remove(sock)
		}
	}
	if err != nil {
		status.finish("failed", err.Error())
	}
	if cerr := c.Close(); cerr != nil {
		log.Error("stop the cluster", "err", cerr)
		return 1
	}
	if err != nil {
		return 1
	}
	return 0
}

// watch returns a context that ends when ctx does or once process pid is
// gone.
func watch(ctx context.Context, pid int, log *slog.Logger) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		if wait.Until(ctx, time.Second, func(context.Context) (bool, error) { return !processAlive(pid), nil }) == nil {
			log.Info("the watched process exited; stopping the cluster", "pid", pid)
		}
	}()
	return ctx
}

// serveControl answers commands on ln, one at a time, until ctx ends or a
// stop command has stopped the cluster.
func serveControl(ctx context.Context, ln net.Listener, c *localkafka.Cluster, log *slog.Logger) error {
	defer context.AfterFunc(ctx, func() { ln.Close() })()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if stopped := answer(ctx, conn, ln, c, log); stopped {
			return nil
		}
	}
}

// answer carries out one command from conn and reports whether it was
// stop: the cluster is then stopped (its JVMs are gone) and ln closed
// before the answer, so that a command sent after it finds no cluster.
func answer(ctx context.Context, conn net.Conn, ln net.Listener, c *localkafka.Cluster, log *slog.Logger) (stopped bool) {
	defer conn.Close()
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return false
	}
	reply := func(kind, text string) { fmt.Fprintln(conn, strings.TrimSpace(kind+" "+text)) }
	f := strings.Fields(line)
	log.Info("command", "command", strings.TrimSpace(line))
	switch {
	case len(f) == 1 && f[0] == "stop":
		err := c.Close()
		ln.Close()
		if err != nil {
			reply("error", err.Error())
			return true
		}
		reply("ok", "")
		return true
	case len(f) == 1 && f[0] == "status":
		nodes, err := c.Nodes(ctx)
		if err != nil {
			reply("error", err.Error())
			return false
		}
		up := 0
		for _, n := range nodes {
			state := "stopped"
			if n.Up {
				state, up = "serving", up+1
			}
			reply("out", fmt.Sprintf("node %d %s %s", n.ID, state, n.Address))
		}
		if up < len(nodes) {
			reply("down", "")
		} else {
			reply("ok", "")
		}
	case len(f) == 2 && (f[0] == "stop-node" || f[0] == "start-node"):
		id, err := strconv.Atoi(f[1])
		if err == nil {
			if f[0] == "stop-node" {
				err = c.StopNode(ctx, id)
			} else {
				err = c.StartNode(ctx, id)
			}
		}
		if err != nil {
			reply("error", err.Error())
		} else {
			reply("ok", "")
		}
	default:
		reply("error", fmt.Sprintf("unknown command %q", strings.TrimSpace(line)))
	}
	return false
}

// control sends one command to the supervisor in dir, copies its output to
// stdout and returns its verdict.
func control(dir, command string, stdout io.Writer) error {
	sock, err := socketPath(dir)
	if err != nil {
		return err
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return fmt.Errorf("%w: %s", errNotRunning, dir)
	}
	defer conn.Close()
	if _, err := fmt.Fprintln(conn, command); err != nil {
		return err
	}
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		kind, text, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "out":
			fmt.Fprintln(stdout, text)
		case "ok":
			return nil
		case "down":
			return errSomeDown
		case "error":
			return errors.New(text)
		}
	}
	return fmt.Errorf("the supervisor in %s hung up without an answer", dir)
}
