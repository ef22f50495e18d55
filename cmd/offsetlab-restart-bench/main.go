// Command offsetlab-restart-bench measures how long the server takes to
// restart on a large embedded-broker data directory and how much memory the
// restart takes, after a clean shutdown and after kill -9. It is run by
// hand, from the repository root, not by go test:
//
//	go run ./cmd/offsetlab-restart-bench                       # 3 GiB over 16 partitions under /tmp
//	go run ./cmd/offsetlab-restart-bench --bytes 6GiB --partitions 34
//
// It builds cmd/server (or runs --server), starts it on a fresh data
// directory with no data budget, fills --partitions topics of one partition
// each with --bytes of incompressible records, and then restarts it twice:
// once after SIGTERM (a clean shutdown, which writes each partition's
// snapshot) and once after SIGKILL (which makes the broker replay every
// segment). For each start it reports the time until /healthz answers and
// the server's peak resident memory until then (VmHWM, from the child's
// /proc/PID/status), and checks that every record is still there. The data
// directory is removed at the end unless --keep is given. Check free space
// first (df -h /tmp): it writes --bytes and a little more.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "offsetlab-restart-bench:", err)
		os.Exit(1)
	}
}

type config struct {
	server     string
	dir        string
	keep       bool
	bytes      int64
	partitions int
	valueBytes int
	extraArgs  []string
}

func parse(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("offsetlab-restart-bench", flag.ContinueOnError)
	fs.StringVar(&c.server, "server", "", "the server binary; empty builds ./cmd/server")
	fs.StringVar(&c.dir, "dir", "", "the data directory to fill (must not exist); empty makes one under $TMPDIR")
	fs.BoolVar(&c.keep, "keep", false, "keep the data directory afterwards")
	size := fs.String("bytes", "3GiB", "how much record data to write")
	fs.IntVar(&c.partitions, "partitions", 16, "topics of one partition each to spread it over")
	fs.IntVar(&c.valueBytes, "value-bytes", 16<<10, "size of each record value")
	extra := fs.String("server-args", "--embedded-max-bytes=none", "extra server flags, space-separated (a server without the data budget: empty)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	n, err := parseSize(*size)
	if err != nil {
		return c, fmt.Errorf("--bytes %q: %w", *size, err)
	}
	c.bytes = n
	c.extraArgs = strings.Fields(*extra)
	if c.partitions < 1 || c.valueBytes < 1 {
		return c, errors.New("--partitions and --value-bytes must be positive")
	}
	return c, nil
}

func parseSize(v string) (int64, error) {
	for _, u := range []struct {
		s string
		n int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if num, ok := strings.CutSuffix(v, u.s); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			return n * u.n, err
		}
	}
	return strconv.ParseInt(v, 10, 64)
}

func run(ctx context.Context, args []string, out io.Writer) error {
	cfg, err := parse(args)
	if err != nil {
		return err
	}
	if cfg.server == "" {
		bin, err := os.MkdirTemp("", "offsetlab-restart-bench-bin-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(bin)
		cfg.server = filepath.Join(bin, "offsetlab")
		build := exec.Command("go", "build", "-o", cfg.server, "./cmd/server")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/server (run from the repository root): %w", err)
		}
	}
	if cfg.dir == "" {
		parent, err := os.MkdirTemp("", "offsetlab-restart-bench-")
		if err != nil {
			return err
		}
		cfg.dir = filepath.Join(parent, "data")
		if !cfg.keep {
			defer os.RemoveAll(parent)
		}
	} else if !cfg.keep {
		defer os.RemoveAll(cfg.dir)
	}

	srv, err := start(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "empty data dir:      ready in %6.2f s, peak RSS %7.1f MiB\n", srv.ready.Seconds(), mib(srv.peak))
	began := time.Now()
	want, err := fill(ctx, srv.kafka, cfg)
	if err != nil {
		srv.kill()
		return err
	}
	elapsed := time.Since(began)
	du := dirBytes(cfg.dir)
	fmt.Fprintf(out, "wrote %.2f GiB (%d records, %d partitions) in %.1f s; data dir %.2f GiB\n",
		float64(cfg.bytes)/(1<<30), sum(want), cfg.partitions, elapsed.Seconds(), float64(du)/(1<<30))
	rss, _ := procStatus(srv.cmd.Process.Pid, "VmRSS:")
	fmt.Fprintf(out, "after writing:       RSS %7.1f MiB\n", mib(rss))

	for _, how := range []string{"clean", "kill -9"} {
		if how == "clean" {
			srv.stop(syscall.SIGTERM)
		} else {
			srv.stop(syscall.SIGKILL)
		}
		if srv, err = start(cfg); err != nil {
			return err
		}
		got, err := endOffsets(ctx, srv.kafka, cfg.partitions)
		if err != nil {
			srv.kill()
			return err
		}
		status := "all records there"
		for i := range want {
			if got[i] != want[i] {
				status = fmt.Sprintf("LOST RECORDS: partition %d ends at %d, %d were acknowledged", i, got[i], want[i])
			}
		}
		fmt.Fprintf(out, "restart after %-7s ready in %6.2f s, peak RSS %7.1f MiB (%s)\n", how+":", srv.ready.Seconds(), mib(srv.peak), status)
	}
	srv.stop(syscall.SIGTERM)
	return nil
}

