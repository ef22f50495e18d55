package e2e

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestHostileKafkaBudget: a student floods the embedded broker's Kafka
// port from another host (127.0.0.2) with small records as fast as kgo
// sends them. The server must refuse the flood at the student's share of
// the data budget with POLICY_VIOLATION, keep every record it acknowledged,
// answer /healthz, and stay within bounds of RSS (measured against the
// baseline of this run) and disk (the budget); a second student still
// writes within its share. When the teacher's side fills the whole budget,
// the dashboard's own produce is refused with the catalogue's sentence
// (507) and /api/cluster says the budget is full; deleting the flooded
// topic gives the space back and the dashboard writes again.
func TestHostileKafkaBudget(t *testing.T) {
	testenv.Long(t, "it floods the server binary's data budget")
	t.Parallel()
	const budget, share = 48 << 20, 8 << 20
	dir := t.TempDir()
	srv := startServerProcess(t, "--data-dir", dir, "--embedded-max-bytes", "48MiB", "--embedded-client-max-bytes", "8MiB")
	a := srv.app("budget")
	acked := a.name("acked")
	a.createTopic(acked)
	var want []string
	for _, v := range []string{"before-1", "before-2", "before-3"} {
		produceOne(t, a, acked, v, http.StatusOK)
		want = append(want, v)
	}
	a.log(acked)
	baseline, err := srv.rssBytes()
	if err != nil {
		t.Skipf("no RSS to measure: %v", err)
	}
	// The data itself is on disk; what the flood may add to RSS is the
	// index (88 bytes per stored batch: 48 MiB of budget holds at most
	// 280,000 batches of the smallest size, 24 MiB) and the guard's
	// request buffers (see TestHostileKafkaClients).
	const rssHeadroom = 120 << 20
	t.Logf("before the flood: RSS %s, data dir %s", mib(baseline), mib(dataDirBytes(dir)))

	check := func(when string) {
		t.Helper()
		resp, err := http.Get(srv.url + "/healthz")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: GET /healthz: %v %v", when, resp, err)
		}
		resp.Body.Close()
		rss, err := srv.rssBytes()
		if err != nil {
			t.Fatal(err)
		}
		disk, broker := dataDirBytes(dir), dataDirBytes(dir)-dataDirBytes(filepath.Join(dir, "history"))
		t.Logf("%-30s RSS %s (%+.1f MiB), data dir %s (broker %s, the rest the partitions' histories)",
			when+":", mib(rss), float64(rss-baseline)/(1<<20), mib(disk), mib(broker))
		if rss > baseline+rssHeadroom {
			t.Errorf("%s: RSS %s, over the bound %s", when, mib(rss), mib(baseline+rssHeadroom))
		}
		if broker > budget+(1<<20) {
			t.Errorf("%s: the broker's files take %s, over the budget %s", when, mib(broker), mib(budget))
		}
		var got []string
		for _, e := range a.log(acked).Entries {
			if e.Value != nil {
				got = append(got, *e.Value)
			}
		}
		equal(t, "acknowledged records "+when, got, want)
	}

	flood := a.name("flood")
	a.createTopic(flood)
	student := remoteProducer(t, srv.kafkaAddr, net.IPv4(127, 0, 0, 2))
	stored, err := floodTopic(student, flood, 512, 100_000)
	if !errors.Is(err, kerr.PolicyViolation) {
		t.Fatalf("the flood stored %d records and ended with %v, want POLICY_VIOLATION", stored, err)
	}
	if got := endOffsetsOf(context.Background(), t, srv.kafkaAddr, []string{flood})[0]; got != stored {
		t.Errorf("the flooded topic ends at %d, %d records were acknowledged", got, stored)
	}
	if stored*512 > share {
		t.Errorf("the student stored %d records of 512 bytes, more than its %s share", stored, mib(share))
	}
	check("after the student's flood")

	second := a.name("second")
	a.createTopic(second)
	if n, err := floodTopic(remoteProducer(t, srv.kafkaAddr, net.IPv4(127, 0, 0, 3)), second, 512, 200); err != nil {
		t.Errorf("a second student was refused after %d records: %v", n, err)
	}

	// The teacher's side (this host) has no share: it fills the budget.
	filler := a.name("filler")
	a.createTopic(filler)
	teacher := remoteProducer(t, srv.kafkaAddr, nil)
	if n, err := floodTopic(teacher, filler, 64<<10, 10_000); !errors.Is(err, kerr.PolicyViolation) {
		t.Fatalf("filling the budget stored %d records and ended with %v, want POLICY_VIOLATION", n, err)
	}
	check("with the budget full")
	status := clusterBudget(t, a)
	if !status.Full || status.UsedBytes > status.MaxBytes || status.MaxBytes != budget {
		t.Errorf("/api/cluster budget with the budget full: %+v", status)
	}
	body := produceOne(t, a, acked, "refused", http.StatusInsufficientStorage)
	if body.Code != "error.budgetFull" {
		t.Errorf("the dashboard's produce with the budget full answered %+v, want error.budgetFull", body)
	}

	usedFull, diskFull := status.UsedBytes, dataDirBytes(dir)
	a.do("DELETE", "/api/topics/"+filler+"?confirm="+filler, nil, http.StatusNoContent, nil)
	status = clusterBudget(t, a)
	disk := dataDirBytes(dir)
	t.Logf("after deleting %s: budget %s of %s used (was %s), data dir %s (was %s)", filler, mib(status.UsedBytes), mib(status.MaxBytes), mib(usedFull), mib(disk), mib(diskFull))
	if status.Full || status.UsedBytes >= usedFull-(16<<20) || disk >= diskFull-(16<<20) {
		t.Errorf("deleting the filler gave back %s of budget and %s of disk, want most of the budget", mib(usedFull-status.UsedBytes), mib(diskFull-disk))
	}
	produceOne(t, a, acked, "after-delete", http.StatusOK)
	want = append(want, "after-delete")
	check("after deleting the filler")
}

