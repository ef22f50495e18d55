// Package problem is Offset Lab's one error type. An Error says what went
// wrong in two ways: a Kind a program acts on (web maps each Kind to one
// HTTP status, in one table) and a catalogue Message a person reads, in
// English or Korean (internal/catalog). Its cause, if any, is kept for
// errors.Is/As and the server's log; the Message says what the class
// should see.
//
// Every domain package returns these for anything a caller must tell
// apart. The sentences every package shares live here once: an unknown
// topic or partition, an unreachable broker, a broker's error answer.
package problem

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// Kind is what kind of failure an Error is: what a caller can do about it.
type Kind string

// The kinds, from the caller's point of view.
const (
	// Invalid: the request cannot be carried out as given; fix it.
	Invalid Kind = "invalid"
	// NotFound: what the request names does not exist.
	NotFound Kind = "not-found"
	// Conflict: the request clashes with the current state (a topic
	// that exists, a step in the wrong order, a fenced producer).
	Conflict Kind = "conflict"
	// Forbidden: this caller may not do this (a student, a read-only
	// cluster, a foreign page).
	Forbidden Kind = "forbidden"
	// TooLarge: the request or a value in it is larger than allowed.
	TooLarge Kind = "too-large"
	// Unsupported: the request's body is not in a form the API reads.
	Unsupported Kind = "unsupported"
	// TooFast: the caller sends faster than allowed; retry shortly.
	TooFast Kind = "too-fast"
	// Busy: the server is at a limit (viewers, reads, sessions); retry
	// later.
	Busy Kind = "busy"
	// Full: there is no room to store more (the embedded broker's data
	// budget); retrying helps only once something is deleted.
	Full Kind = "full"
	// Unavailable: no broker could be reached; the server keeps trying.
	Unavailable Kind = "unavailable"
	// Kafka: a broker answered with an error.
	Kafka Kind = "kafka"
	// Internal: anything else; a bug or an unexpected failure.
	Internal Kind = "internal"
)

// Error is a failure with its kind, its sentence and its cause.
type Error struct {
	Kind    Kind
	Message catalog.Message
	// Hint, when set, says how to get there another way (the command
	// that stops a broker Offset Lab does not run, say).
	Hint catalog.Message
	// Err is the cause, or nil.
	Err error
}

// WithHint sets the error's hint and returns the error.
func (e *Error) WithHint(hint catalog.Message) *Error {
	e.Hint = hint
	return e
}

// Error is the sentence in English.
func (e *Error) Error() string { return e.Message.String() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New is an error of kind whose sentence is the catalogue key with its
// placeholders as name, value pairs.
func New(kind Kind, key string, kv ...string) *Error {
	return &Error{Kind: kind, Message: catalog.M(key, kv...)}
}

// Wrap is New with a cause.
func Wrap(err error, kind Kind, key string, kv ...string) *Error {
	return &Error{Kind: kind, Message: catalog.M(key, kv...), Err: err}
}

// As finds the Error in err's chain; for an error that is none, it
// classifies it: an unreachable broker is Unavailable, a Kafka error code
// is Kafka, a timeout is Unavailable, anything else Internal (with the
// cause's own text as its detail).
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if d := Denied(err); d != nil {
		return d
	}
	if Unreachable(err) {
		return BrokerUnreachable(err)
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return KafkaError(err)
	}
	return Wrap(err, Internal, "error.internal")
}

// KindOf is the kind of err (see As); "" for nil.
func KindOf(err error) Kind {
	if e := As(err); e != nil {
		return e.Kind
	}
	return ""
}

// KeyOf is the catalogue key of err's sentence (see As); "" for nil.
func KeyOf(err error) string {
	if e := As(err); e != nil {
		return e.Message.Key
	}
	return ""
}

// Is reports whether err is an Error with the sentence key.
func Is(err error, key string) bool {
	var e *Error
	return errors.As(err, &e) && e.Message.Key == key
}

// Unreachable reports whether err means no broker could be reached — a
// refused, reset or dropped connection, a dial timeout, a closed client —
// as opposed to a broker answering with an error.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind == Unavailable
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, kgo.ErrClientClosed)
}

// authorizations are the Kafka errors that mean "not allowed", with the
// kind of resource each is about.
var authorizations = []struct {
	err *kerr.Error
	key string
}{
	{kerr.TopicAuthorizationFailed, "error.auth.topic"},
	{kerr.GroupAuthorizationFailed, "error.auth.group"},
	{kerr.ClusterAuthorizationFailed, "error.auth.cluster"},
	{kerr.TransactionalIDAuthorizationFailed, "error.auth.transactionalId"},
	{kerr.DelegationTokenAuthorizationFailed, "error.auth.delegationToken"},
}

// Denied is the Forbidden error of a broker's "not allowed" answer —
// TOPIC_, GROUP_, CLUSTER_ or TRANSACTIONAL_ID_AUTHORIZATION_FAILED, a
// failed SASL authentication, a certificate the client does not trust —
// or nil when err is none of those. Callers that know the operation and
// the resource name say so with NotAllowed.
func Denied(err error) *Error {
	for _, a := range authorizations {
		if errors.Is(err, a.err) {
			return Wrap(err, Forbidden, a.key, "code", a.err.Message)
		}
	}
	if errors.Is(err, kerr.SaslAuthenticationFailed) {
		return Wrap(err, Forbidden, "error.auth.sasl", "detail", err.Error())
	}
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var verify *tls.CertificateVerificationError
	if errors.As(err, &unknownCA) || errors.As(err, &badHost) || errors.As(err, &verify) {
		return Wrap(err, Unavailable, "error.auth.tls", "detail", err.Error())
	}
	return nil
}

// NotAllowed is err as the sentence "the user may not OPERATION on
// RESOURCE NAME" when err is a broker's authorization failure (see
// Denied), and err unchanged otherwise. operation is Kafka's ACL operation
// (READ, WRITE, DESCRIBE, CREATE), resource its resource type (topic,
// group, transactional id).
func NotAllowed(err error, user, operation, resource, name string) error {
	d := Denied(err)
	if d == nil || d.Message.Key == "error.auth.sasl" || d.Message.Key == "error.auth.tls" {
		return err
	}
	if user == "" {
		user = "?"
	}
	return Wrap(err, Forbidden, "error.notAllowed", "user", user, "operation", operation, "resource", resource, "name", name, "code", d.Message.Args["code"])
}

// BrokerUnreachable is the one "broker unreachable" error.
func BrokerUnreachable(cause error) *Error {
	detail := "no answer"
	if cause != nil {
		detail = cause.Error()
	}
	return Wrap(cause, Unavailable, "error.brokerUnavailable", "detail", detail)
}

// KafkaError is a broker's error answer, with Kafka's own error name in the
// sentence (what learners search for).
func KafkaError(cause error) *Error {
	return Wrap(cause, Kafka, "error.kafka", "detail", cause.Error())
}

// UnknownTopic is the one "topic does not exist" error.
func UnknownTopic(topic string) *Error {
	return New(NotFound, "error.unknownTopic", "topic", topic)
}

// UnknownPartition is the one "partition does not exist" error.
func UnknownPartition(topic string, partitions int, partition int32) *Error {
	return New(NotFound, "error.unknownPartition", "topic", topic, "count", strconv.Itoa(partitions), "partition", strconv.Itoa(int(partition)))
}
