package lessons

import (
	"slices"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// Answer is what a step that only reads found, in the terms a page draws
// at the cells of the log the step concerns (StepState's Topic and
// Partition): such a step changes nothing in the log, so its answer is
// all the class has to see. At most one of the fields is set.
type Answer struct {
	Transaction *TransactionAnswer `json:"transaction,omitempty"`
	Group       *GroupAnswer       `json:"group,omitempty"`
	Read        *ReadAnswer        `json:"read,omitempty"`
	Log         *LogAnswer         `json:"log,omitempty"`
}

// Anchors of a TransactionAnswer: the cell its state is drawn at.
const (
	// AnchorOpen is the first record of the transaction still open on
	// the partition, the offset the last stable offset waits at.
	AnchorOpen = "open"
	// AnchorMarker is the last COMMIT or ABORT marker the producer wrote
	// to the partition: the end of its last transaction there.
	AnchorMarker = "marker"
)

// TransactionAnswer is the coordinator's answer to a describe, and the
// cell of the step's log it concerns.
type TransactionAnswer struct {
	TransactionalID string           `json:"transactionalId"`
	State           cluster.TxnState `json:"state"`
	ProducerID      int64            `json:"producerId"`
	ProducerEpoch   int16            `json:"producerEpoch"`
	// Offset is the cell Anchor names; -1 (Anchor empty) when the log
	// holds no record of the producer.
	Offset int64  `json:"offset"`
	Anchor string `json:"anchor,omitempty"`
}

// GroupAnswer is a group's committed offset on the step's partition.
type GroupAnswer struct {
	Group     string `json:"group"`
	Committed int64  `json:"committed"`
	LogEnd    int64  `json:"logEnd"`
	Lag       int64  `json:"lag"`
}

// ReadAnswer is what a consumer received from the step's partition: the
// offsets, in order, at its isolation level. Resume is set when the
// consumer read as a group.
type ReadAnswer struct {
	Isolation inspect.Isolation `json:"isolation"`
	Offsets   []int64           `json:"offsets"`
	Resume    *GroupResume      `json:"resume,omitempty"`
}

// GroupResume is where a group's consumer started and what it committed:
// Committed is its offset before (-1: none); OutOfRange says the broker
// refused it and auto.offset.reset moved the consumer to Start, Lost
// offsets never read; Next is the offset it committed afterwards.
type GroupResume struct {
	Group      string `json:"group"`
	Committed  int64  `json:"committed"`
	OutOfRange bool   `json:"outOfRange"`
	Start      int64  `json:"start"`
	Lost       int64  `json:"lost"`
	Next       int64  `json:"next"`
}

// LogAnswer is what a read of the log offset by offset checks: the
// markers, the records of aborted and of open transactions, the offsets
// that hold nothing, and the pointers.
type LogAnswer struct {
	Markers []int64 `json:"markers"`
	Aborted []int64 `json:"aborted"`
	Open    []int64 `json:"open"`
	// Gaps are the runs of offsets that hold nothing, with why.
	Gaps []GapRun `json:"gaps"`
	// Copies are, for each value the step's checks count, the offsets
	// of the data records holding it.
	Copies           []ValueCopies `json:"copies"`
	LogStartOffset   int64         `json:"logStartOffset"`
	LastStableOffset int64         `json:"lastStableOffset"`
	HighWatermark    int64         `json:"highWatermark"`
}

// ValueCopies are the offsets of the data records whose value is Value.
type ValueCopies struct {
	Value   string  `json:"value"`
	Offsets []int64 `json:"offsets"`
}

// GapRun is offsets From to To (inclusive) holding nothing, for Reason
// (an inspect.Entry's: "compacted", "beforeLogStart" or "unknown").
type GapRun struct {
	From   int64  `json:"from"`
	To     int64  `json:"to"`
	Reason string `json:"reason"`
}

// transactionAnchor finds, in the logs a transaction concerns, the cell
// to draw the coordinator's state at: the first record of the producer's
// open transaction (an Ongoing one) or else its last marker. The logs are
// the data partitions the coordinator lists, else partition 0 of the
// run's topics (a finished transaction lists none). It reads each log
// from its start, as ReadLog does: lesson logs are short.
func transactionAnchor(sc *stepContext, t cluster.TransactionInfo) (ref LogRef, offset int64, anchor string) {
	var refs []LogRef
	for _, p := range t.Partitions {
		if strings.HasPrefix(p, "__") {
			continue
		}
		i := strings.LastIndexByte(p, '-')
		n, err := strconv.ParseInt(p[i+1:], 10, 32)
		if i > 0 && err == nil {
			refs = append(refs, LogRef{Topic: p[:i], Partition: int32(n)})
		}
	}
	if len(refs) == 0 {
		for _, topic := range lessonTopics(sc.run.lesson) {
			refs = append(refs, LogRef{Topic: sc.name(topic)})
		}
	}
	for _, r := range refs {
		l, err := sc.lab.Log(sc, r.Topic, r.Partition, 0, inspect.MaxLimit)
		if err != nil {
			continue
		}
		if o, a, ok := producerCell(l.Entries, t.ProducerID, t.State == cluster.TxnOngoing); ok {
			return r, o, a
		}
	}
	return LogRef{}, -1, ""
}

// producerCell is the first open record of producer pid when open is
// asked and there is one, else its last marker.
func producerCell(entries []inspect.Entry, pid int64, open bool) (int64, string, bool) {
	if open {
		i := slices.IndexFunc(entries, func(e inspect.Entry) bool {
			return e.ProducerID == pid && e.Kind == inspect.KindData && e.Txn == inspect.TxnOpen
		})
		if i >= 0 {
			return entries[i].Offset, AnchorOpen, true
		}
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.ProducerID == pid && e.Kind == inspect.KindControl {
			return e.Offset, AnchorMarker, true
		}
	}
	return 0, "", false
}

// logAnswer is the answer of a read of l whose checks count the records
// of values.
func logAnswer(l *inspect.Log, values []string) *LogAnswer {
	a := &LogAnswer{Markers: []int64{}, Aborted: []int64{}, Open: []int64{}, Gaps: []GapRun{}, Copies: []ValueCopies{},
		LogStartOffset: l.LogStartOffset, LastStableOffset: l.LastStableOffset, HighWatermark: l.HighWatermark}
	for _, e := range l.Entries {
		switch {
		case e.Kind == inspect.KindControl:
			a.Markers = append(a.Markers, e.Offset)
		case e.Kind == inspect.KindData && e.Txn == inspect.TxnAborted:
			a.Aborted = append(a.Aborted, e.Offset)
		case e.Kind == inspect.KindData && e.Txn == inspect.TxnOpen:
			a.Open = append(a.Open, e.Offset)
		case e.Kind == inspect.KindGap:
			if n := len(a.Gaps); n > 0 && a.Gaps[n-1].To == e.Offset-1 && a.Gaps[n-1].Reason == e.Reason {
				a.Gaps[n-1].To = e.Offset
			} else {
				a.Gaps = append(a.Gaps, GapRun{From: e.Offset, To: e.Offset, Reason: e.Reason})
			}
		}
	}
	for _, v := range values {
		c := ValueCopies{Value: v, Offsets: []int64{}}
		for _, e := range l.Entries {
			if e.Kind == inspect.KindData && e.Value != nil && *e.Value == v {
				c.Offsets = append(c.Offsets, e.Offset)
			}
		}
		a.Copies = append(a.Copies, c)
	}
	return a
}
