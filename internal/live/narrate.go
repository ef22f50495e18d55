package live

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// maxWriteEvents is how many new records a poll narrates one by one; more
// are summarised in one sentence so a burst cannot flood the timeline.
const maxWriteEvents = 3

// narrate turns what changed in one poll into sentences: records written
// (and whether a transaction holds them), markers and what they resolved.
// before is the state viewers had, to tell new offsets from resolved ones.
func narrate(key feedKey, changed []inspect.Entry, before map[int64]inspect.Entry) []Event {
	now := time.Now()
	ev := func(kind string, offset int64, s sentence) Event {
		o := offset
		return Event{Time: now, Kind: kind, Topic: key.topic, Partition: key.partition, Offset: &o, Text: s.text, Key: s.key, Args: s.args}
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
	var out []Event
	if len(writes) > maxWriteEvents {
		first, last := writes[0].Offset, writes[len(writes)-1].Offset
		out = append(out, ev(EventWrite, first, sentence{
			text: fmt.Sprintf("%d records written at offsets %d–%d of %s-%d.", len(writes), first, last, key.topic, key.partition),
			key:  "narration.writes",
			args: map[string]string{"count": fmt.Sprint(len(writes)), "first": fmt.Sprint(first), "last": fmt.Sprint(last), "log": fmt.Sprintf("%s-%d", key.topic, key.partition)},
		}))
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
	return out
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

// sentence is a narrated sentence in English (text) and as a key of the
// UI catalogue with its arguments, for the page to show in the viewer's
// language (see Event.Key). The keys are string literals so the catalogue
// test (web/i18n_test.go) finds them.
type sentence struct {
	text string
	key  string
	args map[string]string
}

func describeWrite(e inspect.Entry) sentence {
	what := fmt.Sprintf("Offset %d: %s written", e.Offset, quoteValue(e))
	args := map[string]string{"offset": fmt.Sprint(e.Offset)}
	switch {
	case e.Value == nil:
		args["valueKey"] = "narration.value.null"
	case e.ValueEncoding == inspect.EncodingBase64:
		args["valueKey"] = "narration.value.binary"
	default:
		args["value"] = quoteValue(e)
	}
	if !e.Transactional {
		return sentence{what + " without a transaction — final at once: consumers at both isolation levels receive it.", "narration.write.plain", args}
	}
	args["producer"], args["epoch"] = fmt.Sprint(e.ProducerID), fmt.Sprint(e.ProducerEpoch)
	who := fmt.Sprintf("producer %d, epoch %d", e.ProducerID, e.ProducerEpoch)
	switch e.Txn {
	case inspect.TxnCommitted:
		return sentence{what + " inside a transaction (" + who + ") that is already committed.", "narration.write.committed", args}
	case inspect.TxnAborted:
		return sentence{what + " inside a transaction (" + who + ") that is already aborted.", "narration.write.aborted", args}
	default:
		return sentence{what + " inside an open transaction (" + who + "): read_committed consumers wait at the last stable offset until its marker arrives.", "narration.write.open", args}
	}
}

func describeMarker(ev func(string, int64, sentence) Event, m inspect.Entry, resolved []int64) Event {
	who := fmt.Sprintf("producer %d, epoch %d", m.ProducerID, m.ProducerEpoch)
	list := offsetList(resolved)
	args := map[string]string{"offset": fmt.Sprint(m.Offset), "producer": fmt.Sprint(m.ProducerID), "epoch": fmt.Sprint(m.ProducerEpoch)}
	if len(resolved) > 0 {
		args["offsets"] = joinOffsets(resolved)
	}
	// The key says how many records the marker resolved: none, one
	// ("Offset 2") or several ("Offsets 2, 4").
	if m.Marker == inspect.MarkerAbort {
		s := sentence{fmt.Sprintf("Offset %d: ABORT marker (%s). It occupies an offset of its own.", m.Offset, who), "narration.abort", args}
		if list != "" {
			s.text += fmt.Sprintf(" %s aborted: still in the log, but read_committed consumers skip it.", list)
			s.key = "narration.abort.one"
			if len(resolved) > 1 {
				s.key = "narration.abort.many"
			}
		}
		return ev(EventAbort, m.Offset, s)
	}
	s := sentence{fmt.Sprintf("Offset %d: COMMIT marker (%s). It occupies an offset of its own.", m.Offset, who), "narration.commit", args}
	if list != "" {
		s.text += fmt.Sprintf(" %s committed: read_committed consumers receive it now.", list)
		s.key = "narration.commit.one"
		if len(resolved) > 1 {
			s.key = "narration.commit.many"
		}
	}
	return ev(EventCommit, m.Offset, s)
}

func joinOffsets(offsets []int64) string {
	parts := make([]string, len(offsets))
	for i, o := range offsets {
		parts[i] = fmt.Sprint(o)
	}
	return strings.Join(parts, ", ")
}

func offsetList(offsets []int64) string {
	switch len(offsets) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("Offset %d", offsets[0])
	}
	return "Offsets " + joinOffsets(offsets)
}

func quoteValue(e inspect.Entry) string {
	if e.Value == nil {
		return "a record with a null value"
	}
	v := *e.Value
	if e.ValueEncoding == inspect.EncodingBase64 {
		return "a binary value"
	}
	if r := []rune(v); len(r) > 40 {
		v = string(r[:40]) + "…"
	}
	return "'" + v + "'"
}