// server is the server binary running as a child process.
type server struct {
	cmd   *exec.Cmd
	url   string
	kafka string
	ready time.Duration // from exec to the first 200 from /healthz
	peak  int64         // VmHWM then
	done  chan struct{}
}

var (
	urlRe   = regexp.MustCompile(`url=(http://\S+)`)
	kafkaRe = regexp.MustCompile(`kafkaAddr=(\S+)`)
)

func start(cfg config) (*server, error) {
	args := append([]string{"--addr", "127.0.0.1:0", "--kafka-addr", "127.0.0.1:0", "--data-dir", cfg.dir}, cfg.extraArgs...)
	cmd := exec.Command(cfg.server, args...)
	cmd.Env = append(os.Environ(), "OFFSETLAB_ADDR=", "OFFSETLAB_KAFKA_ADDR=", "OFFSETLAB_DATA_DIR=", "OFFSETLAB_BROKERS=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	found := make(chan struct{})
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if m := kafkaRe.FindStringSubmatch(line); m != nil && s.kafka == "" {
				s.kafka = m[1]
			}
			if m := urlRe.FindStringSubmatch(line); m != nil {
				s.url = m[1]
				once.Do(func() { close(found) })
			}
		}
		once.Do(func() { close(found) })
	}()
	go func() { cmd.Wait(); close(s.done) }()
	select {
	case <-found:
	case <-time.After(10 * time.Minute):
		s.kill()
		return nil, errors.New("the server did not log its address within 10 minutes")
	}
	if s.url == "" {
		return nil, errors.New("the server exited before it logged its address")
	}
	for {
		resp, err := http.Get(s.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-s.done:
			return nil, errors.New("the server exited before /healthz answered")
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.ready = time.Since(began)
	s.peak, err = procStatus(cmd.Process.Pid, "VmHWM:")
	return s, err
}

func (s *server) stop(sig syscall.Signal) {
	_ = s.cmd.Process.Signal(sig)
	<-s.done
}

func (s *server) kill() { s.stop(syscall.SIGKILL) }

// fill writes cfg.bytes of random values over cfg.partitions topics, one
// producer per topic, and returns each topic's end offset.
func fill(ctx context.Context, kafka string, cfg config) ([]int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for i := range cfg.partitions {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topicName(i)); err != nil {
			return nil, err
		}
	}
	perTopic := cfg.bytes / int64(cfg.partitions) / int64(cfg.valueBytes)
	counts := make([]int64, cfg.partitions)
	errs := make([]error, cfg.partitions)
	var wg sync.WaitGroup
	for i := range cfg.partitions {
		wg.Go(func() {
			p, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.ProducerBatchCompression(kgo.NoCompression()),
				kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedBytes(16<<20), kgo.DefaultProduceTopic(topicName(i)))
			if err != nil {
				errs[i] = err
				return
			}
			defer p.Close()
			var mu sync.Mutex
			for range perTopic {
				v := make([]byte, cfg.valueBytes)
				_, _ = rand.Read(v)
				p.Produce(ctx, &kgo.Record{Value: v}, func(_ *kgo.Record, err error) {
					mu.Lock()
					defer mu.Unlock()
					if err != nil && errs[i] == nil {
						errs[i] = err
					} else if err == nil {
						counts[i]++
					}
				})
			}
			if err := p.Flush(ctx); err != nil && errs[i] == nil {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	return counts, errors.Join(errs...)
}

// endOffsets is each topic's high watermark.
func endOffsets(ctx context.Context, kafka string, partitions int) ([]int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	topics := make([]string, partitions)
	for i := range topics {
		topics[i] = topicName(i)
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topics...)
	if err != nil {
		return nil, err
	}
	out := make([]int64, partitions)
	for i, t := range topics {
		o, _ := ends.Lookup(t, 0)
		if o.Err != nil {
			return nil, o.Err
		}
		out[i] = o.Offset
	}
	return out, nil
}

func topicName(i int) string { return fmt.Sprintf("restart-bench-%02d", i) }

// procStatus reads one kB field of /proc/PID/status, in bytes.
func procStatus(pid int, field string) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

func sum(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
