// Command offsetlab-kafka runs real Apache Kafka 4.3.1 (KRaft) on this
// machine without Docker, for the test command, the end-to-end suites and
// anyone who wants a broker to point the dashboard at:
//
//	go run ./cmd/offsetlab-kafka fetch                   # the jars, into the cache (once)
//	go run ./cmd/offsetlab-kafka start single DIR        # last line: 127.0.0.1:PORT (also DIR/bootstrap)
//	go run ./cmd/offsetlab-kafka start triple DIR        # three brokers: P1,P2,P3
//	go run ./cmd/offsetlab-kafka start secure DIR        # SASL_SSL + ACLs: DIR/admin.properties, DIR/reader.properties, …
//	go run ./cmd/offsetlab-kafka stop-node DIR N         # SIGTERM node N, wait until its JVM is gone
//	go run ./cmd/offsetlab-kafka start-node DIR N        # start it again, wait until it serves
//	go run ./cmd/offsetlab-kafka status DIR              # one line per node; exit 3 when some are down
//	go run ./cmd/offsetlab-kafka stop DIR                # stop every node
//	go run ./cmd/offsetlab-kafka settings SHAPE          # the broker settings a compose file must match
//
// The brokers are those of internal/localkafka, the package the server's
// --local-kafka uses. Because a cluster must outlive `start`, start runs a
// small supervisor in the background (this binary again, in a session of
// its own) that owns the JVMs and answers stop, stop-node, start-node and
// status on DIR/control.sock. Every JVM gets a parent-death signal, so no
// broker outlives its supervisor; with OFFSETLAB_KAFKA_WATCH_PID=PID the
// supervisor also stops the cluster once that process is gone (a test
// binary or a test script), so nothing outlives the test run.
//
// Environment: OFFSETLAB_KAFKA_LIBS, else $OFFSETLAB_CACHE/kafka-4.3.1/libs,
// else ./.cache/kafka-4.3.1/libs (the jars, downloaded from Maven Central
// when missing); JAVA_HOME (else java on PATH); OFFSETLAB_KAFKA_WATCH_PID.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/offsetlab/offsetlab/cmd/internal/download"
	"github.com/offsetlab/offsetlab/internal/localkafka"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: offsetlab-kafka fetch
       offsetlab-kafka start single|triple|secure DIR
       offsetlab-kafka stop DIR
       offsetlab-kafka stop-node DIR N
       offsetlab-kafka start-node DIR N
       offsetlab-kafka status DIR
       offsetlab-kafka settings single|triple|secure`

// exitDown is status's exit code when some node does not serve.
const exitDown = 3

// run carries out one command and returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "offsetlab-kafka:", err)
		return 1
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	libs := localkafka.DefaultLibs(getenv, cwd)
	log := slog.New(slog.NewTextHandler(stderr, nil))
	switch cmd, rest := args[0], args[1:]; {
	case cmd == "fetch" && len(rest) == 0:
		if err := localkafka.FetchJars(ctx, libs, download.Get, log); err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, libs)
		return 0
	case cmd == "start" && len(rest) == 2:
		bootstrap, err := startSupervisor(ctx, rest[0], rest[1], stderr)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, bootstrap)
		return 0
	case cmd == superviseCommand && len(rest) == 2:
		return supervise(rest[0], rest[1], localkafka.Config{Libs: libs, Java: localkafka.DefaultJava(getenv), Get: download.Get}, getenv)
	case cmd == "stop" && len(rest) == 1:
		err := control(rest[0], "stop", stdout)
		if errors.Is(err, errNotRunning) {
			fmt.Fprintln(stderr, "offsetlab-kafka: no cluster runs in", rest[0])
			return 0
		}
		if err != nil {
			return fail(err)
		}
		return 0
	case (cmd == "stop-node" || cmd == "start-node") && len(rest) == 2:
		if _, err := strconv.Atoi(rest[1]); err != nil {
			return fail(fmt.Errorf("node %q: want a number", rest[1]))
		}
		if err := control(rest[0], cmd+" "+rest[1], stdout); err != nil {
			return fail(err)
		}
		return 0
	case cmd == "status" && len(rest) == 1:
		err := control(rest[0], "status", stdout)
		if errors.Is(err, errSomeDown) {
			return exitDown
		}
		if err != nil {
			return fail(err)
		}
		return 0
	case cmd == "settings" && len(rest) == 1:
		s, err := localkafka.SharedSettings(rest[0])
		if err != nil {
			return fail(err)
		}
		fmt.Fprint(stdout, s)
		return 0
	}
	fmt.Fprintln(stderr, usage)
	return 2
}
