package lessons

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
)

// ReadLog reads a partition offset by offset: data, markers, pointers.
type ReadLog struct {
	Topic     string
	Partition int32
}

// Kind implements Action.
func (ReadLog) Kind() string { return "read-log" }

// Facts implements Action: FactShape lists each offset as "offset:txn" or
// "offset:MARKER"; FactReadCommitted / FactReadUncommitted the offsets a
// consumer at that level receives; FactCount, FactPID and FactSequences
// describe the data records of one value.
func (ReadLog) Facts() []Fact {
	return []Fact{FactShape, FactMarkers, FactAborted, FactOpen, FactLSO, FactHW, FactLogStart,
		FactReadCommitted, FactReadUncommitted, FactCount, FactPID, FactSequences, FactGaps, FactLatest}
}

// Names implements Action.
func (a ReadLog) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a ReadLog) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (ReadLog) Icon() string { return live.EventInfo }

func (a ReadLog) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, a.Partition)
	l, err := sc.lab.Log(sc, topic, a.Partition, 0, inspect.MaxLimit)
	if err != nil {
		return obs, err
	}
	observeLog(sc, obs, l)
	if a.Partition == 0 {
		sc.memory().sawHeld(topic, heldOffsets(l))
	}
	return obs, nil
}

// heldOffsets are the offsets of l that hold a record or a marker.
func heldOffsets(l *inspect.Log) []int64 {
	var out []int64
	for _, e := range l.Entries {
		if e.Kind != inspect.KindGap {
			out = append(out, e.Offset)
		}
	}
	return out
}

// observeLog prints a log as kafka-dump-log.sh would and sets ReadLog's
// facts and answer.
func observeLog(sc *stepContext, obs *observation, l *inspect.Log) {
	var shape, markers []string
	var aborted, open, rc, ru []int64
	for _, e := range l.Entries {
		switch e.Kind {
		case inspect.KindControl:
			shape = append(shape, fmt.Sprintf("%d:%s", e.Offset, e.Marker))
			markers = append(markers, fmt.Sprintf("%d %s", e.Offset, e.Marker))
			obs.tool("offset %d  %s marker  (producer %d, epoch %d)", e.Offset, e.Marker, e.ProducerID, e.ProducerEpoch)
		case inspect.KindData:
			shape = append(shape, fmt.Sprintf("%d:%s", e.Offset, e.Txn))
			who := "no producer id"
			if e.ProducerID >= 0 {
				who = fmt.Sprintf("producer %d, epoch %d, sequence %d", e.ProducerID, e.ProducerEpoch, e.Sequence)
			}
			obs.tool("offset %d  %s  %s  (%s)", e.Offset, str(e.Value), txnLabel(e), who)
		default:
			shape = append(shape, fmt.Sprintf("%d:gap", e.Offset))
			obs.tool("offset %d  (no record: %s)", e.Offset, gapWords[e.Reason])
		}
		switch {
		case e.Kind == inspect.KindData && e.Txn == inspect.TxnAborted:
			aborted = append(aborted, e.Offset)
		case e.Kind == inspect.KindData && e.Txn == inspect.TxnOpen:
			open = append(open, e.Offset)
		}
		if e.ReadCommitted {
			rc = append(rc, e.Offset)
		}
		if e.ReadUncommitted {
			ru = append(ru, e.Offset)
		}
	}
	obs.say("pointers", "start", i64(l.LogStartOffset), "lso", i64(l.LastStableOffset), "hw", i64(l.HighWatermark))
	obs.answer = &Answer{Log: logAnswer(l, appendNew(appendNew(sc.args(FactCount), sc.args(FactPID)...), sc.args(FactSequences)...))}
	obs.set(FactShape, orNone(strings.Join(shape, " ")))
	obs.set(FactMarkers, orNone(strings.Join(markers, ", ")))
	obs.set(FactAborted, joinOffsets(aborted))
	obs.set(FactOpen, joinOffsets(open))
	obs.set(FactLSO, strconv.FormatInt(l.LastStableOffset, 10))
	obs.set(FactHW, strconv.FormatInt(l.HighWatermark, 10))
	obs.set(FactLogStart, strconv.FormatInt(l.LogStartOffset, 10))
	obs.set(FactReadCommitted, joinOffsets(rc))
	obs.set(FactReadUncommitted, joinOffsets(ru))
	obs.set(FactGaps, gapRuns(l.Entries))
	obs.set(FactLatest, latestPerKey(l.Entries))
	values := func(v string) []inspect.Entry {
		var out []inspect.Entry
		for _, e := range l.Entries {
			if e.Kind == inspect.KindData && str(e.Value) == v {
				out = append(out, e)
			}
		}
		return out
	}
	for _, v := range sc.args(FactCount) {
		obs.setArg(FactCount, v, strconv.Itoa(len(values(v))))
	}
	for _, v := range sc.args(FactPID) {
		es := values(v)
		obs.setArg(FactPID, v, yesNo(len(es) > 0 && !slices.ContainsFunc(es, func(e inspect.Entry) bool { return e.ProducerID < 0 })))
	}
	for _, v := range sc.args(FactSequences) {
		var seqs []int64
		for _, e := range values(v) {
			seqs = append(seqs, int64(e.Sequence))
		}
		obs.setArg(FactSequences, v, joinOffsets(seqs))
	}
}

func txnLabel(e inspect.Entry) string {
	if !e.Transactional {
		return "no transaction"
	}
	return e.Txn
}

// gapWords say why a gap is empty, as the dump prints it.
var gapWords = map[string]string{
	inspect.GapCompacted:      "removed by the log cleaner",
	inspect.GapBeforeLogStart: "below the log start offset: deleted",
	inspect.GapUnknown:        "cause unknown",
}

// gapRuns lists the gaps of entries as runs of one reason:
// "1-3 compacted, 6 compacted", or "none".
func gapRuns(entries []inspect.Entry) string {
	var runs []string
	for i := 0; i < len(entries); {
		e := entries[i]
		if e.Kind != inspect.KindGap {
			i++
			continue
		}
		j := i
		for j+1 < len(entries) && entries[j+1].Kind == inspect.KindGap && entries[j+1].Reason == e.Reason {
			j++
		}
		run := strconv.FormatInt(e.Offset, 10)
		if j > i {
			run += "-" + strconv.FormatInt(entries[j].Offset, 10)
		}
		runs = append(runs, run+" "+e.Reason)
		i = j + 1
	}
	return orNone(strings.Join(runs, ", "))
}

// latestPerKey is the newest value of every key among the data records
// of entries (aborted ones aside, as the cleaner drops them), by key:
// "apple=apple 130 · kiwi=<null>" (a tombstone), or "none".
func latestPerKey(entries []inspect.Entry) string {
	latest := map[string]string{}
	for _, e := range entries {
		if e.Kind == inspect.KindData && e.Key != nil && e.Txn != inspect.TxnAborted {
			latest[*e.Key] = str(e.Value)
		}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(latest)) {
		out = append(out, k+"="+latest[k])
	}
	return orNone(strings.Join(out, " · "))
}
