package live

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// feed watches one partition for its subscribers. Its run goroutine is the
// only writer of the partition state; mu guards that state and the
// subscriber set together, so a snapshot and the updates after it are
// always in order.
type feed struct {
	hub  *Hub
	key  feedKey
	done chan struct{}
	once sync.Once
	kick chan struct{} // asks for a poll now

	mu           sync.Mutex
	subs         map[*Subscription]struct{}
	havePointers bool
	pointers     inspect.Pointers
	tail         map[int64]inspect.Entry // the last offsets, for snapshots and diffs
	sizes        map[int64]int           // each tail entry's inspect.EncodedSize
	tailCut      bool                    // the byte bound left older tail offsets out
	groups       []cluster.PartitionGroupOffset
	shares       []cluster.SharePartition // the share lanes of the tail (share.go)
	sharesJSON   string                   // as last sent, to tell a change
	unreachable  bool
	problem      *Event        // why the partition cannot be read, if it cannot
	keepUntil    time.Time     // polled until then even without subscribers
	rereads      int           // polls left to read again a tail that came back short
	wholeTail    bool          // the next poll reads the whole tail (Hub.Rewritten)
	shortAt      int64         // the high watermark of that read
	shortFrom    int64         // the first offset it lacked
	kicks        int           // polls asked for (keep)
	served       int           // the kicks a finished poll answered, groups and share lanes read
	polled       chan struct{} // closed, and replaced, when a poll finishes
	pending      []Event       // narrated ahead of the offsets read, not yet recorded
	aliases      aliasTable    // the partition's producers, numbered (aliases.go)
}

func newFeed(h *Hub, key feedKey) *feed {
	return &feed{
		hub: h, key: key, done: make(chan struct{}), kick: make(chan struct{}, 1), polled: make(chan struct{}),
		subs: make(map[*Subscription]struct{}),
		tail: make(map[int64]inspect.Entry), sizes: make(map[int64]int),
	}
}

// subscribe adds a subscriber and queues its snapshot.
func (f *feed) subscribe(recent []Event) *Subscription {
	ch := make(chan []byte, f.hub.cfg.Buffer)
	s := &Subscription{C: ch, ch: ch, feed: f}
	f.mu.Lock()
	defer f.mu.Unlock()
	snap := Message{Type: TypeSnapshot, Topic: f.key.topic, Partition: f.key.partition, Events: recent, Groups: f.groups, Shares: f.shares, Producers: f.aliases.snapshot()}
	if f.havePointers {
		p := f.pointers
		snap.Pointers = &p
	}
	snap.Entries, snap.Truncated = f.sortedTail(), f.tailCut
	reachable := !f.unreachable
	snap.Reachable = &reachable
	snap.Problem = f.problem
	ch <- encode(snap)
	f.subs[s] = struct{}{}
	return s
}

func (f *feed) unsubscribe(s *Subscription) {
	f.mu.Lock()
	if _, ok := f.subs[s]; ok {
		delete(f.subs, s)
		close(s.ch)
	}
	empty := len(f.subs) == 0
	f.mu.Unlock()
	if empty {
		f.hub.removeIfIdle(f)
	}
}

// keep keeps the feed polling for d from now and asks for a poll at
// once; the returned function waits until a poll that started after this
// call, and read the groups and share lanes too, has finished (or the
// feed stopped, or ctx ended).
func (f *feed) keep(d time.Duration) func(ctx context.Context) error {
	f.mu.Lock()
	f.keepUntil = time.Now().Add(d)
	f.kicks++
	target, ch := f.kicks, f.polled
	f.mu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
	return func(ctx context.Context) error {
		for {
			select {
			case <-ch:
			case <-f.done:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
			f.mu.Lock()
			done := f.served >= target
			ch = f.polled
			f.mu.Unlock()
			if done {
				return nil
			}
		}
	}
}

// keptUntil is when the feed may stop without subscribers.
func (f *feed) keptUntil() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.keepUntil
}

func (f *feed) stop() {
	f.once.Do(func() {
		close(f.done)
		f.mu.Lock()
		defer f.mu.Unlock()
		for s := range f.subs {
			close(s.ch)
		}
		f.subs = map[*Subscription]struct{}{}
	})
}

// publish queues msg for every subscriber without blocking; a subscriber
// whose queue is full is dropped and marked lagged.
func (f *feed) publish(msg []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.publishLocked(msg)
}

