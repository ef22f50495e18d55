package e2e

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/offsetlab/offsetlab/internal/cluster"
	embeddedbroker "github.com/offsetlab/offsetlab/internal/embedded"
)

// outageBroker is an embedded broker that Offset Lab reaches as an external
// cluster at a fixed loopback address, so that a test can take it away and
// bring it back at the same address with its data. Tests use it instead of
// the shared real Kafka, which they must not stop.
type outageBroker struct {
	t      *testing.T
	addr   string
	dir    string
	broker *cluster.Cluster
}

// newOutageBroker starts the broker and returns it with a connection to it
// (closed when the test ends). Its port lies below the kernel's ephemeral
// range, so no listener of another test asking for port 0 can take it while
// the broker is away.
func newOutageBroker(t *testing.T) (*outageBroker, *cluster.Cluster) {
	t.Helper()
	o := &outageBroker{t: t, dir: t.TempDir()}
	for try := 0; o.broker == nil; try++ {
		// 12000-19999: below the ephemeral range, and apart from the
		// local Kafka's 20000 and up (internal/localkafka).
		o.addr = fmt.Sprintf("127.0.0.1:%d", 12000+rand.IntN(8000))
		b, err := embeddedbroker.Start(embeddedbroker.Config{KafkaAddr: o.addr, DataDir: o.dir})
		if err != nil && try > 20 {
			t.Fatalf("start a broker below the ephemeral port range: %v", err)
		}
		o.broker = b
	}
	t.Cleanup(func() { o.broker.Close() })
	kafka, err := cluster.ConnectExternal(cluster.ExternalConfig{Brokers: []string{o.addr}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kafka.Close)
	return o, kafka
}

// stop takes the broker away, as a crashed or unplugged broker would go.
func (o *outageBroker) stop() { o.broker.Close() }

// start (re)starts the broker at its address on its data directory.
func (o *outageBroker) start() {
	o.t.Helper()
	b, err := embeddedbroker.Start(embeddedbroker.Config{KafkaAddr: o.addr, DataDir: o.dir})
	if err != nil {
		o.t.Fatalf("start the broker at %s: %v", o.addr, err)
	}
	o.broker = b
}
