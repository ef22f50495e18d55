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
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/offsetlab/offsetlab/internal/app"
	"github.com/offsetlab/offsetlab/internal/cluster"
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
	kafkaLimits  cluster.PortLimits
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
	limits := kafkaPortFlags(fs, env)
	fs.StringVar(&c.localKafka, "local-kafka", env("OFFSETLAB_LOCAL_KAFKA", ""), "run real Apache Kafka brokers with scripts/kafka/harness.sh: single or triple (lesson 4's three brokers, which the dashboard can stop and start); needs Java 17+, and Maven for the first download [OFFSETLAB_LOCAL_KAFKA]")
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
	if c.kafkaLimits, err = limits(); err != nil {
		return config{}, err
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

// kafkaPortFlags registers the embedded broker's Kafka port limits (see
// cluster.PortLimits) and returns the function that reads them after Parse.
func kafkaPortFlags(fs *flag.FlagSet, env func(key, def string) string) func() (cluster.PortLimits, error) {
	d := cluster.DefaultPortLimits()
	maxRequest := fs.String("kafka-max-request-bytes", env("OFFSETLAB_KAFKA_MAX_REQUEST_BYTES", strconv.Itoa(int(d.MaxRequestBytes))), "embedded broker: the largest Kafka request accepted, Kafka's socket.request.max.bytes [OFFSETLAB_KAFKA_MAX_REQUEST_BYTES]")
	requestTimeout := fs.String("kafka-request-timeout", env("OFFSETLAB_KAFKA_REQUEST_TIMEOUT", d.RequestTimeout.String()), "embedded broker: how long a Kafka request may take to arrive, and a response to be read [OFFSETLAB_KAFKA_REQUEST_TIMEOUT]")
	idleTimeout := fs.String("kafka-idle-timeout", env("OFFSETLAB_KAFKA_IDLE_TIMEOUT", d.IdleTimeout.String()), "embedded broker: close Kafka connections idle this long, Kafka's connections.max.idle.ms [OFFSETLAB_KAFKA_IDLE_TIMEOUT]")
	maxConns := fs.String("kafka-max-connections", env("OFFSETLAB_KAFKA_MAX_CONNECTIONS", strconv.Itoa(d.MaxConnections)), "embedded broker: open Kafka connections at most [OFFSETLAB_KAFKA_MAX_CONNECTIONS]")
	maxPerIP := fs.String("kafka-max-connections-per-ip", env("OFFSETLAB_KAFKA_MAX_CONNECTIONS_PER_IP", strconv.Itoa(d.MaxConnectionsPerIP)), "embedded broker: open Kafka connections from one other machine at most [OFFSETLAB_KAFKA_MAX_CONNECTIONS_PER_IP]")
	return func() (cluster.PortLimits, error) {
		var l cluster.PortLimits
		var errs []error
		positive := func(name, v string) int64 {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("--%s %q: want a positive whole number", name, v))
			}
			return n
		}
		duration := func(name, v string) time.Duration {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				errs = append(errs, fmt.Errorf("--%s %q: want a positive duration such as 30s or 10m", name, v))
			}
			return d
		}
		if n := positive("kafka-max-request-bytes", *maxRequest); n > math.MaxInt32 {
			errs = append(errs, fmt.Errorf("--kafka-max-request-bytes %d: Kafka's size prefix holds at most %d", n, math.MaxInt32))
		} else {
			l.MaxRequestBytes = int32(n)
		}
		l.RequestTimeout = duration("kafka-request-timeout", *requestTimeout)
		l.IdleTimeout = duration("kafka-idle-timeout", *idleTimeout)
		l.MaxConnections = int(positive("kafka-max-connections", *maxConns))
		l.MaxConnectionsPerIP = int(positive("kafka-max-connections-per-ip", *maxPerIP))
		return l, errors.Join(errs...)
	}
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
		if local, err = startLocalKafka(ctx, cfg, log, stderr); err != nil {
			return err
		}
		defer local.Close()
		cfg.brokers = strings.Join(local.Brokers(), ",")
	}
	var kafka *cluster.Cluster
	if cfg.brokers == "" {
		kafka, err = cluster.StartEmbedded(cluster.EmbeddedConfig{KafkaAddr: cfg.kafkaAddr, DataDir: cfg.dataDir, Logger: log, Limits: cfg.kafkaLimits})
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

	services := app.Assemble(kafka, local, log)
	defer services.Close()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	srv := web.New(services.Deps, log, web.WithAccess(web.Access{
		Classroom: cfg.classroom, ListenAddr: ln.Addr().String(), AllowedHosts: cfg.allowedHosts, JoinURL: cfg.joinURL,
	}))
	httpServer := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
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

// startLocalKafka starts --local-kafka's cluster under the data directory,
// watched by this process so that no broker outlives the server.
func startLocalKafka(ctx context.Context, cfg config, log *slog.Logger, stderr io.Writer) (*localkafka.Cluster, error) {
	dir := filepath.Join(cfg.dataDir, "local-kafka-"+cfg.localKafka)
	log.Info("starting real Apache Kafka with scripts/kafka/harness.sh (the first start downloads the jars with Maven)", "shape", cfg.localKafka, "dir", dir)
	local, err := localkafka.Start(ctx, localkafka.Config{Shape: cfg.localKafka, Dir: dir, WatchPID: os.Getpid(), Stderr: stderr})
	if err != nil {
		return nil, fmt.Errorf("--local-kafka %s: %w", cfg.localKafka, err)
	}
	log.Info("local Apache Kafka serving", "brokers", strings.Join(local.Brokers(), ","))
	return local, nil
}
