package live

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// A partition's history is the story its feed saw, step by step: a
// snapshot when recording (re)starts, then every change in the order it
// happened — new or resolved cells, moved pointers, group offsets, the
// narration — so that the page can replay it. Each partition's steps are
// a JSON-lines file under the history directory, so that the story
// survives a reload and a restart; a file is bounded (its oldest steps are
// folded into one snapshot) and so is the number of files (the least
// recently written is dropped). So is one step (stepBytes): a step whose
// line would be longer keeps its newest entries only (Truncated), so that
// a few kilobytes of headers cannot write a step of hundreds of MiB.

// Step is one recorded moment of a partition's history: a Message (of
// type snapshot, entries, pointers, groups or event) with its place in
// the story and when it happened.
type Step struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Message
}

// History is the recorded story of one partition, oldest step first.
type History struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Steps     []Step `json:"steps"`
}

// Default bounds of the history directory.
const (
	defaultHistorySteps      = 2000
	defaultHistoryBytes      = 4 << 20
	defaultHistoryPartitions = 256
	// foldEntries is how many offsets (the last ones) a folded snapshot
	// keeps.
	foldEntries = 1000
)

// recorder writes and reads the history directory. A nil *recorder
// records nothing.
type recorder struct {
	dir            string
	maxSteps       int
	maxBytes       int64
	maxPartitions  int
	stepBytes      int64 // the longest line one step may take
	maxLine        int   // the longest line read back (maxLineBytes)
	mu             sync.Mutex
	stories        map[feedKey]*story
	onWriteFailure func(error)
}

// story is what the recorder knows of one partition's file without
// reading it again.
type story struct {
	seq      int // the last step's
	steps    int
	bytes    int64
	last     inspect.Pointers
	haveLast bool
}

func newRecorder(cfg Config) *recorder {
	if cfg.HistoryDir == "" {
		return nil
	}
	return &recorder{
		dir: cfg.HistoryDir, maxSteps: cfg.HistorySteps, maxBytes: cfg.HistoryBytes,
		maxPartitions: cfg.HistoryPartitions, stories: make(map[feedKey]*story),
		stepBytes: stepBytes(cfg), maxLine: maxLineBytes,
		onWriteFailure: func(err error) { cfg.Logger.Warn("live: history not recorded", "err", err) },
	}
}

// stepBytes is the longest line of one step: MessageBytes of entries
// plus the step's envelope, and at most a quarter of the file's bound, so
// that folding always leaves room.
func stepBytes(cfg Config) int64 {
	return max(min(cfg.MessageBytes, cfg.HistoryBytes/4), 1<<10) + messageOverhead
}

// maxLineBytes is the longest line readSteps parses: longer ones (from a
// version that did not bound its steps) are skipped, and dropped by the
// next fold, instead of ending the story there.
const maxLineBytes = 16 << 20

// path is where key's steps are kept. Kafka topic names are made of
// [a-zA-Z0-9._-] and are never "." or "..", so they are safe file names.
func (r *recorder) path(key feedKey) string {
	return filepath.Join(r.dir, key.topic, strconv.Itoa(int(key.partition))+".jsonl")
}

// load reads what the recorder needs to know of key's file, once.
func (r *recorder) load(key feedKey) *story {
	if s, ok := r.stories[key]; ok {
		return s
	}
	s := &story{}
	steps, size, _ := readSteps(r.path(key), r.maxLine)
	if fi, err := os.Stat(r.path(key)); err == nil && fi.Size() > size {
		_ = os.Truncate(r.path(key), size) // a step cut short by a crash
	}
	s.steps, s.bytes = len(steps), size
	for _, st := range steps {
		s.seq = st.Seq
		if st.Pointers != nil {
			s.last, s.haveLast = *st.Pointers, true
		}
	}
	r.stories[key] = s
	return s
}

// started records the snapshot a feed starts from, unless the story's
// last pointers are these (nothing happened while no one watched). A log
// that went backwards (the topic was deleted and made again) starts a new
// story.
func (r *recorder) started(key feedKey, ptrs inspect.Pointers, entries []inspect.Entry, cut bool, groups []cluster.PartitionGroupOffset) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.load(key)
	if s.haveLast && s.last == ptrs {
		return
	}
	if s.haveLast && (ptrs.HighWatermark < s.last.HighWatermark || ptrs.LogStartOffset < s.last.LogStartOffset) {
		_ = os.Remove(r.path(key))
		*s = story{}
	}
	p := ptrs
	r.appendLocked(key, s, Message{Type: TypeSnapshot, Topic: key.topic, Partition: key.partition, Pointers: &p, Entries: entries, Groups: groups, Truncated: cut})
}

// record appends one change to key's story.
func (r *recorder) record(key feedKey, m Message) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appendLocked(key, r.load(key), m)
}

func (r *recorder) appendLocked(key feedKey, s *story, m Message) {
	if s.steps == 0 {
		r.makeRoomLocked(key)
	}
	s.seq++
	st := Step{Seq: s.seq, Time: time.Now(), Message: m}
	if m.Event != nil {
		st.Time = m.Event.Time
	}
	line, err := r.marshalStep(st)
	if err != nil {
		r.onWriteFailure(err)
		return
	}
	if err := appendFile(r.path(key), line); err != nil {
		r.onWriteFailure(err)
		return
	}
	s.steps++
	s.bytes += int64(len(line))
	if m.Pointers != nil {
		s.last, s.haveLast = *m.Pointers, true
	}
	if s.steps > r.maxSteps || s.bytes > r.maxBytes {
		r.foldLocked(key, s)
	}
}

