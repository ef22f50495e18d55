package live

import (
	"context"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// Producer aliases: a class reads "P1" and "P2", not 19-digit producer
// ids. The feed numbers a partition's producers once, in the order of
// their first offset in the log (read from the log start at the feed's
// first poll, then from each new offset — and from the batch headers of
// offsets a burst wrote past the tail a poll reads), and sends the table to every
// viewer, so that the cells, the story, the processor log and the
// transaction panel of every page — and of the same page after a reload —
// name a producer alike. A number, once given, is kept while the feed
// runs: a producer whose records retention later deletes keeps its name.

// WritersBytes caps the batch bytes a feed reads at once to number the
// producers (64 MiB): at its first poll from the log start, later over
// offsets written faster than its tail. A partition larger than that is
// numbered from the start up to the cap, and after it as new offsets are
// read (the tail first), still the same for every viewer of the feed.
const WritersBytes = 64 << 20

// ProducerAlias is a producer's short name on one partition.
type ProducerAlias struct {
	ProducerID int64  `json:"producerId"`
	Alias      string `json:"alias"`
	// FirstOffset is where the feed first saw it write.
	FirstOffset int64 `json:"firstOffset"`
}

// WriterSource lists who wrote a partition from its log start;
// *inspect.Inspector is one. A Source that is not one has its producers
// numbered from the offsets the feed reads.
type WriterSource interface {
	Writers(ctx context.Context, topic string, partition int32, from, to, maxBytes int64) (*inspect.PartitionWriters, error)
}

// MaxAliases caps a partition's table (inspect.MaxWriters): a partition
// written by a new idempotent producer per record (a kcat per line) keeps
// its table, sent whole whenever it grows, small. Producers past it have
// no name; the page shows their ids shortened.
const MaxAliases = inspect.MaxWriters

// aliasTable numbers producers in the order they are added.
type aliasTable struct {
	list  []ProducerAlias
	ids   map[int64]bool
	grown bool // numbered some producer since the table was last sent
}

// add numbers pid if it has no number yet, reporting whether it got one.
func (a *aliasTable) add(pid, first int64) bool {
	if pid < 0 || a.ids[pid] || len(a.list) >= MaxAliases {
		return false
	}
	if a.ids == nil {
		a.ids = make(map[int64]bool)
	}
	a.ids[pid] = true
	a.list = append(a.list, ProducerAlias{ProducerID: pid, Alias: "P" + strconv.Itoa(len(a.list)+1), FirstOffset: first})
	a.grown = true
	return true
}

// addEntries numbers the producers of entries (in offset order) not
// numbered yet, reporting whether any was.
func (a *aliasTable) addEntries(entries []inspect.Entry) bool {
	grew := false
	for _, e := range entries {
		if a.add(e.ProducerID, e.Offset) {
			grew = true
		}
	}
	return grew
}

// snapshot is a copy of the table, for a message.
func (a *aliasTable) snapshot() []ProducerAlias {
	return append([]ProducerAlias(nil), a.list...)
}

// readWriters numbers the producers of [from, to) (-1: the log start,
// the high watermark) from their batch headers (see WritersBytes). A
// failure is logged and leaves the numbering to the offsets read.
func (f *feed) readWriters(ctx context.Context, from, to int64) {
	src, ok := f.hub.src.(WriterSource)
	if !ok || (to >= 0 && from >= to) {
		return
	}
	w, err := src.Writers(ctx, f.key.topic, f.key.partition, from, to, WritersBytes)
	if err != nil {
		f.hub.cfg.Logger.Warn("live: producers of the partition", "topic", f.key.topic, "partition", f.key.partition, "err", err)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range w.Producers {
		f.aliases.add(p.ProducerID, p.FirstOffset)
	}
}

// nameFirstWriters numbers, once the first poll has sent its cells, the
// producers from the log start, then those of the tail, and sends the
// table: a viewer sees the cells at once and their names when the scan
// is done (a large partition's takes a while).
func (f *feed) nameFirstWriters(ctx context.Context) {
	f.readWriters(ctx, -1, -1)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.aliasLocked(f.sortedTail(), true)
}

// havePointersNow reports whether a poll has read the partition.
func (f *feed) havePointersNow() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.havePointers
}

// aliasLocked numbers the producers of changed and, when the table grew
// since it was last sent (here, or from batch headers a burst's scan read)
// or always is set, sends it whole.
func (f *feed) aliasLocked(changed []inspect.Entry, always bool) {
	f.aliases.addEntries(changed)
	if !f.aliases.grown && !always {
		return
	}
	f.aliases.grown = false
	f.publishLocked(encode(Message{Type: TypeProducers, Topic: f.key.topic, Partition: f.key.partition, Producers: f.aliases.snapshot()}))
}

// ProducerAliases is topic/partition's table of producer names as its
// pages show them: the running feed's while someone watches the
// partition, else numbered from the log start as a new feed numbers them,
// over at most maxBytes of batch headers (at most WritersBytes). The
// numbering follows the order of first offsets, so a smaller cap only
// leaves the later producers unnamed; none gets another's name. It costs
// one read of batch headers when no feed runs, nothing when one does;
// an error is the source's. A Source that lists no writers names none.
func (h *Hub) ProducerAliases(ctx context.Context, topic string, partition int32, maxBytes int64) ([]ProducerAlias, error) {
	h.mu.Lock()
	f := h.feeds[feedKey{topic, partition}]
	h.mu.Unlock()
	if f != nil {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.aliases.snapshot(), nil
	}
	src, ok := h.src.(WriterSource)
	if !ok {
		return nil, nil
	}
	if maxBytes <= 0 || maxBytes > WritersBytes {
		maxBytes = WritersBytes
	}
	w, err := src.Writers(ctx, topic, partition, -1, -1, maxBytes)
	if err != nil {
		return nil, err
	}
	var table aliasTable
	for _, p := range w.Producers {
		table.add(p.ProducerID, p.FirstOffset)
	}
	return table.snapshot(), nil
}
