package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/localkafka"
)

// BrokerControl stops and starts the brokers when the dashboard runs them
// itself (--local-kafka); *localkafka.Cluster is one.
type BrokerControl interface {
	Nodes(ctx context.Context) ([]localkafka.Node, error)
	StopNode(ctx context.Context, id int) error
	StartNode(ctx context.Context, id int) error
}

// brokersView is GET /api/brokers.
type brokersView struct {
	// Managed is true when the dashboard runs the brokers and can stop
	// and start them; Hint then is empty.
	Managed bool              `json:"managed"`
	Nodes   []localkafka.Node `json:"nodes"`
	Hint    string            `json:"hint,omitempty"`
}

// brokersHint says how to stop a broker the dashboard does not run.
func (s *Server) brokersHint(id string) string {
	if s.deps.Cluster.Mode() == cluster.Embedded {
		return "The embedded broker is a single broker without replication: there is nothing to stop. Run Offset Lab with --local-kafka triple (needs Java 17+) to let it run three real brokers, or --brokers with a three-broker cluster."
	}
	svc := "kafka-2 kafka-3"
	if id != "" {
		svc = "kafka-" + id
	}
	return "Offset Lab does not run these brokers, so it cannot stop them. With compose.triple.yaml: docker compose -f compose.triple.yaml stop " + svc + " (and start " + svc + " again); or run Offset Lab with --local-kafka triple."
}

func (s *Server) getBrokers(w http.ResponseWriter, r *http.Request) {
	if s.deps.Brokers == nil {
		writeJSON(w, http.StatusOK, brokersView{Nodes: []localkafka.Node{}, Hint: s.brokersHint("")})
		return
	}
	nodes, err := s.deps.Brokers.Nodes(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, brokersView{Managed: true, Nodes: nodes})
}

// brokerAction is POST /api/brokers/{id}/stop|start.
func (s *Server) brokerAction(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	action := chi.URLParam(r, "action")
	if action != "stop" && action != "start" {
		writeErrorBody(w, http.StatusNotFound, fmt.Sprintf("brokers can be stopped or started, not %q", action), "error.brokerActionUnknown", "action", action)
		return
	}
	if s.deps.Brokers == nil {
		writeJSON(w, http.StatusConflict, map[string]any{
			"error": "Offset Lab does not run these brokers, so it cannot " + action + " them.",
			"code":  "error.brokersNotManaged." + action, "hint": s.brokersHint(id),
		})
		return
	}
	n, err := strconv.Atoi(id)
	if err != nil {
		s.writeError(w, r, badRequest(fmt.Sprintf("broker id %q is not a number", id), "error.brokerIdNotNumber", "id", id))
		return
	}
	if !s.allowFault(w, r) {
		return
	}
	if action == "stop" {
		err = s.deps.Brokers.StopNode(r.Context(), n)
	} else {
		err = s.deps.Brokers.StartNode(r.Context(), n)
	}
	if errors.Is(err, localkafka.ErrUnknownNode) {
		writeErrorBody(w, http.StatusNotFound, err.Error(), "error.brokerUnknown", "id", id)
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.log.Info("broker "+action, "node", n)
	s.getBrokers(w, r)
}
