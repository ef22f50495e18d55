// Command server runs Offset Lab: the dashboard and its JSON API, over an
// embedded Kafka-protocol broker (the default) or a real cluster
// (--brokers). It only wires the pieces together; see DESIGN.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "offset lab:", err)
		os.Exit(1)
	}
}

// config is the command line of DESIGN.md.
type config struct {
	addr         string
	brokers      string
	kafkaAddr    string
	dataDir      string
	classroom    bool
	allowedHosts []string
	joinURL      string
	localKafka   string
	kafkaLibs    string
	java         string
}

func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var c config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", env("OFFSETLAB_ADDR", "127.0.0.1:8080"), "where the dashboard listens [OFFSETLAB_ADDR]")
	fs.StringVar(&c.brokers, "brokers", env("OFFSETLAB_BROKERS", ""), "comma-separated real Kafka brokers; empty runs the embedded broker [OFFSETLAB_BROKERS]")
	fs.StringVar(&c.kafkaAddr, "kafka-addr", env("OFFSETLAB_KAFKA_ADDR", "127.0.0.1:9092"), "where the embedded broker accepts Kafka clients [OFFSETLAB_KAFKA_ADDR]")
	fs.StringVar(&c.dataDir, "data-dir", env("OFFSETLAB_DATA_DIR", "./data"), "where the embedded broker persists its log [OFFSETLAB_DATA_DIR]")
	classroom, err := strconv.ParseBool(env("OFFSETLAB_CLASSROOM", "false"))
	if err != nil {
		return config{}, fmt.Errorf("OFFSETLAB_CLASSROOM=%q: use 1 or 0", getenv("OFFSETLAB_CLASSROOM"))
	}
	fs.BoolVar(&c.classroom, "classroom", classroom, "classroom mode: students on the network get a read-only view; the teacher logs in with the one-time link printed at start [OFFSETLAB_CLASSROOM=1]")
	hosts := fs.String("allowed-hosts", env("OFFSETLAB_ALLOWED_HOSTS", ""), "comma-separated extra host names the dashboard answers to (DNS rebinding guard) [OFFSETLAB_ALLOWED_HOSTS]")
	fs.StringVar(&c.joinURL, "join-url", env("OFFSETLAB_JOIN_URL", ""), "the URL students open in classroom mode; empty derives it from --addr [OFFSETLAB_JOIN_URL]")
	fs.StringVar(&c.localKafka, "local-kafka", env("OFFSETLAB_LOCAL_KAFKA", ""), "run real Apache Kafka 4.3.1 brokers as child processes, under --data-dir: single or triple (lesson 4's three brokers, which the dashboard can stop and start); needs Java 17+ ($JAVA_HOME/bin/java or java on PATH), and Maven Central the first time, to download the jars into --kafka-libs [OFFSETLAB_LOCAL_KAFKA]")
	fs.StringVar(&c.kafkaLibs, "kafka-libs", localkafka.DefaultLibs(getenv, "."), "where --local-kafka finds the Kafka jars, and downloads them to when missing: the test command fills the default; with OFFSETLAB_CACHE set, $OFFSETLAB_CACHE/kafka-4.3.1/libs [OFFSETLAB_KAFKA_LIBS]")
	c.java = localkafka.DefaultJava(getenv)
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	switch {
	case c.localKafka != "" && c.localKafka != localkafka.Single && c.localKafka != localkafka.Triple:
		return config{}, fmt.Errorf("--local-kafka %q: use single or triple", c.localKafka)
	case c.localKafka != "" && c.brokers != "":
		return config{}, errors.New("--local-kafka runs its own brokers: leave --brokers empty")
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.allowedHosts = append(c.allowedHosts, h)
		}
	}
	if !c.classroom && !loopbackOnly(c.addr) {
		return config{}, fmt.Errorf("--addr %s is reachable from the network, where anyone could drive the broker: add --classroom (students get a read-only view, the teacher logs in with a one-time link) or listen on 127.0.0.1", c.addr)
	}
	return c, nil
}

// loopbackOnly reports whether addr listens on this machine only.
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// run starts everything, serves until ctx ends, then shuts down in order:
// HTTP first, then the Kafka connection (which persists the embedded log).
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := parseFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))

	var local *localkafka.Cluster
	if cfg.localKafka != "" {
		if local, err = startLocalKafka(ctx, cfg, log); err != nil {
			return err
		}
		defer local.Close()
		cfg.brokers = strings.Join(local.Brokers(), ",")
	}
	var kafka *cluster.Cluster
	if cfg.brokers == "" {
		kafka, err = cluster.StartEmbedded(cluster.EmbeddedConfig{KafkaAddr: cfg.kafkaAddr, DataDir: cfg.dataDir, Logger: log})
		if err != nil {
			return err
		}
		log.Info("embedded Kafka broker listening", "kafkaAddr", strings.Join(kafka.Brokers(), ","), "dataDir", cfg.dataDir)
	} else {
		kafka, err = cluster.ConnectExternal(strings.Split(cfg.brokers, ","))
		if err != nil {
			return err
		}
		log.Info("using external Kafka", "brokers", strings.Join(kafka.Brokers(), ","))
	}
	defer kafka.Close()

	labCfg := lab.Config{Cluster: kafka, Logger: log}
	if local != nil {
		labCfg.Brokers = local // only a running cluster may become the interface value
	}
	l := lab.New(labCfg)
	defer l.Close()
	runner := lessons.New(l)
	defer runner.Close() // before the lab: it ends its processes through it

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	srv := web.New(web.Deps{Lab: l, Lessons: runner}, log, web.WithAccess(web.Access{
		Classroom: cfg.classroom, ListenAddr: ln.Addr().String(), AllowedHosts: cfg.allowedHosts, JoinURL: cfg.joinURL,
	}))
	httpServer := srv.HTTPServer()
	log.Info("Offset Lab dashboard listening", "url", "http://"+ln.Addr().String())
	if cfg.classroom {
		log.Info("classroom mode: students open the join URL and get a read-only view", "joinURL", srv.JoinURL())
		log.Warn("teacher login link: open it in the teacher's browser; it works once, do not project it", "loginURL", srv.TeacherLoginURL())
	}

	errc := make(chan error, 1)
	go func() { errc <- httpServer.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// startLocalKafka starts --local-kafka's cluster under the data directory.
// Its JVMs are this process's children and die with it.
func startLocalKafka(ctx context.Context, cfg config, log *slog.Logger) (*localkafka.Cluster, error) {
	dir := filepath.Join(cfg.dataDir, "local-kafka-"+cfg.localKafka)
	log.Info("starting real Apache Kafka", "shape", cfg.localKafka, "dir", dir, "libs", cfg.kafkaLibs)
	local, err := localkafka.Start(ctx, localkafka.Config{Shape: cfg.localKafka, Dir: dir, Libs: cfg.kafkaLibs, Java: cfg.java, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--local-kafka %s: %w", cfg.localKafka, err)
	}
	return local, nil
}
