package localkafka

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// brokerJVMOptions are the JVM options brokers start with. 768 MiB of
// heap: share-group coordinators and the test suite's many groups and
// transactions made a 384 MiB broker slow to answer under load.
// Serial GC: no parallel GC threads competing for two cores; C1 only: the
// JIT work at startup is what makes a broker slow to come up on a small
// machine, and a teaching cluster never needs C2's peak throughput.
func brokerJVMOptions() []string {
	return []string{"-Xmx768m", "-Xms128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:MaxDirectMemorySize=128m", "-Djava.awt.headless=true"}
}

// toolJVMOptions are the JVM options Kafka's tools run with.
func toolJVMOptions() []string {
	return []string{"-Xmx256m", "-Xms32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true", "-Xlog:cds*=off"}
}

// process is a JVM this package started.
type process struct {
	os   *os.Process
	done chan struct{} // closed once the JVM has exited and been reaped
	err  error         // how it exited; read after done
	// archive is the class-data-sharing archive this JVM writes when it
	// exits, or "".
	archive string
	// logFrom is the size of server.log when it started: what this JVM
	// wrote comes after.
	logFrom int64
}

// startProcess starts java with args, its stdout and stderr going to out,
// and reaps it when it exits.
func startProcess(java string, args []string, out *os.File) (*process, error) {
	p := &process{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Linux sends the parent-death signal when the thread that forked
		// the child ends, not the process (golang/go#27505): this goroutine
		// keeps its thread until the JVM has exited, so that only the
		// server's death kills the JVM.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd := exec.Command(java, args...)
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = sysProcAttr()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.os = cmd.Process
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// running reports whether the JVM has not exited yet.
func (p *process) running() bool {
	if p == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// exitError says how the JVM ended, once it has.
func (p *process) exitError() string {
	if p == nil {
		return "not started"
	}
	if p.err == nil {
		return "exited"
	}
	return p.err.Error()
}

// runTool runs one of Kafka's command line tools to the end, its output
// going to logPath.
func runTool(java, libs string, cds []string, log4j, logPath string, class string, args ...string) error {
	out, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer out.Close()
	jvm := slices.Concat(toolJVMOptions(), cds, []string{"-Dlog4j2.configurationFile=" + log4j, "-cp", classpath(libs), class}, args)
	p, err := startProcess(java, jvm, out)
	if err != nil {
		return err
	}
	<-p.done
	return p.err
}

// classpath is every jar of libs: the class archive records the class
// path, so every JVM must use the same string.
func classpath(libs string) string { return libs + string(filepath.Separator) + "*" }

// classArchive returns the application class-data-sharing archive for
// java and libs (libs/.cds/jdk-KEY.jsa,
// KEY from java's real path and modification time), or "" when java
// cannot be resolved. The first broker run without it writes it when it
// exits; later JVMs map it instead of parsing ~5000 classes from the jars
// (a node starts in ~2.7 s instead of ~4.5 s, and the JVMs of a triple
// share those pages). A missing or stale archive only costs speed.
func classArchive(java, libs string) string {
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		return ""
	}
	if real, err = filepath.Abs(real); err != nil {
		return ""
	}
	st, err := os.Stat(real)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s %d\n", real, st.ModTime().Unix()))
	return filepath.Join(libs, ".cds", "jdk-"+hex.EncodeToString(sum[:])[:12]+".jsa")
}

// archiveOptions returns the JVM options that use the class archive, or,
// when dump is set and there is none yet, that write one at exit (to a
// temporary name, which it returns, published by publishArchive).
func archiveOptions(archive string, dump bool) (opts []string, writes string) {
	if archive == "" {
		return nil, ""
	}
	if st, err := os.Stat(archive); err == nil && st.Size() > 0 {
		return []string{"-XX:SharedArchiveFile=" + archive}, ""
	}
	if !dump || os.MkdirAll(filepath.Dir(archive), 0o755) != nil {
		return nil, ""
	}
	tmp := fmt.Sprintf("%s.tmp.%d-%s", archive, os.Getpid(), rand.Text()[:6])
	return []string{"-XX:ArchiveClassesAtExit=" + tmp}, tmp
}

// publishArchive moves the archive a JVM wrote at exit into place once a
// JVM accepts it (-Xshare:on refuses one cut short by SIGKILL), or removes
// it.
func publishArchive(java, libs, archive, tmp string) {
	if st, err := os.Stat(tmp); err != nil || st.Size() == 0 {
		os.Remove(tmp)
		return
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		os.Remove(tmp)
		return
	}
	defer devNull.Close()
	p, err := startProcess(java, []string{"-XX:ErrorFile=" + os.DevNull, "-XX:SharedArchiveFile=" + tmp, "-Xshare:on", "-cp", classpath(libs), "-version"}, devNull)
	if err == nil {
		<-p.done
		if p.err == nil && os.Rename(tmp, archive) == nil {
			return
		}
	}
	os.Remove(tmp)
}

// nodeProcessRunning reports whether pid is a live (not zombie) process
// whose command line names props: a JVM of this node that some other
// process (an earlier server or supervisor) started. A recycled pid never
// matches. Without /proc it reports false.
func nodeProcessRunning(pid int, props string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte(props)) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(stat), ") ")
	return ok && !strings.HasPrefix(rest, "Z")
}

// readPids reads DIR/pids: "NODE PID" lines.
func readPids(dir string) map[int]int {
	b, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		return nil
	}
	out := map[int]int{}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		node, err1 := strconv.Atoi(f[0])
		pid, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			out[node] = pid
		}
	}
	return out
}
