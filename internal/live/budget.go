package live

import "github.com/offsetlab/offsetlab/internal/inspect"

// The live view's byte bounds. An offset costs its entry's JSON
// (inspect.EncodedSize): a few hundred bytes for an ordinary record, up to
// about half a MiB for one with MaxHeaders headers of long escaped values.
// So the tail a feed keeps (and every snapshot it sends), each update and
// each replay-history step hold at most Config.MessageBytes of entries:
// the newest ones, the older left out and the message marked Truncated,
// as a viewer's …/log read says where to go on.

// defaultMessageBytes is Config.MessageBytes's default: 200 offsets of
// records with 1 KiB values and a few headers fit, so that ordinary
// partitions are never cut.
const defaultMessageBytes = 1 << 20

// messageOverhead is what a message costs besides its entries (the
// envelope, pointers, a few groups).
const messageOverhead = 4 << 10

// entriesSize is the JSON size of entries, as the budgets count it.
func entriesSize(entries []inspect.Entry) int64 {
	var n int64
	for i := range entries {
		n += int64(inspect.EncodedSize(&entries[i]))
	}
	return n
}

// newestWithin is the longest tail of entries (in offset order) that
// takes at most max bytes, and whether it left any out. The last entry is
// always kept, whatever its size (an entry is bounded by inspect's caps).
func newestWithin(entries []inspect.Entry, max int64) ([]inspect.Entry, bool) {
	var used int64
	for i := len(entries) - 1; i >= 0; i-- {
		used += int64(inspect.EncodedSize(&entries[i]))
		if used > max && i < len(entries)-1 {
			return entries[i+1:], true
		}
	}
	return entries, false
}

// chunksWithin splits entries into consecutive runs of at most max bytes
// each (a run holds at least one entry).
func chunksWithin(entries []inspect.Entry, max int64) [][]inspect.Entry {
	var (
		chunks [][]inspect.Entry
		start  int
		used   int64
	)
	for i := range entries {
		size := int64(inspect.EncodedSize(&entries[i]))
		if i > start && used+size > max {
			chunks = append(chunks, entries[start:i])
			start, used = i, 0
		}
		used += size
	}
	if start < len(entries) {
		chunks = append(chunks, entries[start:])
	}
	return chunks
}
