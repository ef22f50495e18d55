// Package localkafka runs real Apache Kafka 4.3.1 brokers (KRaft) on this
// machine for the server's --local-kafka: a single broker (seed 000) or
// seed 002's three brokers, whose nodes can be stopped and started one by
// one so that a lesson takes followers out of the ISR for real.
//
// All of it happens in this process, with Java 17+ as the one requirement:
// no bash, Python or Maven. The jars come from a cache directory
// (DefaultLibs), or, the first time, from Maven Central over HTTPS, each
// checked against the size and SHA-256 in the embedded jars.txt (exactly
// the jars scripts/kafka/pom.xml resolves; ~46 MB). Each node's
// server.properties is built from the embedded settings/ files, which
// scripts/kafka/harness.sh reads too, so both write the same file; storage
// is formatted once with Kafka's StorageTool; each node is a
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
// server anyway: on Linux every JVM gets a parent-death signal, so a
// server killed with SIGKILL takes its brokers with it.
//
// The work directory has harness.sh's layout (cluster.env, pids, bootstrap,
// node-N/server.properties, server.log, data/): `harness.sh status DIR`
// reads a cluster the server runs, and a stopped cluster either of them
// made is restarted by the other with its data and ports.
//
// It polls with internal/wait and returns internal/problem errors for what
// its callers show; nothing here speaks HTTP.
package localkafka

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// Shapes of cluster Start can run.
const (
	// Single is one broker+controller node, as compose.yaml (seed 000).
	Single = "single"
	// Triple is three broker+controller nodes in one static quorum, as
	// compose.triple.yaml (seed 002).
	Triple = "triple"
)

// ErrUnknownNode marks a node id the cluster does not have.
var ErrUnknownNode = errors.New("unknown broker node")

// Timeouts, as harness.sh has them.
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
	// Shape is Single or Triple.
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

// DefaultJava returns the java command harness.sh would run:
// $JAVA_HOME/bin/java when JAVA_HOME is set, else java from PATH.
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

// prepare loads DIR's cluster, or formats a new one; fresh says which.
func (c *Cluster) prepare(shape string) (fresh bool, err error) {
	for _, name := range []string{"server-log4j2.properties", "tools-log4j2.properties"} {
		b, _ := settings.ReadFile("settings/" + name)
		if err := os.WriteFile(filepath.Join(c.dir, name), b, 0o644); err != nil {
			return false, dirError(c.dir, err)
		}
	}
	l, err := readLayout(c.dir)
	switch {
	case err == nil:
		if l.Shape != shape {
			return false, dirError(c.dir, fmt.Errorf("it holds a %s cluster, not %s; use another directory or remove it", l.Shape, shape))
		}
		for node, pid := range readPids(c.dir) {
			if node >= 1 && node <= l.nodes() && nodeProcessRunning(pid, c.propsPath(node)) {
				return false, dirError(c.dir, fmt.Errorf("its node %d is already running (pid %d); stop it first", node, pid))
			}
		}
		c.layout = l
		c.log.Info("restarting the existing local Kafka cluster", "shape", shape, "clusterID", l.ClusterID, "dir", c.dir)
		return false, c.openProbes()
	case !errors.Is(err, fs.ErrNotExist):
		return false, dirError(c.dir, err)
	}
	n := nodeCount(shape)
	ports, err := c.pickPorts(2 * n)
	if err != nil {
		return false, dirError(c.dir, err)
	}
	c.layout = layout{Shape: shape, ClusterID: newClusterID(), Ports: ports[:n], ControllerPorts: ports[n:]}
	if err := c.format(); err != nil {
		return false, err
	}
	if err := writeLayout(c.dir, c.layout); err != nil {
		return false, dirError(c.dir, err)
	}
	return true, c.openProbes()
}

// format writes every node's server.properties and formats its storage,
// all nodes at once (one JVM each, ~2 s of CPU apiece).
func (c *Cluster) format() error {
	ids := c.nodeIDs()
	for _, id := range ids {
		data := filepath.Join(c.nodeDir(id), "data")
		// no cluster.env: any data here is a half-done earlier format
		if err := os.RemoveAll(data); err != nil {
			return dirError(c.dir, err)
		}
		if err := os.MkdirAll(data, 0o755); err != nil {
			return dirError(c.dir, err)
		}
		if err := os.WriteFile(c.propsPath(id), []byte(c.layout.properties(id, data)), 0o644); err != nil {
			return dirError(c.dir, err)
		}
	}
	cds, _ := archiveOptions(c.archive, false)
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			formatLog := filepath.Join(c.nodeDir(id), "format.log")
			err := runTool(c.java, c.libs, cds, filepath.Join(c.dir, "tools-log4j2.properties"), formatLog,
				"kafka.tools.StorageTool", "format", "--cluster-id", c.layout.ClusterID, "--config", c.propsPath(id))
			if err != nil {
				errs[i] = fmt.Errorf("storage format of node %d failed (%w): %s (%s)", id, err, lastLines(formatLog, 0, 3), formatLog)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return problem.Wrap(err, problem.Internal, "error.localKafkaStart", "shape", c.layout.Shape, "dir", c.dir, "detail", err.Error())
	}
	return nil
}

