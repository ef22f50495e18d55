package e2e

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestRestartMemoryBounded restarts the server on a data directory of 48
// MiB, after a clean shutdown and after kill -9, and checks that the
// restart's peak memory does not follow the data: the embedded broker
// streams its segments and loads a few partitions at a time
// (third_party/kfake/persist_load.go), so a restart may take at most a
// quarter of the data's size above the peak of a start on an empty
// directory, measured in this run. Reading each partition whole, as kfake
// did, takes more than the data's size. Every acknowledged record must be
// there after each restart. cmd/offsetlab-restart-bench measures the same
// at a few GB.
func TestRestartMemoryBounded(t *testing.T) {
	testenv.Long(t, "it restarts the server binary on 48 MiB of data, twice")
	t.Parallel()
	const (
		partitions = 4
		valueBytes = 16 << 10
		dataBytes  = 48 << 20
	)
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--embedded-max-bytes", "none"}
	srv := startServerProcess(t, args...)
	baseline := peakRSS(t, srv)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topics := make([]string, partitions)
	for i := range topics {
		topics[i] = fmt.Sprintf("restart-memory-%d", i)
	}
	want := writeIncompressible(ctx, t, srv.kafkaAddr, topics, dataBytes/partitions/valueBytes, valueBytes)
	bound := baseline + dataBytes/4
	t.Logf("peak RSS of a start on an empty data dir %s; restart bound %s", mib(baseline), mib(bound))

	for _, how := range []string{"clean shutdown", "kill -9"} {
		if how == "kill -9" {
			srv.kill()
		} else {
			terminate(t, srv)
		}
		srv = startServerProcess(t, args...)
		peak := peakRSS(t, srv)
		t.Logf("restart after %s: peak RSS %s", how, mib(peak))
		if peak > bound {
			t.Errorf("restart after %s: peak RSS %s, over the bound %s (data %s)", how, mib(peak), mib(bound), mib(dataBytes))
		}
		got := endOffsetsOf(ctx, t, srv.kafkaAddr, topics)
		for i, topic := range topics {
			if got[i] != want[i] {
				t.Errorf("after %s %s ends at %d, %d records were acknowledged", how, topic, got[i], want[i])
			}
		}
	}
}

// writeIncompressible produces n random values of size bytes to each
// topic (creating them) and returns how many each was acknowledged.
func writeIncompressible(ctx context.Context, t *testing.T, kafka string, topics []string, n, size int) []int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.ProducerBatchMaxBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopics(ctx, 1, 1, nil, topics...); err != nil {
		t.Fatal(err)
	}
	acked := make([]int64, len(topics))
	for i, topic := range topics {
		records := make([]*kgo.Record, n)
		for j := range records {
			v := make([]byte, size)
			_, _ = rand.Read(v)
			records[j] = &kgo.Record{Topic: topic, Value: v}
		}
		if err := cl.ProduceSync(ctx, records...).FirstErr(); err != nil {
			t.Fatalf("produce to %s: %v", topic, err)
		}
		acked[i] = int64(n)
	}
	return acked
}

// endOffsetsOf is the high watermark of partition 0 of each topic.
func endOffsetsOf(ctx context.Context, t *testing.T, kafka string, topics []string) []int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topics...)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(topics))
	for i, topic := range topics {
		o, ok := ends.Lookup(topic, 0)
		if !ok || o.Err != nil {
			t.Fatalf("end offset of %s: %v", topic, o.Err)
		}
		out[i] = o.Offset
	}
	return out
}

// peakRSS is the server's peak resident set size so far (VmHWM).
func peakRSS(t *testing.T, p *serverProcess) int64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc to measure memory: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	t.Skipf("no VmHWM in /proc/%d/status", p.cmd.Process.Pid)
	return 0
}

// terminate stops the server as a teacher's Ctrl-C does, and waits.
func terminate(t *testing.T, p *serverProcess) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		t.Fatalf("the server did not stop within a minute of SIGTERM; log:\n%s", p.logText())
	}
}