func (f *feed) publishLocked(msg []byte) {
	for s := range f.subs {
		select {
		case s.ch <- msg:
		default:
			s.lagged = true
			delete(f.subs, s)
			close(s.ch)
		}
	}
}

func (f *feed) sortedTail() []inspect.Entry {
	offsets := slices.Sorted(maps.Keys(f.tail))
	out := make([]inspect.Entry, 0, len(offsets))
	for _, o := range offsets {
		out = append(out, f.tail[o])
	}
	return out
}

func (f *feed) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-f.done
		cancel()
	}()
	ticker := time.NewTicker(f.hub.cfg.PollInterval)
	defer ticker.Stop()
	kicked := true // the first poll reads everything
	for n := 0; ; n++ {
		f.mu.Lock()
		// A kicked poll answers every kick asked for before it started.
		serves := f.served
		if kicked {
			serves = f.kicks
		}
		whole := f.wholeTail || n > 0 && n%f.hub.cfg.TailEvery == 0
		f.wholeTail = false
		f.mu.Unlock()
		f.poll(ctx, kicked || n%f.hub.cfg.GroupEvery == 0, whole)
		f.mu.Lock()
		f.served = serves
		close(f.polled)
		f.polled = make(chan struct{})
		idle := len(f.subs) == 0 && !time.Now().Before(f.keepUntil)
		f.mu.Unlock()
		if idle {
			f.hub.removeIfIdle(f)
		}
		select {
		case <-f.done:
			return
		case <-ticker.C:
			// A kick that came with the tick still counts: whoever
			// kicked (Keep) waits on this poll and wants the groups
			// and share lanes read too.
			select {
			case <-f.kick:
				kicked = true
			default:
				kicked = false
			}
		case <-f.kick:
			kicked = true
		}
	}
}

