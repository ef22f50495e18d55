package live

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// Source reads partitions; *inspect.Inspector is one.
type Source interface {
	ReadLog(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error)
	Pointers(ctx context.Context, topic string, partition int32) (inspect.Pointers, error)
}

// GroupSource lists the consumer groups that committed an offset on a
// partition; *cluster.Cluster is one. It may be nil, and then no group
// pointers are streamed.
type GroupSource interface {
	PartitionGroups(ctx context.Context, topic string, partition int32) ([]cluster.PartitionGroupOffset, error)
}

// Config tunes a Hub. Zero values pick the defaults.
type Config struct {
	// PollInterval is how often a watched partition is polled (200ms).
	PollInterval time.Duration
	// GroupEvery polls group offsets every this many polls (5).
	GroupEvery int
	// TailEvery reads the whole tail again every this many polls (25),
	// not only what lies at or above the previous LSO: the log cleaner
	// rewrites offsets below it (compaction) without moving a pointer.
	TailEvery int
	// Buffer is each subscriber's queue length in messages (256).
	Buffer int
	// TailEntries is how many offsets at the end of the log a snapshot
	// carries (200).
	TailEntries int
	// RecentEvents is how many narrated events a snapshot replays (50).
	RecentEvents int
	// MaxFeeds is how many partitions are watched (polled) at once (64);
	// a viewer of one more partition is refused until one is free.
	MaxFeeds int
	// TeacherFeeds of those are the teacher's (see Viewer): a student
	// may not start the feed of a partition once MaxFeeds-TeacherFeeds
	// are polled, though it may join any feed already running. Default
	// min(16, MaxFeeds/4); negative reserves none.
	TeacherFeeds int
	// MaxFeedsPerClient is how many partitions one student client may
	// watch at once (8), so that a few cannot take every feed.
	MaxFeedsPerClient int
	// KeepFor is how long Keep keeps a partition polled (and its history
	// recorded) after the last write, with no viewer (10 minutes).
	KeepFor time.Duration
	// HistoryDir is where each partition's history is recorded; empty
	// records none.
	HistoryDir string
	// HistorySteps and HistoryBytes bound one partition's history (2000
	// steps, 4 MiB): past either, its older half is folded into one
	// snapshot. HistoryPartitions bounds how many partitions have one
	// (256): the least recently written is dropped.
	HistorySteps      int
	HistoryBytes      int64
	HistoryPartitions int
	// MessageBytes bounds the entries (as JSON, inspect.EncodedSize)
	// of one websocket message — the tail a snapshot sends, each update
	// — and of one history step (then also at most a quarter of
	// HistoryBytes): 1 MiB. Past it the oldest entries are left out
	// (snapshots and steps say Truncated) or an update is split.
	MessageBytes int64
	// Logger receives poll failures; nil discards them.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.PollInterval <= 0 {
		c.PollInterval = 200 * time.Millisecond
	}
	if c.GroupEvery <= 0 {
		c.GroupEvery = 5
	}
	if c.TailEvery <= 0 {
		c.TailEvery = 25
	}
	if c.Buffer <= 0 {
		c.Buffer = 256
	}
	if c.TailEntries <= 0 {
		c.TailEntries = 200
	}
	if c.RecentEvents <= 0 {
		c.RecentEvents = 50
	}
	if c.MaxFeeds <= 0 {
		c.MaxFeeds = 64
	}
	switch {
	case c.TeacherFeeds == 0:
		c.TeacherFeeds = min(DefaultTeacherFeeds, c.MaxFeeds/4)
	case c.TeacherFeeds < 0:
		c.TeacherFeeds = 0
	}
	c.TeacherFeeds = min(c.TeacherFeeds, c.MaxFeeds)
	if c.MaxFeedsPerClient <= 0 {
		c.MaxFeedsPerClient = DefaultMaxFeedsPerClient
	}
	if c.KeepFor <= 0 {
		c.KeepFor = 10 * time.Minute
	}
	if c.HistorySteps <= 0 {
		c.HistorySteps = defaultHistorySteps
	}
	if c.HistoryBytes <= 0 {
		c.HistoryBytes = defaultHistoryBytes
	}
	if c.HistoryPartitions <= 0 {
		c.HistoryPartitions = defaultHistoryPartitions
	}
	if c.MessageBytes <= 0 {
		c.MessageBytes = defaultMessageBytes
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Defaults of Config.TeacherFeeds and Config.MaxFeedsPerClient: of the 64
// partitions watched at once, 16 stay the teacher's, and a student's
// computer watches at most 8 (a page and a few tabs).
const (
	DefaultTeacherFeeds      = 16
	DefaultMaxFeedsPerClient = 8
)

type feedKey struct {
	topic     string
	partition int32
}

// Hub owns one feed per watched partition and the recent narration.
// Close stops every feed.
type Hub struct {
	src     Source
	groups  GroupSource
	cfg     Config
	history *recorder

	running sync.WaitGroup // the feeds' run goroutines

	mu     sync.Mutex
	feeds  map[feedKey]*feed
	recent []Event
	closed bool
	// watched counts each student client's subscriptions per partition.
	watched map[string]map[feedKey]int
}

// Viewer is who subscribes. A student viewer is counted against
// MaxFeedsPerClient under its Client (an address) and cannot take the
// feeds reserved for the teacher (TeacherFeeds); the teacher is neither
// counted nor held off them.
type Viewer struct {
	Client  string
	Teacher bool
}

// NewHub returns a Hub reading through src (and groups, which may be nil).
func NewHub(src Source, groups GroupSource, cfg Config) *Hub {
	cfg = cfg.withDefaults()
	return &Hub{src: src, groups: groups, cfg: cfg, history: newRecorder(cfg), feeds: make(map[feedKey]*feed), watched: make(map[string]map[feedKey]int)}
}

// Subscription is one viewer of one partition. Messages arrive pre-encoded
// as JSON on C, a snapshot first; C is closed when the subscription ends.
type Subscription struct {
	// C delivers the viewer's messages.
	C <-chan []byte

	ch      chan []byte
	feed    *feed
	once    sync.Once
	lagged  bool   // set by the feed before it closes ch
	release func() // uncounts a student's subscription; nil for the teacher
}

// Lagged reports whether the subscription was dropped because the viewer
// did not keep up. Only meaningful after C is closed.
func (s *Subscription) Lagged() bool {
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	return s.lagged
}

// Close ends the subscription. It is safe to call more than once.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.feed.unsubscribe(s)
		if s.release != nil {
			s.release()
		}
	})
}