// produceOne produces value through the API, expecting status.
func produceOne(t *testing.T, a *app, topic, value string, status int) errorAnswer {
	t.Helper()
	var out struct {
		produceOutcome
		errorAnswer
	}
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{value}, "acks": "all"}, status, &out)
	if status == http.StatusOK && (len(out.Results) != 1 || out.Results[0].Error != nil) {
		t.Fatalf("produce %q: %+v", value, out.Results)
	}
	return out.errorAnswer
}

type budgetAnswer struct {
	UsedBytes int64 `json:"usedBytes"`
	MaxBytes  int64 `json:"maxBytes"`
	Full      bool  `json:"full"`
}

func clusterBudget(t *testing.T, a *app) budgetAnswer {
	t.Helper()
	var c struct {
		Budget *budgetAnswer `json:"budget"`
	}
	a.do("GET", "/api/cluster", nil, http.StatusOK, &c)
	if c.Budget == nil {
		t.Fatal("/api/cluster has no budget for the embedded broker")
	}
	return *c.Budget
}

// remoteProducer is a producer whose connections come from ip (another
// loopback address is another host to the Kafka port); nil is this host.
func remoteProducer(t *testing.T, kafka string, ip net.IP) *kgo.Client {
	t.Helper()
	d := &net.Dialer{Timeout: 3 * time.Second}
	if ip != nil {
		d.LocalAddr = &net.TCPAddr{IP: ip}
		probe, err := d.Dial("tcp", kafka)
		if err != nil {
			t.Skipf("cannot dial from %s: %v", ip, err)
		}
		probe.Close()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka), kgo.Dialer(d.DialContext), kgo.ProducerLinger(0),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.RecordDeliveryTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// floodTopic sends up to n random values of size bytes as fast as the
// client takes them and returns how many were acknowledged and the first
// error.
func floodTopic(cl *kgo.Client, topic string, size, n int) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var (
		mu       sync.Mutex
		stored   int64
		firstErr error
		wg       sync.WaitGroup
	)
	for range n {
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
		v := make([]byte, size)
		_, _ = rand.Read(v)
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Topic: topic, Value: v}, func(_ *kgo.Record, err error) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				stored++
			} else if firstErr == nil {
				firstErr = err
			}
		})
	}
	wg.Wait()
	return stored, firstErr
}

// dataDirBytes is the size of the files under dir.
func dataDirBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}