// forget removes what a cluster that never served left behind, so that
// the next start in DIR formats anew, on new ports.
func (c *Cluster) forget() {
	for _, id := range c.nodeIDs() {
		os.RemoveAll(filepath.Join(c.nodeDir(id), "data"))
	}
	os.Remove(filepath.Join(c.dir, "cluster.env"))
	os.Remove(filepath.Join(c.dir, "pids"))
}

// openProbes makes one probe per node; only Start calls it, before the
// Cluster is shared.
func (c *Cluster) openProbes() error {
	c.closeProbes()
	c.probes = nil
	for _, id := range c.nodeIDs() {
		p, err := newProbe(c.layout.address(id))
		if err != nil {
			return dirError(c.dir, err)
		}
		c.probes = append(c.probes, p)
	}
	return nil
}

// closeProbes closes the probes' clients. The slice stays: Nodes may
// still read it, and a closed client just fails.
func (c *Cluster) closeProbes() {
	for _, p := range c.probes {
		p.close()
	}
}

// startAll starts every node and waits until each serves.
func (c *Cluster) startAll(ctx context.Context) error {
	ids := c.nodeIDs()
	for _, id := range ids {
		if err := c.launch(id); err != nil {
			return err
		}
	}
	return c.waitServing(ctx, ids)
}

// launch starts node id's JVM.
func (c *Cluster) launch(id int) error {
	dir := c.nodeDir(id)
	out, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close() // the JVM has its own copy
	st, err := out.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "===== offsetlab: starting node %d at %s =====\n", id, time.Now().Format(time.RFC3339))
	// only node 1 may write a class archive: one writer per cluster
	cds, writes := archiveOptions(c.archive, id == 1)
	args := slices.Concat(brokerJVMOptions(), cds, []string{
		"-Dlog4j2.configurationFile=" + filepath.Join(c.dir, "server-log4j2.properties"),
		"-Dkafka.logs.dir=" + dir,
		"-XX:ErrorFile=" + filepath.Join(dir, "hs_err_pid%p.log"),
		"-cp", classpath(c.libs), "kafka.Kafka", c.propsPath(id),
	})
	p, err := startProcess(c.java, args, out)
	if err != nil {
		return fmt.Errorf("start node %d: %w", id, err)
	}
	p.archive, p.logFrom = writes, st.Size()
	c.mu.Lock()
	c.procs[id-1] = p
	c.mu.Unlock()
	c.writePids()
	return nil
}

// waitServing waits until every node of ids answers metadata listing all
// of ids, for at most startTimeout. It gives up at once when one of their
// JVMs exits.
func (c *Cluster) waitServing(ctx context.Context, ids []int) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	defer context.AfterFunc(c.life, cancel)()
	want := make([]int32, len(ids))
	for i, id := range ids {
		want[i] = int32(id)
	}
	pending := slices.Clone(ids)
	last := map[int]string{}
	err := wait.Until(ctx, pollInterval, func(ctx context.Context) (bool, error) {
		for _, id := range pending {
			if p := c.proc(id); !p.running() {
				return false, fmt.Errorf("node %d's JVM ended while starting (%s): %s", id, p.exitError(), c.logExcerpt(id))
			}
		}
		pending = slices.DeleteFunc(pending, func(id int) bool {
			ok, seen, err := c.probes[id-1].serves(ctx, want)
			switch {
			case err != nil:
				last[id] = err.Error()
			case !ok:
				last[id] = fmt.Sprintf("answers, live brokers %v", seen)
			}
			return ok
		})
		return len(pending) == 0, nil
	})
	if (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) && len(pending) > 0 {
		var why []string
		for _, id := range pending {
			why = append(why, fmt.Sprintf("node %d: %s; %s", id, cmp.Or(last[id], "no answer"), c.logExcerpt(id)))
		}
		return fmt.Errorf("%w: %s", err, strings.Join(why, " | "))
	}
	return err
}

// logExcerpt is the gist of what node id's JVM logged since it started:
// its last ERROR or FATAL line, else its last line.
func (c *Cluster) logExcerpt(id int) string {
	from := int64(0)
	if p := c.proc(id); p != nil {
		from = p.logFrom
	}
	return lastLines(filepath.Join(c.nodeDir(id), "server.log"), from, 1)
}

// logSays reports whether any node's JVM logged s since it started.
func (c *Cluster) logSays(s string) bool {
	for _, id := range c.nodeIDs() {
		if p := c.proc(id); p != nil && strings.Contains(readFrom(filepath.Join(c.nodeDir(id), "server.log"), p.logFrom), s) {
			return true
		}
	}
	return false
}