// Subscribe starts watching topic/partition as the teacher. The first
// message is a snapshot. The caller must Close the subscription.
func (h *Hub) Subscribe(topic string, partition int32) (*Subscription, error) {
	return h.SubscribeAs(topic, partition, Viewer{Teacher: true})
}

// SubscribeAs starts watching topic/partition for v. A student viewer is
// refused (problem.Busy) when its client already watches
// MaxFeedsPerClient other partitions, or when the partition's feed would
// have to start and only the teacher's feeds are free. The caller must
// Close the subscription.
func (h *Hub) SubscribeAs(topic string, partition int32, v Viewer) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, fmt.Errorf("live: hub closed")
	}
	key := feedKey{topic, partition}
	held := h.watched[v.Client]
	if !v.Teacher && held[key] == 0 && len(held) >= h.cfg.MaxFeedsPerClient {
		return nil, problem.New(problem.Busy, "error.tooManyPartitionsWatchedByClient", "max", strconv.Itoa(h.cfg.MaxFeedsPerClient))
	}
	f, err := h.feedLocked(key, v.Teacher)
	if err != nil {
		return nil, err
	}
	sub := f.subscribe(h.recentLocked(topic, partition))
	if !v.Teacher {
		if held == nil {
			held = make(map[feedKey]int)
			h.watched[v.Client] = held
		}
		held[key]++
		sub.release = func() { h.unwatch(v.Client, key) }
	}
	return sub, nil
}