// poll reads what changed since the last poll and publishes it; with
// wholeTail, the whole tail rather than what lies at or above the previous
// LSO (which compaction does not move).
func (f *feed) poll(ctx context.Context, withGroups, wholeTail bool) {
	cfg := f.hub.cfg
	pollCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ptrs, err := f.hub.src.Pointers(pollCtx, f.key.topic, f.key.partition)
	if err != nil {
		if ctx.Err() == nil {
			f.failed(err)
		}
		return
	}
	f.mu.Lock()
	prev, had, wasDown, reread, shortFrom := f.pointers, f.havePointers, f.unreachable, f.rereads > 0, f.shortFrom
	f.mu.Unlock()

	var (
		changed []inspect.Entry
		cut     bool // the read left older offsets out (MessageBytes)
	)
	if !had || ptrs != prev || wasDown || reread || wholeTail {
		// Below the previous LSO only the log cleaner changes offsets
		// (read again every TailEvery polls, or when told), so mostly
		// only [previous LSO, HW) can have changed; of that, viewers are
		// streamed the last TailEntries offsets. A viewer looking
		// further back refetches its window when the LSO moves.
		from := max(ptrs.HighWatermark-int64(cfg.TailEntries), ptrs.LogStartOffset, 0)
		if had && !wasDown && !wholeTail {
			from = max(from, min(prev.LastStableOffset, prev.HighWatermark))
		}
		if reread {
			from = max(min(from, shortFrom), ptrs.LogStartOffset)
		}
		if had && from > prev.HighWatermark { // a burst: name who wrote what the tail skips
			f.readWriters(pollCtx, max(prev.HighWatermark, ptrs.LogStartOffset), from)
		}
		if n := ptrs.HighWatermark - from; n > 0 {
			l, tailCut, err := f.readTail(pollCtx, from, n)
			if err != nil {
				if ctx.Err() == nil {
					f.failed(err)
				}
				return
			}
			ptrs, cut = l.Pointers, tailCut
			changed = f.diff(l.Entries)
			f.checkComplete(from, l, ptrs)
		}
	}
	var groups []cluster.PartitionGroupOffset
	groupsChanged := false
	if withGroups && f.hub.groups != nil {
		if g, err := f.hub.groups.PartitionGroups(pollCtx, f.key.topic, f.key.partition); err == nil {
			groups = g
			f.mu.Lock()
			groupsChanged = !slices.Equal(groups, f.groups)
			f.mu.Unlock()
		}
	}
	var shares []cluster.SharePartition
	sharesChanged := false
	if withGroups {
		shares, sharesChanged = f.pollShares(pollCtx, ptrs.HighWatermark-int64(cfg.TailEntries))
	}
	// The first poll shows the log as it is; only later changes are news.
	var events []Event
	if had {
		before := f.tailSnapshot()
		events = append(narrateLogStart(f.key, prev, ptrs), narrate(f.key, news(changed, readEnd(before), before), before)...)
	}

	f.mu.Lock()
	if f.unreachable {
		f.unreachable = false
		yes := true
		f.publishLocked(encode(Message{Type: TypeBroker, Topic: f.key.topic, Partition: f.key.partition, Reachable: &yes}))
	}
	if f.problem != nil {
		f.problem = nil
		f.publishLocked(encode(Message{Type: TypeProblem, Topic: f.key.topic, Partition: f.key.partition}))
	}
	for _, e := range changed {
		f.tail[e.Offset] = e
		f.sizes[e.Offset] = inspect.EncodedSize(&e)
	}
	f.pruneLocked(ptrs)
	if had {
		f.aliasLocked(changed, false)
	}
	if groupsChanged {
		f.groups = groups
	}
	if !had {
		f.hub.history.started(f.key, ptrs, f.sortedTail(), f.tailCut, f.groups)
	}
	// An update holds at most MessageBytes of entries: a larger change
	// is sent as several, in offset order.
	for i, chunk := range chunksWithin(changed, f.hub.cfg.MessageBytes) {
		f.changedLocked(had, Message{Type: TypeEntries, Topic: f.key.topic, Partition: f.key.partition, Entries: chunk, Truncated: cut && i == 0})
	}
	if !f.havePointers || ptrs != f.pointers {
		f.havePointers, f.pointers = true, ptrs
		p := ptrs
		f.changedLocked(had, Message{Type: TypePointers, Topic: f.key.topic, Partition: f.key.partition, Pointers: &p})
	}
	if groupsChanged {
		f.changedLocked(had, Message{Type: TypeGroups, Topic: f.key.topic, Partition: f.key.partition, Groups: groups})
	}
	if sharesChanged {
		f.shares = shares
		f.publishLocked(encode(Message{Type: TypeShare, Topic: f.key.topic, Partition: f.key.partition, Shares: shares}))
	}
	f.recordPendingLocked()
	f.mu.Unlock()
	for _, e := range events {
		f.hub.Narrate(e)
	}
	if !had && f.havePointersNow() {
		f.nameFirstWriters(pollCtx) // after the first cells are out: the scan may take a while
	}
}

// readTail reads the n offsets from from on, in as many windows as the
// source's answer budget takes, and keeps the newest entries that fit in
// MessageBytes — what the tail may hold, and so what one update sends —
// reporting whether it left older ones out (the page reads those with
// …/log). The Log has the first read's pointers.
func (f *feed) readTail(ctx context.Context, from, n int64) (*inspect.Log, bool, error) {
	l, err := f.hub.src.ReadLog(ctx, f.key.topic, f.key.partition, from, int(n))
	if err != nil {
		return nil, false, err
	}
	end, bound := from+n, f.hub.cfg.MessageBytes
	entries, cut := newestWithin(l.Entries, bound)
	for last := l; last.Truncated && last.Next != nil && *last.Next > from && *last.Next < end; {
		from = *last.Next
		if last, err = f.hub.src.ReadLog(ctx, f.key.topic, f.key.partition, from, int(end-from)); err != nil {
			return nil, false, err
		}
		var more bool
		entries, more = newestWithin(append(entries, last.Entries...), bound)
		cut = cut || more
	}
	l.Entries, l.Truncated, l.Next = entries, false, nil
	return l, cut, nil
}

// shortReads is how many more polls read the tail again when a read
// ended before the high watermark: a broker may answer a high watermark
// that already counts a marker its fetch does not return yet.
const shortReads = 25

// checkComplete notes whether the read reached the last offset below the
// high watermark, and if not has the next polls read the tail again
// (a while: a compacted log may have lost its last offsets for good).
func (f *feed) checkComplete(from int64, l *inspect.Log, ptrs inspect.Pointers) {
	next := from // the first offset the read lacks
	if n := len(l.Entries); n > 0 {
		next = l.Entries[n-1].Offset + 1
	}
	short := next < ptrs.HighWatermark
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case !short:
		f.rereads, f.shortAt = 0, -1
	case ptrs.HighWatermark != f.shortAt:
		f.rereads, f.shortAt = shortReads, ptrs.HighWatermark
		f.shortFrom = next
	case f.rereads > 0:
		f.rereads--
	}
}

