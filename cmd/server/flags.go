package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/kafkaconfig"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/web"
)

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
	kafkaLimits embedded.PortLimits
	budget      embedded.DataBudget
	topicLimits embedded.TopicLimits
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
	num(&c.topicLimits.MaxTopics, "embedded-max-topics", "OFFSETLAB_EMBEDDED_MAX_TOPICS", embedded.DefaultMaxTopics, "embedded broker: topics it holds at most; past it CreateTopics and auto-creation are refused POLICY_VIOLATION")
	num(&c.topicLimits.MaxPartitions, "embedded-max-partitions", "OFFSETLAB_EMBEDDED_MAX_PARTITIONS", embedded.DefaultMaxPartitions, "embedded broker: partitions, over all topics, it holds at most (refused as --embedded-max-topics is)")
	num(&c.topicLimits.StudentMaxTopics, "embedded-student-max-topics", "OFFSETLAB_EMBEDDED_STUDENT_MAX_TOPICS", embedded.DefaultStudentMaxTopics, "embedded broker: topics one classroom student may hold in their namespace (refused POLICY_VIOLATION past it; students together hold at most three quarters of --embedded-max-topics)")
	num(&c.topicLimits.StudentMaxPartitions, "embedded-student-max-partitions", "OFFSETLAB_EMBEDDED_STUDENT_MAX_PARTITIONS", embedded.DefaultStudentMaxPartitions, "embedded broker: partitions one classroom student may hold (as --embedded-student-max-topics)")
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
// embedded.PortLimits) and returns the function that reads them after Parse.
func kafkaPortFlags(fs *flag.FlagSet, env func(key, def string) string) func() (embedded.PortLimits, error) {
	d := embedded.DefaultPortLimits()
	maxRequest := fs.String("kafka-max-request-bytes", env("OFFSETLAB_KAFKA_MAX_REQUEST_BYTES", strconv.Itoa(int(d.MaxRequestBytes))), "embedded broker: the largest Kafka request accepted, Kafka's socket.request.max.bytes [OFFSETLAB_KAFKA_MAX_REQUEST_BYTES]")
	requestTimeout := fs.String("kafka-request-timeout", env("OFFSETLAB_KAFKA_REQUEST_TIMEOUT", d.RequestTimeout.String()), "embedded broker: how long a Kafka request may take to arrive, and a response to be read [OFFSETLAB_KAFKA_REQUEST_TIMEOUT]")
	idleTimeout := fs.String("kafka-idle-timeout", env("OFFSETLAB_KAFKA_IDLE_TIMEOUT", d.IdleTimeout.String()), "embedded broker: close Kafka connections idle this long, Kafka's connections.max.idle.ms [OFFSETLAB_KAFKA_IDLE_TIMEOUT]")
	maxConns := fs.String("kafka-max-connections", env("OFFSETLAB_KAFKA_MAX_CONNECTIONS", strconv.Itoa(d.MaxConnections)), "embedded broker: open Kafka connections at most [OFFSETLAB_KAFKA_MAX_CONNECTIONS]")
	maxPerIP := fs.String("kafka-max-connections-per-ip", env("OFFSETLAB_KAFKA_MAX_CONNECTIONS_PER_IP", strconv.Itoa(d.MaxConnectionsPerIP)), "embedded broker: open Kafka connections from one other machine at most [OFFSETLAB_KAFKA_MAX_CONNECTIONS_PER_IP]")
	authDelay := fs.String("kafka-failed-authentication-delay", env("OFFSETLAB_KAFKA_FAILED_AUTHENTICATION_DELAY", d.FailedAuthenticationDelay.String()), "embedded broker: hold the answer to a failed SASL login this long, Kafka's connection.failed.authentication.delay.ms; an address that keeps failing waits longer [OFFSETLAB_KAFKA_FAILED_AUTHENTICATION_DELAY]")
	return func() (embedded.PortLimits, error) {
		var l embedded.PortLimits
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
