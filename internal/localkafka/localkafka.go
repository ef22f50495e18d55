// Package localkafka runs real Apache Kafka brokers on this machine with
// the repo's harness (scripts/kafka/harness.sh): a single broker or seed
// 002's three-broker cluster, whose nodes can be stopped and started one by
// one so that a lesson can take followers out of the ISR for real.
//
// The harness needs Java 17+, Maven 3.8+ (only for the first fetch of the
// jars), python3 and bash. Nothing here speaks HTTP.
package localkafka

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Shapes the harness can start.
const (
	Single = "single"
	Triple = "triple"
)

// ErrUnknownNode marks a node id the cluster does not have.
var ErrUnknownNode = errors.New("unknown broker node")

// Config says which cluster to start and where.
type Config struct {
	// Shape is Single or Triple.
	Shape string
	// Dir holds the cluster's configuration, data and logs. A Dir with a
	// stopped cluster of the same shape is restarted with its data.
	Dir string
	// Harness is the path of harness.sh; empty finds it (see FindHarness).
	Harness string
	// WatchPID, when > 0, makes the harness stop the cluster once that
	// process is gone, so no broker outlives a killed server or test.
	WatchPID int
	// Stderr receives the harness's progress (nil discards it).
	Stderr io.Writer
}

// Node is one broker of the cluster as the harness reports it.
type Node struct {
	ID      int    `json:"id"`
	Address string `json:"address"`
	// Up is true while the node's JVM runs and answers metadata requests.
	Up bool `json:"up"`
}

// Cluster is a running local cluster. Its methods are safe for concurrent
// use; node operations run one at a time.
type Cluster struct {
	cfg     Config
	brokers []string

	mu     sync.Mutex // serialises harness commands that change state
	closed bool
}

// FindHarness returns the path of scripts/kafka/harness.sh:
// $OFFSETLAB_KAFKA_HARNESS if set, else the first scripts/kafka/harness.sh
// in the working directory or one of its parents (the repo root).
func FindHarness() (string, error) {
	if p := os.Getenv("OFFSETLAB_KAFKA_HARNESS"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the Kafka harness: %w", err)
	}
	for {
		p := filepath.Join(dir, "scripts", "kafka", "harness.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find the Kafka harness: scripts/kafka/harness.sh is not in the working directory or a parent; run from the Offset Lab repository or set OFFSETLAB_KAFKA_HARNESS")
		}
		dir = parent
	}
}

// CheckTools reports, as one sentence, which of the harness's tools are
// missing from PATH (java, python3; mvn only when the jars are not cached
// yet is the harness's own concern, but a missing mvn is named too).
func CheckTools() error {
	var missing []string
	for _, tool := range []string{"java", "python3", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the local Kafka cluster needs Java 17+, Maven 3.8+ (for the first download of the Kafka jars), python3 and bash; not found on PATH: %s", strings.Join(missing, ", "))
	}
	return nil
}

// JavaAvailable reports whether java is on PATH, the one tool the local
// cluster cannot do without.
func JavaAvailable() bool {
	_, err := exec.LookPath("java")
	return err == nil
}

// Start starts the cluster (fetching the Kafka jars first if they are not
// cached: that needs Maven and the network once) and waits until every
// node serves. The caller must Close it.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.Shape != Single && cfg.Shape != Triple {
		return nil, fmt.Errorf("local Kafka shape %q: use %s or %s", cfg.Shape, Single, Triple)
	}
	if cfg.Harness == "" {
		p, err := FindHarness()
		if err != nil {
			return nil, err
		}
		cfg.Harness = p
	}
	if err := CheckTools(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("local Kafka directory: %w", err)
	}
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("local Kafka directory: %w", err)
	}
	cfg.Dir = abs
	c := &Cluster{cfg: cfg}
	out, err := c.harness(ctx, "start", cfg.Shape, cfg.Dir)
	if err != nil {
		// A half-started cluster must not outlive the failure.
		c.harness(context.WithoutCancel(ctx), "stop", cfg.Dir) //nolint:errcheck // best effort
		return nil, fmt.Errorf("start the local %s Kafka cluster in %s (needs Java 17+, and Maven for the first download of the jars): %w", cfg.Shape, cfg.Dir, err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	c.brokers = strings.Split(strings.TrimSpace(lines[len(lines)-1]), ",")
	return c, nil
}

// Brokers returns the bootstrap addresses of every node.
func (c *Cluster) Brokers() []string { return append([]string(nil), c.brokers...) }

// Shape returns Single or Triple.
func (c *Cluster) Shape() string { return c.cfg.Shape }

// Dir returns the cluster's work directory.
func (c *Cluster) Dir() string { return c.cfg.Dir }

// Nodes reports every node with whether it is up (harness.sh status).
func (c *Cluster) Nodes(ctx context.Context) ([]Node, error) {
	out, err := c.harness(ctx, "status", c.cfg.Dir)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) { // 3: some node down
		return nil, fmt.Errorf("local Kafka status: %w", err)
	}
	nodes, perr := parseStatus(out)
	if perr != nil {
		return nil, fmt.Errorf("local Kafka status: %w", perr)
	}
	return nodes, nil
}

