// Package producer drives Kafka producers the way the lessons need them:
// producer profiles (acks, idempotence, transactional.id) validated as
// librdkafka validates them, one-shot produce calls with injected faults
// (a lost ACK, an application double send), and the seeds' order processor
// in its at-most-once, at-least-once ("plain") and exactly-once ("tx")
// modes, with a crash that looks to the broker exactly like a dead process.
//
// Every produce call and every processor run uses a fresh kgo client: a new
// producer session, as a restarted process would have. Nothing here imports
// net/http; the web package maps the errors below to HTTP statuses.
package producer
