package localkafka

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// probe asks one node, and only that node, who it sees.
type probe struct {
	client *kgo.Client
}

// newProbe makes a client whose only broker is addr, with login's TLS and
// SASL options for a secure cluster. It connects on the first request
// (after ApiVersions, as every franz-go connection does).
func newProbe(addr string, login ...kgo.Opt) (*probe, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(addr),
		kgo.ClientID("offsetlab-localkafka-probe"),
		kgo.DialTimeout(time.Second),
	}, login...)...)
	if err != nil {
		return nil, err
	}
	return &probe{client: cl}, nil
}

// liveBrokers sends one Metadata request (for no topics) to the node and
// returns the ids it lists: the brokers registered with the controller
// quorum and not fenced. retry lets franz-go redial a connection that the
// node dropped when it restarted.
func (p *probe) liveBrokers(ctx context.Context, retry bool) ([]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{} // empty, not nil: no topics rather than all
	seed := p.client.SeedBrokers()[0]
	var resp kmsg.Response
	var err error
	if retry {
		resp, err = seed.RetriableRequest(ctx, req)
	} else {
		resp, err = seed.Request(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	md, ok := resp.(*kmsg.MetadataResponse)
	if !ok {
		return nil, errors.New("not a metadata response")
	}
	ids := make([]int32, 0, len(md.Brokers))
	for _, b := range md.Brokers {
		ids = append(ids, b.NodeID)
	}
	slices.Sort(ids)
	return ids, nil
}

// serves reports whether the node answers metadata and lists every id of
// want among its live brokers: for a triple, that the controller quorum
// answers and all its brokers are registered.
func (p *probe) serves(ctx context.Context, want []int32) (bool, []int32, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	ids, err := p.liveBrokers(ctx, false)
	if err != nil {
		return false, nil, err
	}
	for _, id := range want {
		if !slices.Contains(ids, id) {
			return false, ids, nil
		}
	}
	return true, ids, nil
}

func (p *probe) close() { p.client.Close() }
