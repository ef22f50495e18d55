// Package localkafka runs real Apache Kafka 4.3.1 brokers (KRaft) on this
// machine, for the server's --local-kafka, for cmd/offsetlab-kafka and for
// the tests: a single broker (seed 000), seed 002's three brokers, whose
// nodes can be stopped and started one by one so that a lesson takes
// followers out of the ISR for real, or a single broker behind TLS, SASL
// and ACLs (Secure).
//
// All of it happens in this process, with Java 17+ as the one requirement:
// no bash, Python or Maven. The jars come from a cache directory
// (DefaultLibs), or, the first time, from Maven Central over HTTPS, each
// checked against the size and SHA-256 in the embedded jars.txt (exactly
// the jars scripts/kafka/pom.xml resolves; ~46 MB). Each node's
// server.properties is built from the embedded settings/ files, which the
// compose files must match (SharedSettings); storage is formatted once
// with Kafka's StorageTool; each node is a
// `java ... kafka.Kafka server.properties` child process on loopback ports
// below the ephemeral range; readiness is a franz-go Metadata request to
// each node.
//
// Costs: one JVM per node, heap capped at 384 MiB. Measured on two busy
// cores: a single node serves ~2-3 s after Start, a triple ~5-8 s; the
// first broker run on a JDK is slower and writes a class-data-sharing
// archive that later JVMs map. Stopping a follower takes under 1.5 s;
// starting it right after takes up to ~9 s, because the controller
// refuses the new incarnation until the old broker session expires; a
// triple's Close takes ~5.5 s (the last Raft leader waits 5 s for voters
// already gone).
//
// The caller must Close a Cluster: Close stops every node (SIGTERM, a
// controlled shutdown, then SIGKILL after a timeout). No JVM outlives the
// process that started it anyway: on Linux every JVM gets a parent-death
// signal, so a server (or a test binary) killed with SIGKILL takes its
// brokers with it.
//
// The work directory holds cluster.env (shape, cluster id, ports), pids,
// bootstrap, node-N/server.properties, server.log and data/; a stopped
// cluster is restarted by a later Start in the same directory with its
// data and ports.
//
// It polls with internal/wait and returns internal/problem errors for what
// its callers show; nothing here speaks HTTP.
package localkafka

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Shapes of cluster Start can run.
const (
	// Single is one broker+controller node, as compose.yaml (seed 000).
	Single = "single"
	// Triple is three broker+controller nodes in one static quorum, as
	// compose.triple.yaml (seed 002).
	Triple = "triple"
	// Secure is Single behind TLS, SASL and ACLs, as compose.secure.yaml:
	// its only client listener is SASL_SSL (SCRAM-SHA-512 and PLAIN),
	// with a CA made for its directory, users admin (a super user) and
	// reader (read-only ACLs), and client properties files for both in
	// its directory (secure.go).
	Secure = "secure"
)

// ErrUnknownNode marks a node id the cluster does not have.
var ErrUnknownNode = errors.New("unknown broker node")

// Timeouts.
const (
	// startTimeout bounds the wait until nodes serve.
	startTimeout = 120 * time.Second
	// stopTimeout is how long a node gets for a controlled shutdown
	// before SIGKILL.
	stopTimeout = 30 * time.Second
	// noQuorumStopTimeout replaces stopTimeout when at most one node of
	// three runs: no controller can grant a controlled shutdown, which
	// would otherwise wait until SIGKILL. Killing is safe for the data:
	// everything written is in the page cache, and the next start runs
	// log recovery.
	noQuorumStopTimeout = 3 * time.Second
	// quorumLostGrace is what nodes still stopping get once a stop of
	// several nodes has lost the quorum half-way: the time a Raft leader
	// needs to resign (5 s in Kafka), then SIGKILL.
	quorumLostGrace = 6 * time.Second
	// killTimeout bounds the wait for a SIGKILLed JVM to be gone.
	killTimeout = 10 * time.Second
	// pollInterval is how often readiness is probed.
	pollInterval = 100 * time.Millisecond
)

// Config says which cluster to start and where.
type Config struct {
	// Shape is Single, Triple or Secure.
	Shape string
	// Dir holds the cluster's configuration, data and logs. A Dir with a
	// stopped cluster of the same shape is restarted with its data.
	Dir string
	// Libs is the directory of Kafka's jars (see DefaultLibs). When it
	// lacks any jar of the manifest, Start first downloads them all into
	// it from Maven Central.
	Libs string
	// Java is the java command (see DefaultJava); empty means java on
	// PATH.
	Java string
	// Get downloads a jar from Maven Central when Libs lacks one; nil
	// means the jars must be there already.
	Get Getter
	// Logger receives progress: the download, start and stop times, and a
	// failed node's last log lines. Nil discards it.
	Logger *slog.Logger
}

