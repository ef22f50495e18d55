package live

import (
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// Message types, the "type" field of every Message.
const (
	// TypeSnapshot starts every subscription: pointers, the tail of the
	// log, group offsets and the recent narration.
	TypeSnapshot = "snapshot"
	// TypeEntries upserts cells: new offsets, and earlier ones whose
	// transaction outcome was resolved.
	TypeEntries = "entries"
	// TypePointers reports moved log start, LSO or high watermark.
	TypePointers = "pointers"
	// TypeGroups reports the consumer groups' committed offsets on the
	// partition.
	TypeGroups = "groups"
	// TypeShare reports the share groups' delivery state on the
	// partition's tail (KIP-932), whole, whenever it changed.
	TypeShare = "share"
	// TypeEvent is one narrated event.
	TypeEvent = "event"
	// TypeBroker reports the broker becoming unreachable or reachable.
	TypeBroker = "broker"
	// TypeProblem reports that the partition cannot be read for a reason
	// other than an unreachable broker (the user may not read it, say),
	// in Problem; a TypeProblem without Problem says it can be again.
	TypeProblem = "problem"
	// TypeProducers carries the partition's producer aliases (P1, P2 …),
	// the whole table, whenever it grows; a snapshot carries it too.
	TypeProducers = "producers"
)

// Message is one update sent to a viewer (as JSON over a websocket).
type Message struct {
	Type      string                         `json:"type"`
	Topic     string                         `json:"topic"`
	Partition int32                          `json:"partition"`
	Pointers  *inspect.Pointers              `json:"pointers,omitempty"`
	Entries   []inspect.Entry                `json:"entries,omitempty"`
	Groups    []cluster.PartitionGroupOffset `json:"groups,omitempty"`
	// Shares are the share lanes (TypeShare, and in a snapshot): per
	// share group with state on the partition, the tail's offsets.
	Shares    []cluster.SharePartition `json:"shares,omitempty"`
	Event     *Event                   `json:"event,omitempty"`
	Events    []Event                  `json:"events,omitempty"`
	Reachable *bool                    `json:"reachable,omitempty"`
	Producers []ProducerAlias          `json:"producers,omitempty"`
	// Error is why the broker does not answer (TypeBroker), in English;
	// ErrorCode and ErrorArgs name its catalogue sentence.
	Error     string            `json:"error,omitempty"`
	ErrorCode string            `json:"errorCode,omitempty"`
	ErrorArgs map[string]string `json:"errorArgs,omitempty"`
	// Problem is why the partition cannot be read (TypeProblem, and in a
	// snapshot while it lasts).
	Problem *Event `json:"problem,omitempty"`
	// Truncated says that older entries were left out to keep the
	// message within its byte bound (Config.MessageBytes): a snapshot
	// or a history step then holds the newest offsets of the tail only,
	// and the page reads the others with …/log.
	Truncated bool `json:"truncated,omitempty"`
}

// Event kinds, for the timeline's icons and labels.
const (
	EventWrite   = "write"
	EventCommit  = "commit"
	EventAbort   = "abort"
	EventCrash   = "crash"
	EventFence   = "fence"
	EventInfo    = "info"
	EventWarning = "warning"
)

// Event is one narrated sentence of the timeline.
type Event struct {
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	Text string    `json:"text"`
	// Topic and Partition say which log the event is about; empty for
	// events about the whole cluster (a processor run, say).
	Topic     string `json:"topic,omitempty"`
	Partition int32  `json:"partition"`
	// Offset points at the cell the event is about, if any. At is, for an
	// event about no one cell (a crash, a fence, a lost ACK), the log end
	// offset when it happened: it belongs after the offsets below At and
	// before the records written after it. The timeline orders a
	// partition's events by Offset or At, so that it tells them in the
	// order the log holds them.
	Offset *int64 `json:"offset,omitempty"`
	At     *int64 `json:"at,omitempty"`
	// Key and Args let the page show the sentence in the viewer's
	// language: Key names a sentence of the catalogue (internal/catalog)
	// whose {placeholders} Args fills. Text is the English sentence, for
	// API clients and as the page's fallback when it does not know Key.
	Key  string            `json:"key,omitempty"`
	Args map[string]string `json:"args,omitempty"`
}

// NewEvent is an event of kind saying msg about topic's partition (topic
// "" for the whole cluster), stamped now: Key and Args name the sentence,
// Text is it in English.
func NewEvent(kind, topic string, partition int32, msg catalog.Message) Event {
	return Event{Time: time.Now(), Kind: kind, Topic: topic, Partition: partition, Text: msg.String(), Key: msg.Key, Args: msg.Args}
}
