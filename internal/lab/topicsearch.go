package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// A topic-wide search and seek by time: what an engineer asks first ("where
// is key K?", "what was written at 10:05?") without knowing the partition.
// Each partition is searched as the partition's search does
// (inspect.Inspector.Search), several at once when the caller lends turns
// (TopicSearchRequest.Workers), and the matches are merged.

// TopicSearchRequest is a search of every partition of a topic.
type TopicSearchRequest struct {
	// SearchRequest is the partition's search: the query, where to look,
	// From and To (applied to each partition, clamped to its log), and
	// Limit (the most matches of the whole call). Its MaxBytes is the
	// call's budget of record-batch bytes, shared out between the
	// partitions still to search (0: DefaultTopicSearchBytes). Its
	// Progress is not used: see Progress.
	inspect.SearchRequest
	// Resume continues an earlier call: each partition's next offset, as
	// TopicSearchResult.Next gives them. Partitions it leaves out are done
	// and are not searched again. Nil searches every partition.
	Resume map[int32]int64
	// Workers lends turns for more partitions at once: it reports
	// whether one more may run now and returns its release. Nil runs one
	// partition at a time (the caller's own turn).
	Workers func() (release func(), ok bool)
	// Progress, when set, is told of each partition's progress and end,
	// from the searching goroutines one at a time.
	Progress func(TopicSearchProgress)
}

// Bounds of a topic-wide search.
const (
	// DefaultTopicSearchBytes is the record-batch bytes one call reads
	// when the request does not say: four partitions' default searches.
	DefaultTopicSearchBytes = 4 * inspect.DefaultSearchBytes
	// minPartitionSearchBytes is the least any partition gets of a call's
	// budget, so that a topic of many partitions still moves each on.
	minPartitionSearchBytes = 4 << 20
)

// TopicSearchProgress is how far one partition's search got.
type TopicSearchProgress struct {
	Partition int32 `json:"partition"`
	ScannedTo int64 `json:"scannedTo"`
	Matches   int   `json:"matches"`
	// Done is set once the partition's part of the call ended.
	Done bool `json:"done,omitempty"`
}

// TopicMatch is a matching record with its partition.
type TopicMatch struct {
	Partition int32 `json:"partition"`
	inspect.Entry
}

// PartitionScan is what one call searched of a partition.
type PartitionScan struct {
	Partition   int32  `json:"partition"`
	ScannedFrom int64  `json:"scannedFrom"`
	ScannedTo   int64  `json:"scannedTo"`
	Next        *int64 `json:"next"`
	Matches     int    `json:"matches"`
}

// TopicSearchResult is what one SearchTopic call found.
type TopicSearchResult struct {
	Topic string `json:"topic"`
	// Matches are in partition order, then offset order.
	Matches    []TopicMatch    `json:"matches"`
	Partitions []PartitionScan `json:"partitions"`
	// Next continues the search ("partition:offset,…", the Resume of the
	// next call, the API's next parameter); null when every partition is
	// done.
	Next *string `json:"next"`
	// Truncated is set when the answer's byte budget cut the matches.
	Truncated bool `json:"truncated,omitempty"`
}