// DefaultJava returns the java command to run: $JAVA_HOME/bin/java when
// JAVA_HOME is set, else java from PATH.
func DefaultJava(getenv func(string) string) string {
	if home := getenv("JAVA_HOME"); home != "" {
		return filepath.Join(home, "bin", "java")
	}
	return "java"
}

// JavaAvailable reports whether java is on PATH: the one tool a local
// cluster cannot do without.
func JavaAvailable() bool {
	_, err := exec.LookPath("java")
	return err == nil
}

// Node is one broker of the cluster.
type Node struct {
	ID      int    `json:"id"`
	Address string `json:"address"`
	// Up is true while the node's JVM runs and answers metadata requests.
	Up bool `json:"up"`
}

// Cluster is a running local cluster. Its methods are safe for concurrent
// use; StopNode, StartNode and Close run one at a time.
type Cluster struct {
	dir, libs, java string
	archive         string // class-data-sharing archive, or ""
	pickPorts       func(n int) ([]int, error)
	layout          layout
	secrets         *secrets // the secure shape's passwords, else nil
	log             *slog.Logger
	probes          []*probe // by node, node 1 first

	// life ends when Close begins, cutting short a StartNode that waits.
	life    context.Context
	endLife context.CancelFunc

	ops sync.Mutex // one of StopNode, StartNode, Close at a time

	mu     sync.Mutex // guards procs and closed
	procs  []*process // by node; nil or exited while a node is stopped
	closed bool
}

// Start starts the cluster, downloading the jars first when Libs lacks
// them, and returns once every node serves: each answers metadata and
// lists every node as a live broker. A fresh cluster whose port another
// process took before its JVM could bind it is tried once more with new
// ports. On failure nothing it started keeps running. The caller must
// Close the cluster.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	return start(ctx, cfg, freePorts)
}

// start is Start with the function that picks ports for a fresh cluster.
func start(ctx context.Context, cfg Config, pickPorts func(n int) ([]int, error)) (*Cluster, error) {
	n := nodeCount(cfg.Shape)
	if n == 0 {
		return nil, problem.New(problem.Invalid, "error.localKafkaShape", "shape", cfg.Shape)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	java, err := exec.LookPath(cmp.Or(cfg.Java, "java"))
	if err != nil {
		return nil, problem.Wrap(err, problem.Invalid, "error.localKafkaJava", "java", cmp.Or(cfg.Java, "java"), "detail", err.Error())
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return nil, dirError(cfg.Dir, err)
	}
	if cfg.Libs == "" {
		return nil, jarsError("", errors.New("no jar directory given (Config.Libs)"))
	}
	libs, err := filepath.Abs(cfg.Libs)
	if err != nil {
		return nil, jarsError(cfg.Libs, err)
	}
	m, err := embeddedManifest()
	if err != nil {
		return nil, jarsError(libs, err)
	}
	if err := (fetcher{manifest: m, repository: mavenCentral, get: cfg.Get, log: log}).ensureJars(ctx, libs); err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, libs: libs, java: java, archive: classArchive(java, libs), log: log, procs: make([]*process, n), pickPorts: pickPorts}
	c.life, c.endLife = context.WithCancel(context.Background())
	started := time.Now()
	for attempt := 1; ; attempt++ {
		fresh, err := c.prepare(cfg.Shape)
		if err != nil {
			c.closeProbes()
			c.endLife()
			return nil, err
		}
		err = c.startAll(ctx)
		if err == nil && c.secrets != nil {
			err = c.provisionUsers(ctx)
		}
		if err == nil {
			break
		}
		portTaken := c.logSays("Address already in use")
		c.stopNodes(c.nodeIDs())
		c.closeProbes()
		if fresh {
			// never served: forget it, so that a retry formats anew
			c.forget()
			if attempt == 1 && portTaken {
				log.Warn("a port was taken before a broker could bind it; starting again with new ports", "dir", dir)
				continue
			}
		}
		c.endLife()
		return nil, problem.Wrap(err, problem.Internal, "error.localKafkaStart", "shape", cfg.Shape, "dir", dir, "detail", err.Error())
	}
	if err := os.WriteFile(filepath.Join(dir, "bootstrap"), []byte(strings.Join(c.Brokers(), ",")+"\n"), 0o644); err != nil {
		log.Warn("could not write the bootstrap file", "err", err)
	}
	log.Info("local Apache Kafka serving", "shape", cfg.Shape, "clusterID", c.layout.ClusterID,
		"brokers", strings.Join(c.Brokers(), ","), "took", time.Since(started).Round(10*time.Millisecond))
	return c, nil
}

// Brokers returns the bootstrap addresses of every node.
func (c *Cluster) Brokers() []string {
	out := make([]string, c.layout.nodes())
	for i := range out {
		out[i] = c.layout.address(i + 1)
	}
	return out
}