// parseStatus reads harness.sh status lines:
//
//	node 1 pid 123 port 40001 serving live-brokers=1,2,3
//	node 2 stopped port 40002
//	node 3 pid 125 port 40003 running, not answering metadata
func parseStatus(out string) ([]Node, error) {
	var nodes []Node
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] != "node" {
			continue
		}
		id, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("unexpected status line %q", sc.Text())
		}
		n := Node{ID: id}
		for i := 2; i+1 < len(f); i++ {
			if f[i] == "port" {
				n.Address = "127.0.0.1:" + f[i+1]
			}
		}
		n.Up = slices.Contains(f, "serving")
		nodes = append(nodes, n)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no nodes in %q", strings.TrimSpace(out))
	}
	return nodes, nil
}

// checkNode refuses ids the cluster does not have.
func (c *Cluster) checkNode(id int) error {
	if id < 1 || id > len(c.brokers) {
		return fmt.Errorf("%w %d: this %s cluster has nodes 1 to %d", ErrUnknownNode, id, c.cfg.Shape, len(c.brokers))
	}
	return nil
}

// StopNode stops node id as `docker stop` does (SIGTERM: a controlled
// shutdown, so the controller takes it out of every ISR at once) and waits
// until its JVM is gone. Stopping a stopped node does nothing.
func (c *Cluster) StopNode(ctx context.Context, id int) error {
	if err := c.checkNode(id); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.harness(ctx, "stop-node", c.cfg.Dir, strconv.Itoa(id)); err != nil {
		return fmt.Errorf("stop Kafka node %d: %w", id, err)
	}
	return nil
}

// StartNode starts node id again with its configuration and data and waits
// until it serves. Right after a stop this takes up to ~9 s: the
// controller refuses the new incarnation until the old broker session
// expires (broker.session.timeout.ms).
func (c *Cluster) StartNode(ctx context.Context, id int) error {
	if err := c.checkNode(id); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.harness(ctx, "start-node", c.cfg.Dir, strconv.Itoa(id)); err != nil {
		return fmt.Errorf("start Kafka node %d: %w", id, err)
	}
	return nil
}

// Close stops every node and waits until their JVMs are gone. It is safe
// to call more than once.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.harness(ctx, "stop", c.cfg.Dir); err != nil {
		return fmt.Errorf("stop the local Kafka cluster in %s: %w", c.cfg.Dir, err)
	}
	return nil
}

// harness runs harness.sh with args and returns its stdout. On failure the
// error carries the last lines of stderr (the broker's own complaint).
func (c *Cluster) harness(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", append([]string{c.cfg.Harness}, args...)...)
	cmd.Env = os.Environ()
	if c.cfg.WatchPID > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("OFFSETLAB_KAFKA_WATCH_PID=%d", c.cfg.WatchPID))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if c.cfg.Stderr != nil {
		cmd.Stderr = io.MultiWriter(&stderr, c.cfg.Stderr)
	}
	out, err := cmd.Output()
	if err != nil {
		if tail := lastLines(stderr.String(), 5); tail != "" {
			return string(out), fmt.Errorf("%w: %s", err, tail)
		}
		return string(out), err
	}
	return string(out), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, " | "))
}
