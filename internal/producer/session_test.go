package producer_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// connect returns the embedded broker, or the real cluster named by
// OFFSETLAB_KAFKA_BROKERS when realKafka is true (skipping when unset).
func connect(t *testing.T, realKafka bool) *cluster.Cluster {
	t.Helper()
	var c *cluster.Cluster
	var err error
	if realKafka {
		testenv.Needs(t, testenv.JVM)
		brokers := os.Getenv("OFFSETLAB_KAFKA_BROKERS")
		if brokers == "" {
			testenv.MissingSetup(t, "real Kafka tests skipped: set OFFSETLAB_KAFKA_BROKERS=host:port")
		}
		c, err = cluster.ConnectExternal(cluster.ExternalConfig{Brokers: strings.Split(brokers, ",")})
	} else {
		c, err = embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestZombieFencing: two Sessions are two processes sharing one
// transactional.id. The second Begin fences the first; the first's next
// Send reports Fenced (INVALID_PRODUCER_EPOCH) and its session is gone,
// while the second commits.
func TestZombieFencing(t *testing.T) {
	t.Parallel()
	for _, realKafka := range []bool{false, true} {
		t.Run(map[bool]string{false: "embedded", true: "kafka"}[realKafka], func(t *testing.T) {
			t.Parallel()
			c := connect(t, realKafka)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			topic := "zombie-" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "-")
			if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil {
				t.Fatal(err)
			}
			id := topic + "-app"
			zombie, successor := producer.NewSessions(producer.Connection{Opts: c.ClientOpts()}, producer.SessionLimits{}), producer.NewSessions(producer.Connection{Opts: c.ClientOpts()}, producer.SessionLimits{})
			t.Cleanup(zombie.Close)
			t.Cleanup(successor.Close)

			first, err := zombie.Begin(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := zombie.Send(ctx, id, producer.Request{Topic: topic, Values: producer.Values("from the zombie")}); err != nil {
				t.Fatal(err)
			}
			second, err := successor.Begin(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if second.ProducerID != first.ProducerID || second.ProducerEpoch <= first.ProducerEpoch {
				t.Fatalf("successor %+v: want producer id %d with an epoch above %d", second, first.ProducerID, first.ProducerEpoch)
			}
			st, err := zombie.Send(ctx, id, producer.Request{Topic: topic, Values: producer.Values("late write", "never sent")})
			if err != nil {
				t.Fatal(err)
			}
			if !st.Fenced || st.InTransaction || len(st.Results) != 1 || st.Results[0].Error == nil || !strings.Contains(*st.Results[0].Error, "INVALID_PRODUCER_EPOCH") {
				t.Fatalf("zombie send after the fence = %+v; want fenced with INVALID_PRODUCER_EPOCH, stopping at the first value", st)
			}
			if _, err := zombie.End(ctx, id, true); !problem.Is(err, "error.sessionMissing") {
				t.Fatalf("zombie commit after its fence: %v, want 'no session' (a fenced producer is closed)", err)
			}
			if _, err := successor.Send(ctx, id, producer.Request{Topic: topic, Values: producer.Values("from the successor")}); err != nil {
				t.Fatal(err)
			}
			if _, err := successor.End(ctx, id, true); err != nil {
				t.Fatalf("successor commit: %v", err)
			}
		})
	}
}
