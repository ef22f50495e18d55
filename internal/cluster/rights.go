package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// Right is one ACL a Kafka command needs, and whether the dashboard's own
// user holds it: the pages print it beside the command, so that a reader
// knows before running it whether the broker would refuse it.
type Right struct {
	// Operation, Resource and Name are the ACL in kafka-acls.sh's words:
	// WRITE on transactional-id payments-app, ALTER on cluster
	// kafka-cluster.
	Operation string `json:"operation"`
	Resource  string `json:"resource"`
	Name      string `json:"name"`
	// Known is false when the broker did not let the dashboard find out.
	Known bool `json:"known"`
	// Denied is true when the dashboard's user lacks the right; Error is
	// then what the broker answers such a request (Kafka's error name).
	Denied bool   `json:"denied"`
	Error  string `json:"error,omitempty"`
}

// MayAlterCluster reports whether the dashboard's user holds ALTER on the
// cluster, which kafka-transactions.sh abort needs (its WriteTxnMarkers
// request). Cost: one DescribeCluster asking for the authorized
// operations; the embedded broker has no ACLs, so every right is held.
func (c *Cluster) MayAlterCluster(ctx context.Context) Right {
	r := Right{Operation: "ALTER", Resource: "cluster", Name: "kafka-cluster"}
	if c.mode == Embedded {
		r.Known = true
		return r
	}
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeClusterAuthorizedOperations = true
	resp, err := req.RequestWith(ctx, c.client)
	if err != nil || resp.ErrorCode != 0 || resp.ClusterAuthorizedOperations == int32(-2147483648) {
		return r
	}
	r.Known = true
	for _, op := range kadm.DecodeACLOperations(resp.ClusterAuthorizedOperations) {
		if op == kadm.OpAlter || op == kadm.OpAll {
			return r
		}
	}
	r.Denied, r.Error = true, kerr.ClusterAuthorizationFailed.Message
	return r
}

// MayWriteTransactionalID reports whether the dashboard's user holds WRITE
// on the transactional id, which kafka-transactions.sh
// forceTerminateTransaction needs (its InitProducerId request). Kafka has
// no request that lists a user's rights on a transactional id, and
// DescribeAcls needs DESCRIBE on the cluster, so the dashboard asks the
// coordinator a question it answers without acting: AddPartitionsToTxn
// (version 3, as a producer sends it) for producer id -1 and one partition
// of topic. The broker checks WRITE on the transactional id first
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then WRITE on the topic, then
// finds that -1 is not the id's producer (INVALID_PRODUCER_ID_MAPPING): no
// answer changes the transaction. Cost: a FindCoordinator (cached) and
// the request, on a client of its own (made once: it speaks
// AddPartitionsToTxn at version 3, as a producer does).
func (c *Cluster) MayWriteTransactionalID(ctx context.Context, id, topic string, partition int32) Right {
	r := Right{Operation: "WRITE", Resource: "transactional-id", Name: id}
	if c.mode == Embedded {
		r.Known = true
		return r
	}
	probe, err := c.rightsClient()
	if err != nil {
		return r
	}
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.Version = 3
	req.TransactionalID, req.ProducerID, req.ProducerEpoch = id, -1, -1
	t := kmsg.NewAddPartitionsToTxnRequestTopic()
	t.Topic, t.Partitions = topic, []int32{partition}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, probe)
	if err != nil {
		if errors.Is(err, kerr.TransactionalIDAuthorizationFailed) {
			r.Known, r.Denied, r.Error = true, true, kerr.TransactionalIDAuthorizationFailed.Message
		}
		return r
	}
	r.Known = true
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if errors.Is(kerr.ErrorForCode(p.ErrorCode), kerr.TransactionalIDAuthorizationFailed) {
				r.Denied, r.Error = true, kerr.TransactionalIDAuthorizationFailed.Message
			}
		}
	}
	return r
}

// rightsClient is the client MayWriteTransactionalID asks through, made
// on first use.
func (c *Cluster) rightsClient() (*kgo.Client, error) {
	c.rightsMu.Lock()
	defer c.rightsMu.Unlock()
	if c.rights != nil {
		return c.rights, nil
	}
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(kmsg.AddPartitionsToTxn.Int16(), 3)
	cl, err := kgo.NewClient(append(c.ClientOpts(), kgo.MaxVersions(versions), kgo.ClientID("offset-lab-rights"))...)
	if err != nil {
		return nil, err
	}
	c.rights = cl
	return cl, nil
}

// String is the right as kafka-acls.sh would grant it.
func (r Right) String() string { return fmt.Sprintf("%s on %s %s", r.Operation, r.Resource, r.Name) }

// ClusterID is the cluster's id as its brokers report it in Metadata
// ("" when none answers).
func (c *Cluster) ClusterID(ctx context.Context) string {
	m, err := c.admin.BrokerMetadata(ctx)
	if err != nil {
		return ""
	}
	return m.Cluster
}
