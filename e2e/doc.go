// Package e2e holds end-to-end tests that drive Offset Lab through its HTTP
// API, on the embedded broker and, when OFFSETLAB_KAFKA_BROKERS names a
// running Apache Kafka cluster, on real Kafka from the same table of cases.
package e2e
