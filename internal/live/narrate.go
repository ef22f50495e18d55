package live

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// maxWriteEvents is how many new records a poll narrates one by one; more
// are summarised in one sentence so a burst cannot flood the timeline.
const maxWriteEvents = 3

// news drops from changed the offsets below hw (what the feed had read up
// to, readEnd) that before — the tail viewers had — does not hold: a read
// reaching below the tail (a short read read again, a tail cut by
// MessageBytes) finds them "changed", but they were told when written, or
// written before the feed started; telling them again would repeat the
// same sentence at every poll.
func news(changed []inspect.Entry, hw int64, before map[int64]inspect.Entry) []inspect.Entry {
	out := make([]inspect.Entry, 0, len(changed))
	for _, e := range changed {
		if _, seen := before[e.Offset]; e.Offset < hw && !seen {
			continue
		}
		out = append(out, e)
	}
	return out
}

// narrate turns what changed in one poll into sentences: records written
// (and whether a transaction holds them), markers and what they resolved.
// before is the state viewers had, to tell new offsets from resolved ones.
func narrate(key feedKey, changed []inspect.Entry, before map[int64]inspect.Entry) []Event {
	now := time.Now()
	ev := func(kind string, offset int64, msg catalog.Message) Event {
		e := NewEvent(kind, key.topic, key.partition, msg)
		e.Time, e.Offset = now, &offset
		return e
	}
	var writes, markers []inspect.Entry
	resolved := map[int64][]int64{} // producer id -> offsets that left "open"
	for _, e := range changed {
		old, seen := before[e.Offset]
		switch {
		case e.Kind == inspect.KindControl && !seen:
			markers = append(markers, e)
		case e.Kind == inspect.KindData && !seen:
			writes = append(writes, e)
		case e.Kind == inspect.KindData && old.Txn == inspect.TxnOpen && e.Txn != inspect.TxnOpen:
			resolved[e.ProducerID] = append(resolved[e.ProducerID], e.Offset)
		}
	}
	// Markers and writes are told in offset order: a marker after the
	// records it resolves, never before.
	var out []Event
	if len(writes) > maxWriteEvents {
		first, last := writes[0].Offset, writes[len(writes)-1].Offset
		out = append(out, ev(EventWrite, first, catalog.M("narration.writes",
			"count", fmt.Sprint(len(writes)), "first", fmt.Sprint(first), "last", fmt.Sprint(last), "log", fmt.Sprintf("%s-%d", key.topic, key.partition))))
	} else {
		for _, w := range writes {
			out = append(out, ev(EventWrite, w.Offset, describeWrite(w)))
		}
	}
	for _, m := range markers {
		// A marker resolves its producer's records that were open before
		// it: those seen open in an earlier poll, and those written in
		// this poll after the producer's previous marker.
		var offsets []int64
		for _, o := range resolved[m.ProducerID] {
			if o < m.Offset {
				offsets = append(offsets, o)
			}
		}
		for _, w := range writes {
			if w.ProducerID == m.ProducerID && w.Transactional && w.Offset < m.Offset && w.Offset > previousMarker(markers, m) {
				offsets = append(offsets, w.Offset)
			}
		}
		delete(resolved, m.ProducerID)
		sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
		out = append(out, describeMarker(ev, m, offsets))
	}
	sort.SliceStable(out, func(i, j int) bool { return *out[i].Offset < *out[j].Offset })
	return out
}

// narrateLogStart tells the log start offset moving up from before to now:
// the offsets below it were deleted by retention or DeleteRecords (the
// log cleaner never moves it).
func narrateLogStart(key feedKey, before, now inspect.Pointers) []Event {
	if now.LogStartOffset <= before.LogStartOffset {
		return nil
	}
	e := NewEvent(EventWarning, key.topic, key.partition, catalog.M("narration.logStart",
		"log", fmt.Sprintf("%s-%d", key.topic, key.partition), "from", fmt.Sprint(before.LogStartOffset),
		"to", fmt.Sprint(now.LogStartOffset), "count", fmt.Sprint(now.LogStartOffset-before.LogStartOffset)))
	at := now.HighWatermark // it happened now: after every offset written so far
	e.Time, e.At = time.Now(), &at
	return []Event{e}
}

// previousMarker is the offset of the same producer's marker before m in
// this poll, or -1.
func previousMarker(markers []inspect.Entry, m inspect.Entry) int64 {
	prev := int64(-1)
	for _, o := range markers {
		if o.ProducerID == m.ProducerID && o.Offset < m.Offset {
			prev = max(prev, o.Offset)
		}
	}
	return prev
}

func describeWrite(e inspect.Entry) catalog.Message {
	args := catalog.Args{"offset": fmt.Sprint(e.Offset)}
	switch {
	case e.Value == nil:
		args["valueKey"] = "narration.value.null"
	case e.ValueEncoding == inspect.EncodingBase64:
		args["valueKey"] = "narration.value.binary"
	default:
		args["value"] = quoteValue(*e.Value)
	}
	if !e.Transactional {
		return catalog.Message{Key: "narration.write.plain", Args: args}
	}
	args["producer"], args["epoch"] = fmt.Sprint(e.ProducerID), fmt.Sprint(e.ProducerEpoch)
	switch e.Txn {
	case inspect.TxnCommitted:
		return catalog.Message{Key: "narration.write.committed", Args: args}
	case inspect.TxnAborted:
		return catalog.Message{Key: "narration.write.aborted", Args: args}
	default:
		return catalog.Message{Key: "narration.write.open", Args: args}
	}
}

// describeMarker narrates a marker and the offsets it resolved; the key
// says how many: none, one ("Offset 2") or several ("Offsets 2, 4").
func describeMarker(ev func(string, int64, catalog.Message) Event, m inspect.Entry, resolved []int64) Event {
	args := catalog.Args{"offset": fmt.Sprint(m.Offset), "producer": fmt.Sprint(m.ProducerID), "epoch": fmt.Sprint(m.ProducerEpoch)}
	if len(resolved) > 0 {
		args["offsets"] = joinOffsets(resolved)
	}
	kind, key := EventCommit, "narration.commit"
	if m.Marker == inspect.MarkerAbort {
		kind, key = EventAbort, "narration.abort"
	}
	switch {
	case len(resolved) == 1:
		key += ".one"
	case len(resolved) > 1:
		key += ".many"
	}
	return ev(kind, m.Offset, catalog.Message{Key: key, Args: args})
}

func joinOffsets(offsets []int64) string {
	parts := make([]string, len(offsets))
	for i, o := range offsets {
		parts[i] = fmt.Sprint(o)
	}
	return strings.Join(parts, ", ")
}

// quoteValue is a value as the timeline quotes it: 'like this', cut at 40
// characters.
func quoteValue(v string) string {
	if r := []rune(v); len(r) > 40 {
		v = string(r[:40]) + "…"
	}
	return "'" + v + "'"
}