// unwatch uncounts one of client's subscriptions to key.
func (h *Hub) unwatch(client string, key feedKey) {
	h.mu.Lock()
	defer h.mu.Unlock()
	held := h.watched[client]
	if held[key]--; held[key] <= 0 {
		delete(held, key)
	}
	if len(held) == 0 {
		delete(h.watched, client)
	}
}

// feedLocked returns key's feed, starting it if it is not running and
// there is room: MaxFeeds for the teacher, less TeacherFeeds for a
// student.
func (h *Hub) feedLocked(key feedKey, teacher bool) (*feed, error) {
	if f, ok := h.feeds[key]; ok {
		return f, nil
	}
	limit := h.cfg.MaxFeeds
	if !teacher {
		limit -= h.cfg.TeacherFeeds
	}
	for len(h.feeds) >= limit {
		// Kept feeds (writes no one watches) yield to viewers: as many
		// as it takes, since the teacher's writes may keep more than
		// a student's limit.
		if !h.evictKeptLocked() {
			return nil, problem.New(problem.Busy, "error.tooManyPartitionsWatched", "max", strconv.Itoa(limit))
		}
	}
	f := newFeed(h, key)
	h.feeds[key] = f
	h.running.Go(f.run)
	return f, nil
}

// evictKeptLocked stops the feed kept for a write that no one watches
// and whose keep ends first, making room for another: a viewer, or a
// newer write. It reports false when every feed has viewers.
func (h *Hub) evictKeptLocked() bool {
	var victim *feed
	for _, f := range h.feeds {
		f.mu.Lock()
		idle, until := len(f.subs) == 0, f.keepUntil
		f.mu.Unlock()
		if idle && (victim == nil || until.Before(victim.keptUntil())) {
			victim = f
		}
	}
	if victim == nil {
		return false
	}
	delete(h.feeds, victim.key)
	go victim.stop()
	return true
}

// Rewritten tells the feeds of topic's partitions, when watched, that
// offsets below their LSO changed (the log cleaner compacted them): their
// next poll reads the whole tail again. It waits for that poll, as Keep
// does.
func (h *Hub) Rewritten(ctx context.Context, topic string, partitions ...int32) error {
	h.mu.Lock()
	for _, p := range partitions {
		if f, ok := h.feeds[feedKey{topic, p}]; ok {
			f.mu.Lock()
			f.wholeTail = true
			f.mu.Unlock()
		}
	}
	h.mu.Unlock()
	return h.Keep(ctx, topic, partitions...)
}

// Keep polls topic's partitions (and records their history) for KeepFor
// from now, viewers or not, and returns once each has been read after
// this call — so that a write made next shows in the history as a change
// of the log as it was. The lab calls it before each write; a partition
// that cannot be watched (too many are) is skipped, and said so.
func (h *Hub) Keep(ctx context.Context, topic string, partitions ...int32) error {
	var (
		waits   []func(context.Context) error
		refused error
	)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return fmt.Errorf("live: hub closed")
	}
	for _, p := range partitions {
		f, err := h.feedLocked(feedKey{topic, p}, true) // writes are the teacher's
		if err != nil {
			refused = err
			continue
		}
		waits = append(waits, f.keep(h.cfg.KeepFor))
	}
	h.mu.Unlock()
	for _, wait := range waits {
		if err := wait(ctx); err != nil {
			return err
		}
	}
	return refused
}

// History returns topic/partition's recorded story from step from on
// (empty when no history is kept).
func (h *Hub) History(topic string, partition int32, from int) (History, error) {
	steps, err := h.history.steps(feedKey{topic, partition}, from)
	if steps == nil {
		steps = []Step{}
	}
	return History{Topic: topic, Partition: partition, Steps: steps}, err
}