// Shape returns Single, Triple or Secure.
func (c *Cluster) Shape() string { return c.layout.Shape }

// Dir returns the cluster's work directory, an absolute path.
func (c *Cluster) Dir() string { return c.dir }

// Nodes reports every node: Up when its JVM runs and answers a Metadata
// request within two seconds (the nodes are asked at once).
func (c *Cluster) Nodes(ctx context.Context) ([]Node, error) {
	nodes := make([]Node, c.layout.nodes())
	var wg sync.WaitGroup
	for i := range nodes {
		id := i + 1
		nodes[i] = Node{ID: id, Address: c.layout.address(id)}
		if !c.proc(id).running() {
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			_, err := c.probes[i].liveBrokers(ctx, true)
			nodes[i].Up = err == nil
		})
	}
	wg.Wait()
	return nodes, nil
}

// StopNode stops node id as `docker stop` does — SIGTERM: a controlled
// shutdown, so the controller takes it out of every ISR at once — and
// returns once its JVM is gone (SIGKILLed after the timeouts stopNodes
// names). Stopping a stopped node does nothing. Once signalled, a stop is
// carried through whatever ctx says: a half-stopped broker helps no one.
func (c *Cluster) StopNode(ctx context.Context, id int) error {
	if err := c.checkNode(id); err != nil {
		return err
	}
	c.ops.Lock()
	defer c.ops.Unlock()
	if err := c.checkOpen(); err != nil {
		return err
	}
	if !c.proc(id).running() {
		return nil
	}
	start := time.Now()
	if err := c.stopNodes([]int{id}); err != nil {
		return problem.Wrap(err, problem.Internal, "error.brokerStopFailed", "id", strconv.Itoa(id), "detail", err.Error())
	}
	c.log.Info("local Kafka node stopped", "node", id, "took", time.Since(start).Round(10*time.Millisecond))
	return nil
}

// StartNode starts node id again with its configuration and data and
// returns once it serves (a running node is only waited for). Right after
// a stop this takes up to ~9 s: the controller refuses the new
// incarnation until the old broker session expires
// (broker.session.timeout.ms). A node that does not come up is stopped
// again.
func (c *Cluster) StartNode(ctx context.Context, id int) error {
	if err := c.checkNode(id); err != nil {
		return err
	}
	c.ops.Lock()
	defer c.ops.Unlock()
	if err := c.checkOpen(); err != nil {
		return err
	}
	start := time.Now()
	fail := func(err error) error {
		return problem.Wrap(err, problem.Internal, "error.brokerStartFailed", "id", strconv.Itoa(id),
			"log", filepath.Join(c.nodeDir(id), "server.log"), "detail", err.Error())
	}
	if !c.proc(id).running() {
		if err := c.launch(id); err != nil {
			return fail(err)
		}
	}
	if err := c.waitServing(ctx, []int{id}); err != nil {
		c.stopNodes([]int{id})
		return fail(err)
	}
	c.log.Info("local Kafka node serving again", "node", id, "took", time.Since(start).Round(10*time.Millisecond))
	return nil
}

// Close stops every node and returns once their JVMs are gone, at most
// about 40 s (a triple takes ~5.5 s: the last Raft leader waits 5 s for
// voters that are already gone). It cuts short a StartNode that is still
// waiting. It is safe to call more than once.
func (c *Cluster) Close() error {
	c.endLife()
	c.ops.Lock()
	defer c.ops.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	start := time.Now()
	err := c.stopNodes(c.nodeIDs())
	c.closeProbes()
	os.Remove(filepath.Join(c.dir, "pids"))
	if err != nil {
		return fmt.Errorf("stop the local Kafka cluster in %s: %w", c.dir, err)
	}
	c.log.Info("local Apache Kafka stopped", "shape", c.layout.Shape, "took", time.Since(start).Round(10*time.Millisecond))
	return nil
}

// checkNode refuses ids the cluster does not have.
func (c *Cluster) checkNode(id int) error {
	if id < 1 || id > c.layout.nodes() {
		return fmt.Errorf("%w %d: this %s cluster has nodes 1 to %d", ErrUnknownNode, id, c.layout.Shape, c.layout.nodes())
	}
	return nil
}

func (c *Cluster) checkOpen() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return problem.New(problem.Conflict, "error.localKafkaClosed")
	}
	return nil
}

func (c *Cluster) proc(id int) *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.procs[id-1]
}

func (c *Cluster) runningCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, p := range c.procs {
		if p.running() {
			n++
		}
	}
	return n
}

// problemLine is a log line worth showing: an ERROR or FATAL line, or an
// exception.
var problemLine = regexp.MustCompile(`^\[[^]]*\] (ERROR|FATAL) |^[A-Za-z.]+(Exception|Error)`)
