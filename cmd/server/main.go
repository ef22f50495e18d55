// Command server runs Offset Lab: the dashboard and its JSON API, over an
// embedded Kafka-protocol broker (the default) or a real cluster
// (--brokers). It only wires the pieces together; see docs/design.md.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/offsetlab/offsetlab/cmd/internal/download"
	"github.com/offsetlab/offsetlab/cmd/internal/schemareg"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/lessons"
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
		brokerCfg := embedded.Config{Listener: kafkaLn, DataDir: cfg.dataDir, Logger: log, Limits: cfg.kafkaLimits, Topics: cfg.topicLimits, Budget: cfg.budget}
		if cfg.classroom {
			// Students' clients reach the Kafka port from their laptops:
			// it asks each for their SASL user and holds them to ACLs.
			if brokerCfg.Students, err = embedded.ClassroomAdmin(cfg.dataDir); err != nil {
				return err
			}
			brokerCfg.AdvertisedHost = advertisedHost(cfg.kafkaAddr, joinURL)
		}
		kafka, err = embedded.Start(brokerCfg)
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
	if _, err := embedded.PrivateDataDir(cfg.dataDir, classFile); err != nil {
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
