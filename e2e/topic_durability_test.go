package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestKillNineKeepsEveryTopic creates a topic on the server binary in each
// way a topic comes to exist on the embedded broker, produces to it, kills
// the server with SIGKILL and starts it again on the same data directory.
// Every acknowledged record must be there, the high watermark must count
// exactly them, and a consumer from offset 0 must read exactly them: no
// record of an older topic of the same name, which once lay in the
// partition's directory and was read back in place of the new records.
func TestKillNineKeepsEveryTopic(t *testing.T) {
	t.Parallel()
	testenv.Long(t, "it kills and restarts the server binary for each way a topic comes to exist")
	tests := []struct {
		name string
		// exist makes topic exist on the server and produces to it; it
		// returns the values acknowledged in the topic's latest
		// incarnation, in offset order from offset 0.
		exist func(t *testing.T, s *persistedServer, topic string) []string
	}{
		{"created with CreateTopics", func(t *testing.T, s *persistedServer, topic string) []string {
			s.p.app("").createTopic(topic)
			return produceValues(t, s.p.kafkaAddr, topic, "created", 1000, false)
		}},
		{"auto-created by a franz-go producer", func(t *testing.T, s *persistedServer, topic string) []string {
			return produceValues(t, s.p.kafkaAddr, topic, "auto", 1000, true)
		}},
		{"auto-created by kcat", func(t *testing.T, s *persistedServer, topic string) []string {
			return produceWithKcat(t, s.p.kafkaAddr, topic, 1000)
		}},
		{"auto-created by Metadata alone", func(t *testing.T, s *persistedServer, topic string) []string {
			autoCreateByMetadata(t, s.p.kafkaAddr, topic)
			// The topic alone must survive a kill, before any record.
			s.killAndRestart(t)
			if hw := s.p.app("").log(topic).HighWatermark; hw != 0 {
				t.Fatalf("HW of the topic Metadata created, after kill -9 = %d, want 0", hw)
			}
			return produceValues(t, s.p.kafkaAddr, topic, "metadata", 1000, false)
		}},
		{"deleted and created again by a producer", func(t *testing.T, s *persistedServer, topic string) []string {
			a := s.p.app("")
			a.createTopic(topic)
			produceValues(t, s.p.kafkaAddr, topic, "old", 1000, false)
			a.do("DELETE", "/api/topics/"+topic+"?confirm="+topic, nil, http.StatusNoContent, nil)
			return produceValues(t, s.p.kafkaAddr, topic, "new", 10, true)
		}},
		{"created again over an orphaned directory", func(t *testing.T, s *persistedServer, topic string) []string {
			// What an auto-created topic left behind before it was
			// persisted: its partition's directory, unnamed in
			// topics.json.
			produceValues(t, s.p.kafkaAddr, topic, "orphaned", 1000, true)
			s.p.kill()
			forgetTopics(t, s.dir)
			s.p = startServerProcess(t, "--data-dir", s.dir)
			return produceValues(t, s.p.kafkaAddr, topic, "new", 10, true)
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			topic := fmt.Sprintf("durable-%d", i)
			dir := t.TempDir()
			s := &persistedServer{dir: dir, p: startServerProcess(t, "--data-dir", dir)}
			acked := tc.exist(t, s, topic)
			s.killAndRestart(t)
			assertTopicHolds(t, s.p, topic, acked)

			// A producer goes on where the acknowledged records stop.
			more := produceValues(t, s.p.kafkaAddr, topic, "after", 10, false)
			assertTopicHolds(t, s.p, topic, append(acked, more...))
		})
	}
}

// persistedServer is the server binary over one data directory.
type persistedServer struct {
	dir string
	p   *serverProcess
}

// killAndRestart kills the server with SIGKILL and starts it again on the
// same data directory.
func (s *persistedServer) killAndRestart(t *testing.T) {
	t.Helper()
	s.p.kill()
	s.p = startServerProcess(t, "--data-dir", s.dir)
}

// assertTopicHolds checks that partition 0 of topic holds exactly values
// from offset 0: the dashboard's high watermark and a consumer's records.
func assertTopicHolds(t *testing.T, s *serverProcess, topic string, values []string) {
	t.Helper()
	if hw := s.app("").log(topic).HighWatermark; hw != int64(len(values)) {
		t.Fatalf("HW of %s after kill -9 = %d, want %d (the acknowledged records)", topic, hw, len(values))
	}
	got := consumeValues(t, s.kafkaAddr, topic, len(values))
	equal(t, "records of "+topic+" from offset 0 after kill -9", got, values)
}

// produceValues produces n records "prefix-0" … to partition 0 of topic and
// returns their values in offset order; every one must be acknowledged.
// With autoCreate the producer asks Metadata to create the topic, as
// Kafka's clients do by default.
func produceValues(t *testing.T, addr, topic, prefix string, n int, autoCreate bool) []string {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner())}
	if autoCreate {
		opts = append(opts, kgo.AllowAutoTopicCreation())
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: fmt.Appendf(nil, "%s-%d", prefix, i)}
	}
	results := cl.ProduceSync(ctx, recs...)
	if err := results.FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
	values := make([]string, 0, n)
	for _, r := range results {
		values = append(values, string(r.Record.Value))
	}
	return values
}

// produceWithKcat produces n lines to topic with kcat (librdkafka, which
// asks Metadata to create a missing topic) and returns them; kcat exits 0
// only when every message was delivered.
func produceWithKcat(t *testing.T, addr, topic string, n int) []string {
	t.Helper()
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		testenv.MissingSetup(t, "kcat is not installed: %v", err)
	}
	values := make([]string, n)
	for i := range values {
		values[i] = fmt.Sprintf("kcat-%d", i)
	}
	cmd := exec.Command(kcat, "-P", "-b", addr, "-t", topic, "-p", "0", "-X", "acks=all")
	cmd.Stdin = strings.NewReader(strings.Join(values, "\n") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kcat -P -t %s: %v\n%s", topic, err, out)
	}
	return values
}

// autoCreateByMetadata sends one Metadata request for topic with
// AllowAutoTopicCreation, as a client does before it produces.
func autoCreateByMetadata(t *testing.T, addr, topic string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	req.AllowAutoTopicCreation = true
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 || len(resp.Topics[0].Partitions) == 0 {
		t.Fatalf("Metadata with AllowAutoTopicCreation for %s answered %+v", topic, resp.Topics)
	}
}

// consumeValues reads partition 0 of topic from offset 0 until it holds n
// records and returns their values; a record at an offset other than the
// next one expected fails the test.
func consumeValues(t *testing.T, addr, topic string, n int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var values []string
	for len(values) < n {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consume %s: %d of %d records within the deadline: %v", topic, len(values), n, err)
		}
		if errs := fetches.Errors(); len(errs) > 0 {
			t.Fatalf("consume %s: %v", topic, errs[0].Err)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if r.Offset != int64(len(values)) {
				t.Fatalf("consume %s: record at offset %d (%q), want offset %d", topic, r.Offset, r.Value, len(values))
			}
			values = append(values, string(r.Value))
		})
	}
	return values
}

// forgetTopics rewrites the embedded broker's topics.json in dir to name no
// topic, leaving the partitions' directories in place.
func forgetTopics(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "topics.json"), []byte(`{"version":1,"topics":null}`), 0o644); err != nil {
		t.Fatal(err)
	}
}
