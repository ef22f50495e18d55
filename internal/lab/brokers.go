package lab

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// BrokersStatus is the Brokers panel: the nodes when the server runs them,
// else how to stop a broker by hand.
type BrokersStatus struct {
	// Managed is true when the server runs the brokers and can stop and
	// start them; Hint is then zero.
	Managed bool              `json:"managed"`
	Nodes   []localkafka.Node `json:"nodes"`
	Hint    catalog.Message   `json:"-"`
}

// BrokerStatus reports the brokers the server runs, or the hint.
func (l *Lab) BrokerStatus(ctx context.Context) (BrokersStatus, error) {
	if l.brokers == nil {
		return BrokersStatus{Nodes: []localkafka.Node{}, Hint: l.brokersHint(ctx, "")}, nil
	}
	nodes, err := l.brokers.Nodes(ctx)
	if err != nil {
		return BrokersStatus{}, err
	}
	return BrokersStatus{Managed: true, Nodes: nodes}, nil
}

// composeTripleClusterID is the CLUSTER_ID of compose.triple.yaml's
// brokers: only that cluster's brokers are stopped with docker compose.
const composeTripleClusterID = "MkU3OEVBNTcwNTJENDM2Qk"

// brokersHint says how to stop a broker the server does not run; id ""
// means the two followers of lesson 4. The docker compose command is
// offered only to compose.triple.yaml's cluster (known by its id); any
// other cluster's brokers are stopped where they run.
func (l *Lab) brokersHint(ctx context.Context, id string) catalog.Message {
	if l.cluster.Mode() == cluster.Embedded {
		return catalog.M("brokers.hint.embedded")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if l.cluster.ClusterID(ctx) != composeTripleClusterID {
		return catalog.M("brokers.hint.external")
	}
	services := "kafka-2 kafka-3"
	if id != "" {
		services = "kafka-" + id
	}
	return catalog.M("brokers.hint.compose", "services", services)
}

// StopBroker stops node id (a controlled shutdown, as docker compose stop
// does), when the server runs the brokers.
func (l *Lab) StopBroker(ctx context.Context, id int) error {
	return l.brokerAction(ctx, id, "stop")
}

// StartBroker starts node id again.
func (l *Lab) StartBroker(ctx context.Context, id int) error {
	return l.brokerAction(ctx, id, "start")
}

func (l *Lab) brokerAction(ctx context.Context, id int, action string) error {
	if err := l.writable(); err != nil {
		return err
	}
	if l.brokers == nil {
		key := "error.brokersNotManaged.start"
		if action == "stop" {
			key = "error.brokersNotManaged.stop"
		}
		return problem.New(problem.Conflict, key).WithHint(l.brokersHint(ctx, strconv.Itoa(id)))
	}
	var err error
	if action == "stop" {
		err = l.brokers.StopNode(ctx, id)
	} else {
		err = l.brokers.StartNode(ctx, id)
	}
	if errors.Is(err, localkafka.ErrUnknownNode) {
		return problem.Wrap(err, problem.NotFound, "error.brokerUnknown", "id", strconv.Itoa(id))
	}
	if err != nil {
		return err
	}
	l.log.Info("broker "+action, "node", id)
	return nil
}

// ManagesBrokers reports whether the server runs the brokers, so that a
// broker can be stopped and started.
func (l *Lab) ManagesBrokers() bool { return l.brokers != nil }