// changedLocked tells viewers of a change and, unless it is part of the
// first read (recorded as the snapshot), records it in the history.
func (f *feed) changedLocked(recorded bool, m Message) {
	f.publishLocked(encode(m))
	if recorded {
		f.hub.history.record(f.key, m)
	}
}

// narrated records an event about this partition in its history — once
// the feed has read the offsets it tells of, so that a replay shows the
// cells before the sentence about them.
func (f *feed) narrated(e Event) {
	if f.hub.history == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = append(f.pending, e)
	f.recordPendingLocked()
}

// pendingFor is how long an event waits for the offsets it tells of
// before it is recorded anyway.
const pendingFor = 5 * time.Second

func (f *feed) recordPendingLocked() {
	keep := f.pending[:0]
	for _, e := range f.pending {
		hw := f.pointers.HighWatermark
		ahead := !f.havePointers || (e.Offset != nil && *e.Offset >= hw) || (e.At != nil && *e.At > hw)
		if ahead && time.Since(e.Time) < pendingFor {
			keep = append(keep, e)
			continue
		}
		f.hub.history.record(f.key, Message{Type: TypeEvent, Topic: f.key.topic, Partition: f.key.partition, Event: &e})
	}
	f.pending = keep
}

// diff returns the entries that are new or differ from what viewers have,
// each new data record marked as the duplicate of an earlier twin in the
// tail, if it has one (the window alone may not hold the twin).
func (f *feed) diff(entries []inspect.Entry) []inspect.Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	var changed []inspect.Entry
	for _, e := range entries {
		old, ok := f.tail[e.Offset]
		if !ok || old.Txn != e.Txn || old.Kind != e.Kind ||
			old.ReadCommitted != e.ReadCommitted || old.ReadUncommitted != e.ReadUncommitted {
			if ok && e.DuplicateOf == nil {
				e.DuplicateOf = old.DuplicateOf
			}
			changed = append(changed, e)
		}
	}
	if len(changed) > 0 && len(entries) > 0 {
		all := f.sortedTail()
		all = slices.DeleteFunc(all, func(e inspect.Entry) bool { return e.Offset >= entries[0].Offset })
		all = append(all, entries...)
		inspect.MarkDuplicates(all)
		twins := map[int64]*int64{}
		for _, e := range all {
			if e.DuplicateOf != nil {
				twins[e.Offset] = e.DuplicateOf
			}
		}
		for i := range changed {
			if d, ok := twins[changed[i].Offset]; ok {
				changed[i].DuplicateOf = d
			}
		}
	}
	return changed
}

// readEnd is one past the newest offset of tail: what the feed has read
// up to. Not the previous high watermark: a read can return fewer offsets
// than the pointers it answers with (a marker counted in the high
// watermark before a fetch returns it), and the offsets it lacked are
// news when a later poll reads them.
func readEnd(tail map[int64]inspect.Entry) int64 {
	end := int64(0)
	for o := range tail {
		end = max(end, o+1)
	}
	return end
}

func (f *feed) tailSnapshot() map[int64]inspect.Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.tail)
}

// pruneLocked keeps the last TailEntries offsets below the high watermark,
// and of those the newest that fit in MessageBytes; tailCut says whether
// the tail then lacks some of those offsets.
func (f *feed) pruneLocked(p inspect.Pointers) {
	keepFrom := max(p.HighWatermark-int64(f.hub.cfg.TailEntries), p.LogStartOffset)
	var used int64
	for o := range f.tail {
		if o < keepFrom || o >= p.HighWatermark {
			delete(f.tail, o)
			delete(f.sizes, o)
			continue
		}
		used += int64(f.sizes[o])
	}
	offsets := slices.Sorted(maps.Keys(f.tail))
	for len(offsets) > 1 && used > f.hub.cfg.MessageBytes {
		used -= int64(f.sizes[offsets[0]])
		delete(f.tail, offsets[0])
		delete(f.sizes, offsets[0])
		offsets = offsets[1:]
	}
	f.tailCut = len(offsets) > 0 && offsets[0] > keepFrom
}
