package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestHostileTopicFlood is the topic flood of the second hardening round:
// through the Kafka port a student asks for 50 topics of 1,000 partitions
// and then 5,000 topics, and auto-creates topics by producing to them.
// The embedded broker holds at most its caps (the defaults, named here),
// refusing the rest with POLICY_VIOLATION; /topics then answers one page,
// not megabytes, also to 16 parallel reloads. After each step the server
// answers /healthz, its RSS stays within a bound of the baseline measured
// in this run, and the acknowledged records are all there.
func TestHostileTopicFlood(t *testing.T) {
	t.Parallel()
	const maxTopics, maxPartitions = 1000, 5000
	srv := startServerProcess(t, "--data-dir", t.TempDir(), "--memory-limit", "160",
		"--embedded-max-topics", fmt.Sprint(maxTopics), "--embedded-max-partitions", fmt.Sprint(maxPartitions))
	a := srv.app(randomSuffix(t))
	kept := a.name("kept")
	a.createTopic(kept)
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf("acknowledged-%d", i))
	}
	var out produceOutcome
	a.do("POST", "/api/produce", map[string]any{"topic": kept, "values": want, "acks": "all"}, http.StatusOK, &out)
	a.do("GET", "/topics", nil, http.StatusOK, nil) // warm the page before measuring
	baseline := checkHealthy(t, srv, "setup", 1<<20)
	// Without the caps 55k partitions took the server to 968 MB; with
	// them the broker's 5,000 empty partitions and a page's reads fit in
	// 120 MiB over the baseline.
	bound := baseline + 120
	check := func(what string) {
		t.Helper()
		checkHealthy(t, srv, what, bound)
		got := a.log(kept)
		var values []string
		for _, e := range got.Entries {
			if e.Value != nil {
				values = append(values, *e.Value)
			}
		}
		equal(t, "acknowledged records after "+what, values, want)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(srv.kafkaAddr), kgo.AllowAutoTopicCreation(), kgo.UnknownTopicRetries(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	flood := func(what string, topics, partitions, batch int) (created, refused int) {
		t.Helper()
		for start := 0; start < topics; start += batch {
			var names []string
			for i := start; i < min(start+batch, topics); i++ {
				names = append(names, fmt.Sprintf("%s-%d-%s", what, i, a.suffix))
			}
			resp, err := adm.CreateTopics(ctx, int32(partitions), 1, nil, names...)
			if err != nil {
				t.Fatalf("%s: CreateTopics: %v", what, err)
			}
			for _, r := range resp {
				switch {
				case r.Err == nil:
					created++
				case errors.Is(r.Err, kerr.PolicyViolation) && strings.Contains(r.ErrMessage, "delete topics to make room"):
					refused++
				default:
					t.Fatalf("%s: topic %s: %v %q, want success or POLICY_VIOLATION with the cap's message", what, r.Topic, r.Err, r.ErrMessage)
				}
			}
		}
		t.Logf("%s: %d created, %d refused POLICY_VIOLATION", what, created, refused)
		return created, refused
	}

	wide, _ := flood("wide", 50, 1000, 5)
	if wide != (maxPartitions-1)/1000 {
		t.Errorf("%d topics of 1,000 partitions were created, want the %d that fit %d partitions", wide, (maxPartitions-1)/1000, maxPartitions)
	}
	check("50 topics x 1,000 partitions")
	many, _ := flood("many", 5000, 1, 500)
	check("5,000 topics")

	res := cl.ProduceSync(ctx, &kgo.Record{Topic: "auto-" + a.suffix, Value: []byte("x")})
	if err := res.FirstErr(); !errors.Is(err, kerr.PolicyViolation) {
		t.Errorf("producing to a new topic past the caps: %v, want POLICY_VIOLATION", err)
	}
	// The client keeps asking for the topic (auto-creating) while it
	// lives: it would take the room a delete makes below.
	cl.Close()

	var refusal struct {
		Code string `json:"code"`
	}
	a.do("POST", "/api/topics", map[string]any{"name": a.name("one-more"), "partitions": 1}, http.StatusConflict, &refusal)
	if refusal.Code != "error.topicLimit" {
		t.Errorf("the dashboard's create past the caps: code %q, want error.topicLimit", refusal.Code)
	}

	var list struct {
		Total  int `json:"total"`
		Topics []struct {
			Partitions []struct{} `json:"partitions"`
		} `json:"topics"`
	}
	// The dashboard's client caches metadata for a few seconds
	// (franz-go's MetadataMinAge): wait for a list that has the flood.
	partitions := 0
	waitFor(t, "the dashboard's topic list to show the created topics", 20*time.Second, func() bool {
		a.do("GET", "/api/topics", nil, http.StatusOK, &list)
		partitions = 0
		for _, tp := range list.Topics {
			partitions += len(tp.Partitions)
		}
		return list.Total >= 1+wide+many
	})
	t.Logf("the broker holds %d topics, %d partitions (caps %d, %d)", list.Total, partitions, maxTopics, maxPartitions)
	if list.Total > maxTopics || partitions > maxPartitions || list.Total != 1+wide+many {
		t.Errorf("the broker holds %d topics and %d partitions; want at most %d and %d, and the %d created", list.Total, partitions, maxTopics, maxPartitions, 1+wide+many)
	}

	// 16 parallel reloads of /topics: each is one page; those past the
	// read limiter wait or get 503, none takes the server down.
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		largest  int
		reloads  sync.WaitGroup
	)
	for range 16 {
		reloads.Go(func() {
			resp, err := http.Get(srv.url + "/topics")
			if err != nil {
				t.Error(err)
				return
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mu.Lock()
			statuses[resp.StatusCode]++
			largest = max(largest, int(n))
			mu.Unlock()
		})
	}
	reloads.Wait()
	t.Logf("16 parallel reloads of /topics: statuses %v, largest page %d KiB", statuses, largest>>10)
	if largest > 1<<20 {
		t.Errorf("a page of /topics is %d KiB; it should be one page (50 topics), well under 1 MiB", largest>>10)
	}
	if statuses[http.StatusOK] == 0 {
		t.Errorf("no reload of /topics succeeded: %v", statuses)
	}
	check("16 parallel reloads of /topics")

	// The teacher frees room by deleting a topic; then a topic fits again.
	doomed := fmt.Sprintf("many-0-%s", a.suffix)
	a.do("DELETE", "/api/topics/"+doomed+"?confirm="+doomed, nil, http.StatusNoContent, nil)
	a.createTopic(a.name("after-delete"))
	check("a delete and a create")
}
