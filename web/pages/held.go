package pages

import (
	"net/url"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
)

// durationArgs are the catalogue arguments that say ms as "2 min 10 s"
// (duration.s, duration.ms, duration.hm fill {duration}).
func durationArgs(ms int64) []string {
	s := max(ms, 0) / 1000
	switch {
	case s < 60:
		return []string{"durationKey", "duration.s", "s", i64(s)}
	case s < 3600:
		return []string{"durationKey", "duration.ms", "m", i64(s / 60), "s", i64(s % 60)}
	default:
		return []string{"durationKey", "duration.hm", "h", i64(s / 3600), "m", i64(s % 3600 / 60)}
	}
}

// heldWhy is the group page's sentence for a partition whose LSO an open
// transaction holds: "Record lag 0 now, 50 waiting behind the open
// transaction at 300 (refund-worker-7): … (open for 2 min 10 s of its
// 60 s timeout)".
func heldWhy(recordLag int64, h *cluster.LSOHold) catalog.Message {
	waiting := i64(h.Waiting)
	if !h.WaitingComplete {
		waiting = "≥ " + waiting
	}
	args := []string{"recordLag", i64(recordLag), "waiting", waiting, "lso", i64(h.LastStableOffset), "who", "", "age", ""}
	if t := h.Holder; t != nil {
		if t.TransactionalID != "" {
			args = append(args, "whoKey", "groupPage.heldWho", "txid", t.TransactionalID)
		}
		// The start time beside the age, when the broker says it: the
		// moment to look for in the producer's own logs.
		since := ""
		if t.StartTimestamp > 0 {
			since = "Since"
			args = append(args, "start", time.UnixMilli(t.StartTimestamp).UTC().Format("2006-01-02 15:04:05 UTC"))
		}
		switch {
		case t.AgeMs > 0 && t.TimeoutMs > 0:
			args = append(args, "ageKey", "groupPage.heldAge"+since, "timeout", i64(t.TimeoutMs/1000))
			args = append(args, durationArgs(t.AgeMs)...)
		case t.AgeMs > 0:
			args = append(args, "ageKey", "groupPage.heldAgeOnly"+since)
			args = append(args, durationArgs(t.AgeMs)...)
		}
	}
	m := catalog.M("groupPage.why.held", args...)
	for _, k := range []string{"who", "age"} { // a Key argument fills the placeholder instead
		if _, ok := m.Args[k+"Key"]; ok {
			delete(m.Args, k)
		}
	}
	return m
}

// heldTransactionPath is the transactions page showing the producers of
// the held partition's topic, where the holder can be aborted.
func heldTransactionPath(h *cluster.LSOHold) string {
	return "/transactions?topic=" + url.QueryEscape(h.Topic)
}

// heldCellsPath is the partition page at the held LSO's cell.
func heldCellsPath(h *cluster.LSOHold) string {
	o := strconv.FormatInt(h.LastStableOffset, 10)
	return partitionPath(h.Topic, h.Partition) + "?at=" + o + "&sel=" + o
}