// stopNodes stops the running nodes of ids at once, as harness.sh's
// stop_nodes does: SIGTERM (a controlled shutdown), then SIGKILL for what
// is left after stopTimeout — or after noQuorumStopTimeout when the quorum
// is already lost, or quorumLostGrace after it is lost half-way.
func (c *Cluster) stopNodes(ids []int) error {
	total := c.layout.nodes()
	running := c.runningCount()
	grace := stopTimeout
	if total > 1 && running <= total/2 {
		grace = noQuorumStopTimeout
		c.log.Info("controller quorum lost: SIGKILL after the grace period", "running", running, "nodes", total, "grace", grace)
	}
	// Stopping several nodes at once can lose the quorum half-way: a node
	// whose controlled shutdown was not granted before the other
	// controllers exited would wait for ever.
	watchQuorum := total > 1 && running > total/2
	var stopping []*process
	exited := make(chan struct{}, len(ids))
	for _, id := range ids {
		if p := c.proc(id); p.running() {
			stopping = append(stopping, p)
			if err := p.os.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
				p.os.Kill() // no SIGTERM where signals do not exist
			}
			go func() { <-p.done; exited <- struct{}{} }()
		}
	}
	err := c.awaitExits(stopping, exited, grace, watchQuorum)
	for _, p := range stopping {
		if p.archive != "" && !p.running() {
			publishArchive(c.java, c.libs, c.archive, p.archive)
		}
	}
	c.writePids()
	return err
}

// awaitExits waits until every process of stopping has reported on
// exited, SIGKILLing what is left after grace (cut to quorumLostGrace
// once at most half of the nodes run, when watchQuorum is set).
func (c *Cluster) awaitExits(stopping []*process, exited <-chan struct{}, grace time.Duration, watchQuorum bool) error {
	end := time.Now().Add(grace)
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for left := len(stopping); left > 0; left-- {
		select {
		case <-exited:
			if watchQuorum && c.runningCount() <= c.layout.nodes()/2 {
				watchQuorum = false
				if soon := time.Now().Add(quorumLostGrace); soon.Before(end) {
					end = soon
					deadline.Reset(time.Until(end))
				}
			}
		case <-deadline.C:
			c.log.Warn("local Kafka node(s) did not stop in time; sending SIGKILL", "left", left)
			return killAll(stopping, left, exited)
		}
	}
	return nil
}

// killAll SIGKILLs the processes and waits until the left of them that
// have not reported on exited yet have.
func killAll(procs []*process, left int, exited <-chan struct{}) error {
	for _, p := range procs {
		p.os.Kill()
	}
	timeout := time.NewTimer(killTimeout)
	defer timeout.Stop()
	for ; left > 0; left-- {
		select {
		case <-exited:
		case <-timeout.C:
			return fmt.Errorf("%d JVM(s) survived SIGKILL for %s", left, killTimeout)
		}
	}
	return nil
}

// Brokers returns the bootstrap addresses of every node.
func (c *Cluster) Brokers() []string {
	out := make([]string, c.layout.nodes())
	for i := range out {
		out[i] = c.layout.address(i + 1)
	}
	return out
}

// Shape returns Single or Triple.
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

// writePids records the running JVMs in DIR/pids and node-N/pid, as
// harness.sh does, so that its status and stop commands see them.
func (c *Cluster) writePids() {
	var b strings.Builder
	for _, id := range c.nodeIDs() {
		pidFile := filepath.Join(c.nodeDir(id), "pid")
		if p := c.proc(id); p.running() {
			fmt.Fprintf(&b, "%d %d\n", id, p.os.Pid)
			os.WriteFile(pidFile, fmt.Appendf(nil, "%d\n", p.os.Pid), 0o644)
		} else {
			os.Remove(pidFile)
		}
	}
	if err := writeFileAtomic(filepath.Join(c.dir, "pids"), []byte(b.String())); err != nil {
		c.log.Warn("could not write the pids file", "err", err)
	}
}

func (c *Cluster) nodeIDs() []int {
	ids := make([]int, c.layout.nodes())
	for i := range ids {
		ids[i] = i + 1
	}
	return ids
}

func (c *Cluster) nodeDir(id int) string { return filepath.Join(c.dir, "node-"+strconv.Itoa(id)) }

func (c *Cluster) propsPath(id int) string {
	return filepath.Join(c.nodeDir(id), "server.properties")
}

// readFrom returns the file's text after offset from (at most its last
// 256 KiB), or "".
func readFrom(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		from = max(from, st.Size()-256<<10)
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// problemLine is a log line worth showing: what harness.sh greps for.
var problemLine = regexp.MustCompile(`^\[[^]]*\] (ERROR|FATAL) |^[A-Za-z.]+(Exception|Error)`)

// lastLines returns the last n ERROR or FATAL lines (or exceptions) the
// file has after offset from, else its last n lines, joined by " | ".
func lastLines(path string, from int64, n int) string {
	lines := strings.Split(strings.TrimSpace(readFrom(path, from)), "\n")
	var problems []string
	for _, l := range lines {
		if problemLine.MatchString(l) {
			problems = append(problems, l)
		}
	}
	if len(problems) > 0 {
		lines = problems
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, " | "))
}

func dirError(dir string, err error) error {
	return problem.Wrap(err, problem.Conflict, "error.localKafkaDir", "dir", dir, "detail", err.Error())
}
