package localkafka

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// Starting and stopping the nodes: the work directory prepared and
// formatted, the JVMs launched and probed until they serve, stopped with
// SIGTERM and, past a grace period, SIGKILL.

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
		if shape == Secure {
			if err := c.loadSecure(); err != nil {
				return false, dirError(c.dir, err)
			}
		}
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
	if shape == Secure {
		if err := c.initSecure(c.layout.Ports[0]); err != nil {
			return false, dirError(c.dir, err)
		}
	}
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
		var ks keystore
		if c.secrets != nil {
			ks = keystore{Dir: c.dir, Password: c.secrets.Keystore}
		}
		if err := os.WriteFile(c.propsPath(id), []byte(c.layout.properties(id, data, ks)), 0o600); err != nil {
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
	login, err := c.brokerLogin()
	if err != nil {
		return dirError(c.dir, err)
	}
	for _, id := range c.nodeIDs() {
		p, err := newProbe(c.layout.address(id), login...)
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
	args := slices.Concat(brokerJVMOptions(), cds, c.jaasOption(), []string{
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

// stopNodes stops the running nodes of ids at once: SIGTERM (a controlled shutdown), then SIGKILL for what
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
