// Command server runs Offset Lab: the dashboard and its JSON API, over an
// embedded Kafka-protocol broker (the default) or a real cluster
// (--brokers). It only wires the pieces together; see docs/design.md.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/offsetlab/offsetlab/cmd/internal/download"
	"github.com/offsetlab/offsetlab/cmd/internal/schemareg"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/kafkaconfig"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/wait"
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

// config is the command line of docs/design.md.
type config struct {
	addr         string
	brokers      string
	kafkaAddr    string
	dataDir      string
	classroom    bool
	allowedHosts []string
	joinURL      string
	localKafka   string
	limits       web.Limits
	// watched bounds the partitions watched live: per student client,
	// and the feeds reserved for the teacher (live.Config).
	watchedPerClient, teacherWatched int
	// memoryLimit is the Go runtime's soft memory limit in bytes (0:
	// leave it to GOMEMLIMIT).
	memoryLimit int64
	// commandConfig is the --command-config file, loaded; nil without.
	commandConfig *kafkaconfig.Config
	// allowWrites lets the dashboard change a cluster it did not start.
	allowWrites bool
	kafkaLimits cluster.PortLimits
	budget      cluster.DataBudget
	topicLimits cluster.TopicLimits
	kafkaLibs   string
	java        string
	// schemaRegistry is --schema-registry (a registry's URL, "" for the
	// command config's schema.registry.url, else the embedded one beside
	// the embedded broker); schemaRegistryAddr where the embedded one
	// listens.
	schemaRegistry, schemaRegistryAddr string
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
	limits := kafkaPortFlags(fs, env)
	budget := budgetFlags(fs, env)
	commandConfig := fs.String("command-config", env("OFFSETLAB_COMMAND_CONFIG", ""), "Kafka client properties (as kafka-*.sh --command-config takes them, Java or librdkafka spellings): TLS, SASL, and bootstrap.servers standing in for --brokers [OFFSETLAB_COMMAND_CONFIG]")
	fs.StringVar(&c.schemaRegistry, "schema-registry", env("OFFSETLAB_SCHEMA_REGISTRY", ""), "a Confluent-compatible Schema Registry's URL: values written through it (magic byte 0, schema id) are shown decoded; its basic auth comes from --command-config's basic.auth.user.info (or schema.registry.basic.auth.user.info), which may name the registry as schema.registry.url instead [OFFSETLAB_SCHEMA_REGISTRY]")
	fs.StringVar(&c.schemaRegistryAddr, "schema-registry-addr", env("OFFSETLAB_SCHEMA_REGISTRY_ADDR", "127.0.0.1:8081"), "embedded broker: where its Schema Registry (Confluent's REST API, schemas kept under --data-dir) listens; a taken port falls back to a free one, named in the masthead [OFFSETLAB_SCHEMA_REGISTRY_ADDR]")
	allowWrites, err := strconv.ParseBool(env("OFFSETLAB_ALLOW_WRITES", "false"))
	if err != nil {
		return config{}, fmt.Errorf("OFFSETLAB_ALLOW_WRITES=%q: use 1 or 0", getenv("OFFSETLAB_ALLOW_WRITES"))
	}
	fs.BoolVar(&c.allowWrites, "allow-writes", allowWrites, "with --brokers or --command-config: let the dashboard produce, run the processor, drive transactions and lessons, create topics on that cluster (read-only without it) [OFFSETLAB_ALLOW_WRITES=1]")
	if err := limitFlags(fs, env, &c); err != nil {
		return config{}, err
	}
	memoryMiB := fs.Int64("memory-limit", 512, "the server's soft memory limit in MiB: past it the Go runtime collects garbage harder (a burst of reads cannot swell the process); GOMEMLIMIT, if set, decides instead")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	switch {
	case c.localKafka != "" && c.localKafka != localkafka.Single && c.localKafka != localkafka.Triple:
		return config{}, fmt.Errorf("--local-kafka %q: use single or triple", c.localKafka)
	case c.localKafka != "" && c.brokers != "":
		return config{}, errors.New("--local-kafka runs its own brokers: leave --brokers empty")
	}
	if *commandConfig != "" {
		if c.commandConfig, err = kafkaconfig.Load(*commandConfig); err != nil {
			return config{}, fmt.Errorf("--command-config: %w", err)
		}
		if c.brokers == "" {
			c.brokers = strings.Join(c.commandConfig.BootstrapServers(), ",")
		}
		if c.brokers == "" {
			return config{}, fmt.Errorf("--command-config %s has no bootstrap.servers: give them there or with --brokers", *commandConfig)
		}
		if c.localKafka != "" {
			return config{}, errors.New("--local-kafka runs its own plaintext brokers: leave --command-config out")
		}
	}
	if getenv("GOMEMLIMIT") == "" {
		c.memoryLimit = max(*memoryMiB, 64) << 20
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if c.kafkaLimits, err = limits(); err != nil {
		return config{}, err
	}
	if c.budget, err = budget(); err != nil {
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

// limitFlags declares the flags of the server's limits (web.Limits), each
// defaulting to its environment variable, else web's default.
func limitFlags(fs *flag.FlagSet, env func(key, def string) string, c *config) error {
	l := &c.limits
	var bad []string
	num := func(p *int, name, key string, def int, usage string) {
		d, err := strconv.Atoi(env(key, strconv.Itoa(def)))
		if err != nil || d < 1 {
			bad, d = append(bad, key+"="+env(key, "")+" (a whole number, 1 or more)"), def
		}
		fs.IntVar(p, name, d, usage+" ["+key+"]")
	}
	dur := func(p *time.Duration, name, key string, def time.Duration, usage string) {
		d, err := time.ParseDuration(env(key, def.String()))
		if err != nil || d <= 0 {
			bad, d = append(bad, key+"="+env(key, "")+" (a duration such as 30s)"), def
		}
		fs.DurationVar(p, name, d, usage+" ["+key+"]")
	}
	num(&l.Viewers, "max-viewers", "OFFSETLAB_MAX_VIEWERS", web.DefaultViewers, "live views (websockets) open at once")
	num(&l.ViewersPerClient, "max-viewers-per-client", "OFFSETLAB_MAX_VIEWERS_PER_CLIENT", web.DefaultViewersPerClient, "live views one client address may open")
	num(&l.TeacherViewers, "teacher-viewers", "OFFSETLAB_TEACHER_VIEWERS", web.DefaultTeacherViewers, "classroom mode: live views of --max-viewers kept for the teacher, which students cannot take")
	num(&c.watchedPerClient, "max-watched-per-client", "OFFSETLAB_MAX_WATCHED_PER_CLIENT", live.DefaultMaxFeedsPerClient, "partitions one student client may watch live at once")
	num(&c.teacherWatched, "teacher-watched", "OFFSETLAB_TEACHER_WATCHED", live.DefaultTeacherFeeds, "partitions watched live (of the server's 64) kept for the teacher, which students cannot take")
	num(&c.topicLimits.MaxTopics, "embedded-max-topics", "OFFSETLAB_EMBEDDED_MAX_TOPICS", cluster.DefaultMaxTopics, "embedded broker: topics it holds at most; past it CreateTopics and auto-creation are refused POLICY_VIOLATION")
	num(&c.topicLimits.MaxPartitions, "embedded-max-partitions", "OFFSETLAB_EMBEDDED_MAX_PARTITIONS", cluster.DefaultMaxPartitions, "embedded broker: partitions, over all topics, it holds at most (refused as --embedded-max-topics is)")
	num(&c.topicLimits.StudentMaxTopics, "embedded-student-max-topics", "OFFSETLAB_EMBEDDED_STUDENT_MAX_TOPICS", cluster.DefaultStudentMaxTopics, "embedded broker: topics one classroom student may hold in their namespace (refused POLICY_VIOLATION past it; students together hold at most three quarters of --embedded-max-topics)")
	num(&c.topicLimits.StudentMaxPartitions, "embedded-student-max-partitions", "OFFSETLAB_EMBEDDED_STUDENT_MAX_PARTITIONS", cluster.DefaultStudentMaxPartitions, "embedded broker: partitions one classroom student may hold (as --embedded-student-max-topics)")
	num(&l.Reads, "max-reads", "OFFSETLAB_MAX_READS", web.DefaultReads, "log and records reads running at once (more wait up to 5 s, then 503)")
	num(&l.ReadsPerClient, "max-reads-per-client", "OFFSETLAB_MAX_READS_PER_CLIENT", web.DefaultReadsPerClient, "log and records reads one client address may run at once (more get 429)")
	num(&l.Scans, "max-scans", "OFFSETLAB_MAX_SCANS", web.DefaultScans(), "searches, maps, jumps, seeks and download reads running at once, in a line apart from log reads (default: half the cores)")
	num(&l.ScansPerClient, "max-scans-per-client", "OFFSETLAB_MAX_SCANS_PER_CLIENT", web.DefaultScansPerClient, "of those, how many one client address may run at once (more get 429)")
	dur(&l.IdleTimeout, "http-idle-timeout", "OFFSETLAB_HTTP_IDLE_TIMEOUT", web.DefaultIdleTimeout, "close keep-alive connections idle this long")
	num(&l.JoinsPerClient, "max-joins-per-client", "OFFSETLAB_MAX_JOINS_PER_CLIENT", web.DefaultJoinsPerClient, "classroom: students one client address may join in a burst (then one more every --join-every; more get 429)")
	dur(&l.JoinEvery, "join-every", "OFFSETLAB_JOIN_EVERY", web.DefaultJoinEvery, "classroom: past the burst, one more join per client address this often")
	num(&l.LongPollsPerClient, "max-long-polls-per-client", "OFFSETLAB_MAX_LONG_POLLS_PER_CLIENT", web.DefaultLongPollsPerClient, "classroom: long polls of the results one client address may hold open (more get 429)")
	dur(&l.ResponseTimeout, "http-response-timeout", "OFFSETLAB_HTTP_RESPONSE_TIMEOUT", web.DefaultResponseTimeout, "cut a log or records answer a client has not read within this")
	if len(bad) > 0 {
		return fmt.Errorf("invalid settings in the environment: %s", strings.Join(bad, "; "))
	}
	return nil
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
	authDelay := fs.String("kafka-failed-authentication-delay", env("OFFSETLAB_KAFKA_FAILED_AUTHENTICATION_DELAY", d.FailedAuthenticationDelay.String()), "embedded broker: hold the answer to a failed SASL login this long, Kafka's connection.failed.authentication.delay.ms; an address that keeps failing waits longer [OFFSETLAB_KAFKA_FAILED_AUTHENTICATION_DELAY]")
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
		l.FailedAuthenticationDelay = duration("kafka-failed-authentication-delay", *authDelay)
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
	if cfg.memoryLimit > 0 {
		debug.SetMemoryLimit(cfg.memoryLimit)
	}

	// Bind the ports before loading anything: a port in use fails now,
	// with a sentence, not after the data directory is read.
	ln, err := bind(ctx, "dashboard", cfg.addr, "--addr")
	if err != nil {
		return err
	}
	defer ln.Close()
	var kafkaLn net.Listener
	if cfg.brokers == "" && cfg.localKafka == "" {
		if kafkaLn, err = bind(ctx, "embedded broker's Kafka port", cfg.kafkaAddr, "--kafka-addr"); err != nil {
			return err
		}
	}

	joinURL := ""
	if cfg.classroom {
		joinURL = web.JoinURLFor(ln.Addr().String(), cfg.joinURL)
	}

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
		embedded := cluster.EmbeddedConfig{Listener: kafkaLn, DataDir: cfg.dataDir, Logger: log, Limits: cfg.kafkaLimits, Topics: cfg.topicLimits, Budget: cfg.budget}
		if cfg.classroom {
			// Students' clients reach the Kafka port from their laptops:
			// it asks each for their SASL user and holds them to ACLs.
			if embedded.Students, err = cluster.ClassroomAdmin(cfg.dataDir); err != nil {
				return err
			}
			embedded.AdvertisedHost = advertisedHost(cfg.kafkaAddr, joinURL)
		}
		kafka, err = cluster.StartEmbedded(embedded)
		if err != nil {
			return err
		}
		log.Info("embedded Kafka broker listening", "kafkaAddr", strings.Join(kafka.Brokers(), ","), "dataDir", cfg.dataDir)
	} else {
		ext := cluster.ExternalConfig{Brokers: strings.Split(cfg.brokers, ",")}
		if cc := cfg.commandConfig; cc != nil {
			d := cc.Describe()
			ext.Auth, ext.Dial = cc.AuthOpts(), cc.Dialer()
			ext.Security = cluster.Security{Protocol: d.SecurityProtocol, Mechanism: d.SASLMechanism, User: d.User, ServerCAs: d.ServerCAs, ClientCert: d.ClientCertificate, CommandConfig: d.File}
			if abs, err := filepath.Abs(d.File); err == nil {
				ext.Security.CommandConfig = abs
			}
		}
		kafka, err = cluster.ConnectExternal(ext)
		if err != nil {
			return err
		}
		log.Info("using external Kafka", "brokers", strings.Join(kafka.Brokers(), ","), "security", kafka.Security().Protocol, "readOnly", !cfg.allowWrites && local == nil)
	}
	defer kafka.Close()

	// A cluster the dashboard did not start is read-only unless
	// --allow-writes says otherwise: it may be someone's staging cluster.
	readOnly := cfg.brokers != "" && local == nil && !cfg.allowWrites
	labCfg := lab.Config{Cluster: kafka, Logger: log, ReadOnly: readOnly}
	registry, closeRegistry, err := startSchemaRegistry(cfg, kafka.Mode() == cluster.Embedded, log)
	if err != nil {
		return err
	}
	defer closeRegistry()
	if registry != nil {
		labCfg.Values, labCfg.SchemaRegistry = registry, registry.URL()
	}
	labCfg.Live.HistoryDir = historyDir(cfg.dataDir, cfg.brokers)
	labCfg.Live.MaxFeedsPerClient, labCfg.Live.TeacherFeeds = cfg.watchedPerClient, cfg.teacherWatched
	if local != nil {
		labCfg.Brokers = local // only a running cluster may become the interface value
	}
	l := lab.New(labCfg)
	defer l.Close()
	runner, err := lessons.Open(l, lessonTopicsRecord(cfg.dataDir, cfg.brokers))
	if err != nil {
		return err
	}
	if err := runner.KeepRunIn(filepath.Join(filepath.Dir(lessonTopicsRecord(cfg.dataDir, cfg.brokers)), "run.json")); err != nil {
		return err
	}
	defer runner.Close() // before the lab: it ends its processes through it

	classFile := classRecord(cfg.brokers)
	if _, err := cluster.PrivateDataDir(cfg.dataDir, classFile); err != nil {
		return err
	}
	class := exercises.NewClass(classConfig(kafka, cfg, readOnly))
	grader, err := exercises.OpenGrader(l, class, exercises.GraderConfig{StateFile: filepath.Join(cfg.dataDir, classFile)})
	if err != nil {
		return err
	}
	if n := len(class.Students()); n > 0 {
		log.Info("class restored", "students", n, "exercise", grader.Current(), "file", filepath.Join(cfg.dataDir, classFile))
	}
	gradeCtx, stopGrading := context.WithCancel(ctx)
	graded := make(chan struct{})
	go func() { grader.Run(gradeCtx); close(graded) }()
	defer func() { stopGrading(); <-graded; grader.Close() }()

	srv := web.New(web.Deps{Lab: l, Lessons: runner, Exercises: grader}, log, web.WithAccess(web.Access{
		Classroom: cfg.classroom, ListenAddr: ln.Addr().String(), AllowedHosts: cfg.allowedHosts, JoinURL: joinURL,
	}), web.WithLimits(cfg.limits))
	httpServer := srv.HTTPServer()
	log.Info("Offset Lab dashboard listening", "url", "http://"+ln.Addr().String())
	if cfg.classroom {
		log.Info("classroom mode: students open the join URL and get a read-only view", "joinURL", srv.JoinURL())
		log.Warn("teacher login link: open it in the teacher's browser; it works once, do not project it", "loginURL", srv.TeacherLoginURL())
		if fix, loopback := srv.JoinLoopback(); loopback {
			log.Warn("classroom mode on a loopback address: students cannot open the join URL; start again with the flag named", "joinURL", srv.JoinURL(), "flag", fix)
		}
	}

	errc := make(chan error, 1)
	go func() { errc <- httpServer.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	// Within about two seconds: requests in flight finish meanwhile, and
	// the live views (websockets, which Shutdown does not wait for) close
	// with 1001 so that their pages say the server went away; a viewer
	// that does not answer its close is not waited for past the bound.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	viewersDone := make(chan int, 1)
	go func() { viewersDone <- srv.CloseViewers(shutdownCtx) }()
	err = httpServer.Shutdown(shutdownCtx)
	if left := <-viewersDone; left > 0 {
		log.Info("live views closed without their answer", "views", left)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// shutdownWait bounds a graceful stop (SIGTERM, Ctrl-C): requests in
// flight and the live views' close handshakes.
const shutdownWait = 2 * time.Second

// advertisedHost is the host the embedded broker names to clients: the
// join URL's when the Kafka port listens on every interface (students
// reach this machine by that name), else none (the bound address).
func advertisedHost(kafkaAddr, joinURL string) string {
	host, _, err := net.SplitHostPort(kafkaAddr)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return ""
	}
	u, err := url.Parse(joinURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// classConfig says how a class's students reach kafka: on the embedded
// broker of a classroom and on a writable SASL cluster the server makes
// their users and ACLs; elsewhere they get their names only.
func classConfig(kafka *cluster.Cluster, cfg config, readOnly bool) exercises.ClassConfig {
	sec := kafka.Security()
	c := exercises.ClassConfig{Bootstrap: kafka.Brokers(), SecurityProtocol: sec.Protocol, Mechanism: sec.Mechanism, SharedTopics: []string{"orders"}}
	if strings.HasPrefix(c.SecurityProtocol, "SASL") && !readOnly && (cfg.classroom || cfg.brokers != "") {
		c.Users = kafka
	}
	return c
}

// bind listens on addr for what, retrying briefly while a server killed
// a moment ago still holds the port (wait.Listen), and says which flag
// moves it when another program holds it.
func bind(ctx context.Context, what, addr, flag string) (net.Listener, error) {
	ln, err := wait.Listen(ctx, addr)
	switch {
	case errors.Is(err, wait.ErrAddressInUse):
		return nil, fmt.Errorf("cannot listen on %s for the %s: %w; stop it, or choose another address with %s", addr, what, err, flag)
	case err != nil:
		return nil, fmt.Errorf("cannot listen on %s for the %s: %w", addr, what, err)
	}
	return ln, nil
}

// startLocalKafka starts --local-kafka's cluster under the data directory.
// Its JVMs are this process's children and die with it.
func startLocalKafka(ctx context.Context, cfg config, log *slog.Logger) (*localkafka.Cluster, error) {
	dir := filepath.Join(cfg.dataDir, "local-kafka-"+cfg.localKafka)
	log.Info("starting real Apache Kafka", "shape", cfg.localKafka, "dir", dir, "libs", cfg.kafkaLibs)
	local, err := localkafka.Start(ctx, localkafka.Config{Shape: cfg.localKafka, Dir: dir, Libs: cfg.kafkaLibs, Java: cfg.java, Get: download.Get, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--local-kafka %s: %w", cfg.localKafka, err)
	}
	return local, nil
}

// classRecord is where the class of this cluster is kept, relative to
// the data directory: one file per cluster, as for the history, so that
// students made on one cluster never log in to another.
func classRecord(brokers string) string {
	return filepath.Join("classroom", clusterDirName(brokers), "class.json")
}

// historyDir is where the partitions' histories of this cluster are kept:
// under the data directory, one directory per cluster (the embedded one,
// or the brokers given).
func historyDir(dataDir, brokers string) string {
	return filepath.Join(dataDir, "history", clusterDirName(brokers))
}

// lessonTopicsRecord is the file that records the topics lesson runs
// created on this cluster, the only ones "Clean up lab topics" deletes:
// under the data directory, one file per cluster as for the history. A
// fresh data directory records none, so cleanup leaves the topics of
// earlier servers' runs alone (delete them by name on the topic page).
func lessonTopicsRecord(dataDir, brokers string) string {
	return filepath.Join(dataDir, "lessons", clusterDirName(brokers), "created-topics.json")
}

// clusterDirName names a cluster's directory: "embedded", or one per list
// of brokers given.
func clusterDirName(brokers string) string {
	if brokers == "" {
		return "embedded"
	}
	sum := sha256.Sum256([]byte(brokers))
	return "cluster-" + hex.EncodeToString(sum[:6])
}

// startSchemaRegistry is the registry whose schemas decode the values:
// --schema-registry, else the command config's schema.registry.url, else,
// beside the embedded broker, the embedded registry it starts (closed by
// the returned function); nil without one.
func startSchemaRegistry(cfg config, embedded bool, log *slog.Logger) (*schemareg.Decoder, func(), error) {
	regURL, auth := cfg.schemaRegistry, schemareg.Auth{}
	if cc := cfg.commandConfig; cc != nil {
		fileURL, user, password := cc.SchemaRegistry()
		if regURL == "" {
			regURL = fileURL
		}
		auth = schemareg.Auth{User: user, Password: password}
	}
	closeAll := func() {}
	if regURL == "" && embedded {
		reg, err := schemareg.StartEmbedded(cfg.schemaRegistryAddr, filepath.Join(cfg.dataDir, "schemas"))
		if err != nil {
			return nil, nil, fmt.Errorf("--schema-registry-addr: %w", err)
		}
		closeAll = func() { _ = reg.Close() }
		regURL = reg.URL()
		log.Info("embedded Schema Registry listening", "registry", regURL)
	}
	if regURL == "" {
		return nil, closeAll, nil
	}
	dec, err := schemareg.New(regURL, auth)
	if err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("--schema-registry: %w", err)
	}
	return dec, closeAll, nil
}