// Forget stops watching every partition of topic and deletes their
// history: the topic was deleted.
func (h *Hub) Forget(topic string) {
	h.mu.Lock()
	var doomed []*feed
	for key, f := range h.feeds {
		if key.topic == topic {
			doomed = append(doomed, f)
			delete(h.feeds, key)
		}
	}
	h.mu.Unlock()
	for _, f := range doomed {
		f.stop()
	}
	h.history.forget(topic)
}

// Narrate publishes an event to the viewers it concerns (all viewers for
// an event without a topic) and keeps it for later snapshots.
func (h *Hub) Narrate(e Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	h.mu.Lock()
	h.recent = append(h.recent, e)
	if over := len(h.recent) - 4*h.cfg.RecentEvents; over > 0 {
		h.recent = append([]Event(nil), h.recent[over:]...)
	}
	var targets []*feed
	for key, f := range h.feeds {
		if e.Topic == "" || (key.topic == e.Topic && key.partition == e.Partition) {
			targets = append(targets, f)
		}
	}
	h.mu.Unlock()
	msg := encode(Message{Type: TypeEvent, Topic: e.Topic, Partition: e.Partition, Event: &e})
	for _, f := range targets {
		f.publish(msg)
		if e.Topic != "" {
			f.narrated(e)
		}
	}
}

// Recent returns the latest n events of the whole cluster, oldest first.
func (h *Hub) Recent(n int) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	from := max(0, len(h.recent)-n)
	return append([]Event(nil), h.recent[from:]...)
}

// recentLocked returns the latest events that concern a partition.
func (h *Hub) recentLocked(topic string, partition int32) []Event {
	var out []Event
	for i := len(h.recent) - 1; i >= 0 && len(out) < h.cfg.RecentEvents; i-- {
		e := h.recent[i]
		if e.Topic == "" || (e.Topic == topic && e.Partition == partition) {
			out = append(out, e)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Watchers reports how many subscriptions are open, across partitions.
func (h *Hub) Watchers() int {
	h.mu.Lock()
	feeds := make([]*feed, 0, len(h.feeds))
	for _, f := range h.feeds {
		feeds = append(feeds, f)
	}
	h.mu.Unlock()
	n := 0
	for _, f := range feeds {
		f.mu.Lock()
		n += len(f.subs)
		f.mu.Unlock()
	}
	return n
}

// Close stops every feed, ends every subscription and returns once no
// feed polls or records any more.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	feeds := h.feeds
	h.feeds = map[feedKey]*feed{}
	h.mu.Unlock()
	for _, f := range feeds {
		f.stop()
	}
	h.running.Wait()
}

// removeIfIdle forgets and stops f if it has no subscriber and no one
// asked to keep it. Subscribe adds
// subscribers under the hub's lock, so checking under it too means a
// viewer who subscribes as the last one leaves keeps a running feed.
func (h *Hub) removeIfIdle(f *feed) {
	h.mu.Lock()
	f.mu.Lock()
	idle := len(f.subs) == 0 && !time.Now().Before(f.keepUntil)
	f.mu.Unlock()
	if idle && h.feeds[f.key] == f {
		delete(h.feeds, f.key)
	}
	h.mu.Unlock()
	if idle {
		f.stop()
	}
}

// encode turns a message into the JSON a viewer receives. Messages are
// plain data, so an error here means a value JSON cannot hold (a timestamp
// beyond year 9999, say); the viewer then gets an event saying so.
func encode(m Message) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(Message{Type: TypeEvent, Topic: m.Topic, Partition: m.Partition,
			Event: &Event{Time: time.Now(), Kind: EventWarning, Text: fmt.Sprintf("an update (%s) could not be encoded: %v", m.Type, err)}})
	}
	return b
}
