package localkafka

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// The work directory: pids, node directories, server.properties and log
// files.

// writePids records the running JVMs in DIR/pids and node-N/pid, so that
// a later Start in DIR sees a node still running.
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