// marshalStep is st's line, newline included, within stepBytes: a step
// whose entries would make it longer keeps the newest of them that fit
// and says Truncated; one that cannot fit (one entry alone past the
// bound) is refused.
func (r *recorder) marshalStep(st Step) ([]byte, error) {
	line, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	if int64(len(line)) >= r.stepBytes && len(st.Entries) > 0 {
		st.Entries, _ = newestWithin(st.Entries, r.stepBytes-messageOverhead)
		st.Truncated = true
		if line, err = json.Marshal(st); err != nil {
			return nil, err
		}
	}
	if int64(len(line)) >= r.stepBytes {
		return nil, fmt.Errorf("live: history step %d of %s/%d is %d bytes, over the bound of %d", st.Seq, st.Topic, st.Partition, len(line), r.stepBytes)
	}
	return append(line, '\n'), nil
}

// foldLocked replaces the older half of key's steps with one snapshot of
// the state they add up to, and drops lines too long to read.
func (r *recorder) foldLocked(key feedKey, s *story) {
	steps, _, skipped, err := readStepsSkipping(r.path(key), r.maxLine)
	if err != nil || len(steps) < 2 && skipped == 0 {
		return
	}
	if len(steps) >= 2 {
		cut := len(steps) / 2
		folded := fold(steps[:cut], r.stepBytes-messageOverhead)
		steps = append([]Step{folded}, steps[cut:]...)
	}
	var buf bytes.Buffer
	for _, st := range steps {
		line, err := r.marshalStep(st)
		if err != nil {
			r.onWriteFailure(err)
			continue
		}
		buf.Write(line)
	}
	tmp := r.path(key) + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		r.onWriteFailure(err)
		return
	}
	if err := os.Rename(tmp, r.path(key)); err != nil {
		r.onWriteFailure(err)
		return
	}
	s.steps, s.bytes = len(steps), int64(buf.Len())
}

// fold is the snapshot that steps add up to, at the time and place of
// the last of them: the latest version of each cell (the last
// foldEntries offsets, and of those the newest within maxBytes), the last
// pointers and group offsets.
func fold(steps []Step, maxBytes int64) Step {
	last := steps[len(steps)-1]
	out := Step{Seq: last.Seq, Time: last.Time, Message: Message{Type: TypeSnapshot, Topic: last.Topic, Partition: last.Partition}}
	cells := map[int64]inspect.Entry{}
	for _, st := range steps {
		if st.Type == TypeSnapshot {
			clear(cells)
		}
		for _, e := range st.Entries {
			cells[e.Offset] = e
		}
		if st.Pointers != nil {
			out.Pointers = st.Pointers
		}
		if st.Groups != nil || st.Type == TypeGroups {
			out.Groups = st.Groups
		}
	}
	offsets := slices.Sorted(maps.Keys(cells))
	offsets = offsets[max(0, len(offsets)-foldEntries):]
	for _, o := range offsets {
		out.Entries = append(out.Entries, cells[o])
	}
	out.Entries, out.Truncated = newestWithin(out.Entries, maxBytes)
	return out
}

// makeRoomLocked drops the least recently written stories while there
// are as many as the directory may hold, before key's starts.
func (r *recorder) makeRoomLocked(key feedKey) {
	files, _ := filepath.Glob(filepath.Join(r.dir, "*", "*.jsonl"))
	if len(files) < r.maxPartitions {
		return
	}
	type aged struct {
		path string
		mod  time.Time
	}
	var all []aged
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			all = append(all, aged{f, fi.ModTime()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return a.mod.Compare(b.mod) })
	for _, a := range all[:len(all)-r.maxPartitions+1] {
		_ = os.Remove(a.path)
		for k := range r.stories {
			if r.path(k) == a.path && k != key {
				delete(r.stories, k)
			}
		}
	}
}

// steps returns key's story from step from on.
func (r *recorder) steps(key feedKey, from int) ([]Step, error) {
	if r == nil {
		return nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	steps, _, err := readSteps(r.path(key), r.maxLine)
	if err != nil {
		return nil, err
	}
	i, _ := slices.BinarySearchFunc(steps, from, func(s Step, seq int) int { return s.Seq - seq })
	return steps[i:], nil
}

// forget deletes the stories of every partition of topic.
func (r *recorder) forget(topic string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = os.RemoveAll(filepath.Join(r.dir, topic))
	for k := range r.stories {
		if k.topic == topic {
			delete(r.stories, k)
		}
	}
}

// readSteps reads a story file; a missing file is an empty story, a line
// longer than maxLine is skipped, and a line that does not parse (cut
// short by a crash) ends it. size is the bytes of the lines read, skipped
// ones included.
func readSteps(path string, maxLine int) (steps []Step, size int64, err error) {
	steps, size, _, err = readStepsSkipping(path, maxLine)
	return steps, size, err
}

// readStepsSkipping is readSteps that also counts the lines it skipped.
func readStepsSkipping(path string, maxLine int) (steps []Step, size int64, skipped int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, n, complete := readLine(br, maxLine)
		if !complete {
			break
		}
		if line == nil {
			skipped++
			size += n
			continue
		}
		var st Step
		if json.Unmarshal(line, &st) != nil {
			break
		}
		steps = append(steps, st)
		size += n
	}
	return steps, size, skipped, nil
}

// readLine reads one line of br, newline included in n (the bytes it
// took). A line longer than max is read past and returned as nil; complete
// is false at the end of the file or on a line the file ends inside.
func readLine(br *bufio.Reader, max int) (line []byte, n int64, complete bool) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			if len(buf)+len(chunk) > max+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil && tooLong:
			return nil, n, true
		case err == nil:
			return buf[:len(buf)-1], n, true
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, n, false
		}
	}
}

func appendFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