// SearchTopic searches every partition of topic (see TopicSearchRequest).
// Cost: per partition, what inspect.Inspector.Search costs within its
// share of the byte budget; at most the caller's turns run at once.
// Memory: the matches of every partition searched (each call's limit at
// most, values cut as the log's are) until they are merged and cut to
// Limit and the inspector's answer budget. A partition whose search fails
// fails the call (a refused READ says which right is missing).
func (l *Lab) SearchTopic(ctx context.Context, topic string, req TopicSearchRequest) (*TopicSearchResult, error) {
	t, err := l.Topic(ctx, topic)
	if err != nil {
		return nil, err
	}
	var partitions []int32
	for _, p := range t.Partitions {
		if _, ok := req.Resume[p.Partition]; req.Resume == nil || ok {
			partitions = append(partitions, p.Partition)
		}
	}
	limit := req.Limit
	if limit <= 0 {
		limit = inspect.DefaultSearchLimit
	}
	limit = min(limit, inspect.MaxSearchLimit)
	budget := req.MaxBytes
	if budget <= 0 {
		budget = DefaultTopicSearchBytes
	}
	share := max(budget/int64(max(len(partitions), 1)), minPartitionSearchBytes)

	results := make([]*inspect.SearchResult, len(partitions))
	errs := make([]error, len(partitions))
	var progress sync.Mutex
	tell := func(p TopicSearchProgress) {
		if req.Progress != nil {
			progress.Lock()
			defer progress.Unlock()
			req.Progress(p)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	search := func(i int) {
		partition := partitions[i]
		one := req.SearchRequest
		one.Limit, one.MaxBytes = limit, share
		if from, ok := req.Resume[partition]; ok {
			one.From = from
		}
		one.Progress = func(p inspect.SearchProgress) {
			tell(TopicSearchProgress{Partition: partition, ScannedTo: p.ScannedTo, Matches: p.Matches})
		}
		res, err := l.inspector.Search(ctx, topic, partition, one)
		if err != nil {
			errs[i] = err
			cancel() // one failure ends the call: stop the others
			return
		}
		results[i] = res
		tell(TopicSearchProgress{Partition: partition, ScannedTo: res.ScannedTo, Matches: len(res.Matches), Done: true})
	}
	var wg sync.WaitGroup
	for i := range partitions {
		if ctx.Err() != nil {
			break
		}
		// The caller's own turn searches one partition; each turn lent
		// searches one more beside it.
		if release, ok := lend(req.Workers); ok {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer release()
				search(i)
			}()
			continue
		}
		search(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, l.notAllowed(err, "READ", "topic", topic)
		}
	}
	for _, r := range results {
		if r == nil { // the caller went away (Stop) before every partition was searched
			return nil, fmt.Errorf("lab: search %s: %w", topic, context.Cause(ctx))
		}
	}
	return l.mergeSearch(topic, partitions, results, limit), nil
}

// lend asks workers for a turn.
func lend(workers func() (func(), bool)) (func(), bool) {
	if workers == nil {
		return nil, false
	}
	return workers()
}

// mergeSearch merges the partitions' answers: matches in partition then
// offset order cut to limit and to the inspector's answer budget, each
// partition's next offset (at its first match left out when the cut fell
// inside it).
func (l *Lab) mergeSearch(topic string, partitions []int32, results []*inspect.SearchResult, limit int) *TopicSearchResult {
	out := &TopicSearchResult{Topic: topic, Matches: []TopicMatch{}, Partitions: []PartitionScan{}}
	used := int64(0)
	full := false
	for i, partition := range partitions {
		res := results[i]
		scan := PartitionScan{Partition: partition, ScannedFrom: res.ScannedFrom, ScannedTo: res.ScannedTo, Next: res.Next}
		for _, e := range res.Matches {
			if !full {
				size := int64(entrySize(e))
				if len(out.Matches) >= limit || used+size > l.inspector.AnswerBytes {
					full = true
					out.Truncated = used+size > l.inspector.AnswerBytes
				} else {
					used += size
					out.Matches = append(out.Matches, TopicMatch{Partition: partition, Entry: e})
					scan.Matches++
					continue
				}
			}
			// Left out: this partition goes on from its first match
			// not given.
			if scan.Next == nil || *scan.Next > e.Offset {
				at := e.Offset
				scan.Next, scan.ScannedTo = &at, at
			}
			break
		}
		out.Partitions = append(out.Partitions, scan)
	}
	var next []string
	for _, s := range out.Partitions {
		if s.Next != nil {
			next = append(next, fmt.Sprintf("%d:%d", s.Partition, *s.Next))
		}
	}
	if len(next) > 0 {
		joined := strings.Join(next, ",")
		out.Next = &joined
	}
	return out
}

// entrySize is the bytes an entry takes in the answer's JSON.
func entrySize(e inspect.Entry) int {
	b, err := json.Marshal(e)
	if err != nil {
		return 0
	}
	return len(b) + 16 // its partition and the comma
}

// ParseResume reads a search's next ("partition:offset,…") into
// TopicSearchRequest.Resume; "" is nil (every partition).
func ParseResume(s string) (map[int32]int64, error) {
	if s == "" {
		return nil, nil
	}
	out := map[int32]int64{}
	for _, part := range strings.Split(s, ",") {
		p, o, ok := strings.Cut(part, ":")
		pn, err1 := strconv.ParseInt(p, 10, 32)
		on, err2 := strconv.ParseInt(o, 10, 64)
		if !ok || err1 != nil || err2 != nil || pn < 0 || on < 0 {
			return nil, problem.New(problem.Invalid, "error.searchNext", "value", s)
		}
		out[int32(pn)] = on
	}
	return out, nil
}

// PartitionTimeOffset is one partition's first offset at or after a time.
type PartitionTimeOffset struct {
	Partition int32 `json:"partition"`
	inspect.TimestampOffset
}

// TopicOffsetsForTime seeks every partition of topic to ms, as a consumer
// seeking by time would (ListOffsets by timestamp), the partitions at once
// up to the turns workers lends. Cost: per partition what
// OffsetForTimestamp costs (a ListOffsets and the pointers).
func (l *Lab) TopicOffsetsForTime(ctx context.Context, topic string, ms int64, workers func() (func(), bool)) ([]PartitionTimeOffset, error) {
	t, err := l.Topic(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := make([]PartitionTimeOffset, len(t.Partitions))
	errs := make([]error, len(t.Partitions))
	var wg sync.WaitGroup
	seek := func(i int) {
		p := t.Partitions[i].Partition
		o, err := l.inspector.OffsetForTimestamp(ctx, topic, p, ms)
		out[i], errs[i] = PartitionTimeOffset{Partition: p, TimestampOffset: o}, err
	}
	for i := range t.Partitions {
		if release, ok := lend(workers); ok {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer release()
				seek(i)
			}()
			continue
		}
		seek(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, l.notAllowed(err, "DESCRIBE", "topic", topic)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return slices.Clip(out), nil
}
