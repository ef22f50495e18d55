package lab

import (
	"context"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// Security is how the dashboard reaches the cluster (protocol, user, the
// properties file's path), never a secret: the pages put the same
// connection into every Kafka command they print.
func (l *Lab) Security() cluster.Security { return l.cluster.Security() }

// TerminateRight is the right kafka-transactions.sh
// forceTerminateTransaction needs for the transactional id (WRITE on it)
// and whether the dashboard's user holds it (see
// cluster.Cluster.MayWriteTransactionalID; topic and partition are one
// the transaction writes to).
func (l *Lab) TerminateRight(ctx context.Context, id, topic string, partition int32) cluster.Right {
	return l.cluster.MayWriteTransactionalID(ctx, id, topic, partition)
}

// AbortRight is the right kafka-transactions.sh abort needs (ALTER on the
// cluster, for its WriteTxnMarkers request) and whether the dashboard's
// user holds it.
func (l *Lab) AbortRight(ctx context.Context) cluster.Right {
	return l.cluster.MayAlterCluster(ctx)
}

// SchemaRegistry is the URL of the registry values are decoded with, ""
// without one.
func (l *Lab) SchemaRegistry() string { return l.schemaRegistry }
