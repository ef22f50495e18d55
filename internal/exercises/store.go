package exercises

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
)

// This file keeps the class on disk, as Kafka keeps its coordinators'
// state in a log rather than in memory: the students (name, Kafka user
// and password, cookie token), the current exercise with its reset
// points, the results, and the stage (the teacher's open partition), in
// one file written atomically (temp file, fsync, rename, fsync of the
// directory), 0600, and read back at start. A writer goroutine owns the
// writes: a change only marks the class dirty, so grading never waits
// for the disk; a join waits until the file holds the student, so a
// student who got a cookie and a password is never lost to a crash.

// classFormat is the class file's format.
const classFormat = 1

// classFile is the class file: the record, and the SHA-256 of exactly its
// bytes, so that a torn write or a hand edit is refused, never half read.
type classFile struct {
	Format int             `json:"format"`
	SHA256 string          `json:"sha256"`
	Class  json.RawMessage `json:"class"`
}

// classRecord is what the class file holds.
type classRecord struct {
	SavedAt  time.Time                          `json:"savedAt"`
	Joined   int                                `json:"joined"`
	Students []studentRecord                    `json:"students"`
	Current  string                             `json:"current"`
	From     map[string]map[string]int64        `json:"from"`
	Results  map[string]map[string]resultRecord `json:"results"`
	Stage    *Stage                             `json:"stage,omitempty"`
}

// studentRecord is one student as the class file holds them: their
// secrets too (the file is 0600 in a 0700 directory).
type studentRecord struct {
	Name      string    `json:"name"`
	JoinedAt  time.Time `json:"joinedAt"`
	Seq       int       `json:"seq"`
	Token     string    `json:"token"`
	Prefix    string    `json:"prefix"`
	Managed   bool      `json:"managed"`
	Quotas    bool      `json:"quotas,omitempty"`
	Username  string    `json:"username,omitempty"`
	Password  string    `json:"password,omitempty"`
	Mechanism string    `json:"mechanism,omitempty"`
}

// resultRecord is one student's result as the class file holds it.
type resultRecord struct {
	Done      bool          `json:"done"`
	CheckedAt time.Time     `json:"checkedAt"`
	Checks    []checkRecord `json:"checks"`
}

type checkRecord struct {
	Key      string          `json:"key"`
	OK       bool            `json:"ok"`
	Evidence Evidence        `json:"evidence"`
	Hint     catalog.Message `json:"hint"`
}

// Stage is the partition the teacher put on the stage, which students'
// pages follow.
type Stage struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// ErrClassFile is the cause of every refusal to read a class file.
var ErrClassFile = errors.New("exercises: class file refused")

// readClassFile reads path; ok is false when there is none yet.
func readClassFile(path string) (classRecord, bool, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return classRecord{}, false, nil
	}
	if err != nil {
		return classRecord{}, false, fmt.Errorf("%w: read %s: %w", ErrClassFile, path, err)
	}
	refuse := func(why string) error {
		return fmt.Errorf("%w: %s %s; nothing of it was loaded. Move it away to start with an empty class (the students rejoin), or put back a copy you kept", ErrClassFile, path, why)
	}
	var f classFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return classRecord{}, false, refuse("is torn or is not a class file (" + err.Error() + ")")
	}
	if f.Format != classFormat {
		return classRecord{}, false, refuse(fmt.Sprintf("has format %d, which this version does not read (it reads %d)", f.Format, classFormat))
	}
	sum := sha256.Sum256(f.Class)
	if hex.EncodeToString(sum[:]) != f.SHA256 {
		return classRecord{}, false, refuse("does not match its checksum: it was cut short or edited by hand")
	}
	var rec classRecord
	dec := json.NewDecoder(strings.NewReader(string(f.Class)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return classRecord{}, false, refuse("holds a class this version cannot read (" + err.Error() + ")")
	}
	if err := rec.valid(); err != nil {
		return classRecord{}, false, refuse(err.Error())
	}
	return rec, true, nil
}

// valid checks what a restored class relies on.
func (r classRecord) valid() error {
	seen := map[string]bool{}
	for _, s := range r.Students {
		key := strings.ToLower(s.Name)
		switch {
		case !nameRule.MatchString(s.Name):
			return fmt.Errorf("names a student %q, which is not a student's name", s.Name)
		case seen[key]:
			return fmt.Errorf("names the student %q twice", s.Name)
		case s.Token == "":
			return fmt.Errorf("has no cookie token for %q", s.Name)
		case s.Prefix != "" && !cluster.InStudentNamespace(s.Prefix):
			return fmt.Errorf("gives %q the prefix %q, outside the students' namespace", s.Name, s.Prefix)
		}
		seen[key] = true
	}
	if r.Current != "" {
		if _, ok := Find(r.Current); !ok {
			return fmt.Errorf("names the exercise %q, which does not exist", r.Current)
		}
	}
	return nil
}

// writeClassFile writes rec to path atomically, 0600.
func writeClassFile(path string, rec classRecord) error {
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	data, err := json.Marshal(classFile{Format: classFormat, SHA256: hex.EncodeToString(sum[:]), Class: body})
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("exercises: save the class: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".class-*.tmp") // 0600
	if err != nil {
		return fmt.Errorf("exercises: save the class: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("exercises: save the class to %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil { // the rename itself survives a crash once the directory is synced
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// snapshot is the class as its file holds it.
func (c *Class) snapshot() (students []studentRecord, joined int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.students {
		students = append(students, studentRecord{
			Name: s.Name, JoinedAt: s.JoinedAt, Seq: s.seq, Token: s.Token, Prefix: s.Kafka.Topic,
			Managed: s.Kafka.Managed, Quotas: s.Kafka.Quotas, Username: s.Kafka.Username, Password: s.Kafka.Password, Mechanism: s.Kafka.SASLMechanism,
		})
	}
	slices.SortFunc(students, func(a, b studentRecord) int { return a.Seq - b.Seq })
	return students, c.joined
}

// restore puts the file's students back, with today's bootstrap address
// and shared topics and their own user, password and prefix.
func (c *Class) restore(students []studentRecord, joined int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range students {
		id := c.identity(r.Name)
		if r.Prefix != "" {
			id.Topic, id.TransactionalIDPrefix, id.GroupPrefix = r.Prefix, r.Prefix, r.Prefix
		}
		id.Managed, id.Quotas, id.Username, id.Password, id.SASLMechanism = r.Managed, r.Quotas, r.Username, r.Password, r.Mechanism
		s := &Student{Name: r.Name, JoinedAt: r.JoinedAt, Kafka: id, Token: r.Token, seq: r.Seq}
		c.students[strings.ToLower(r.Name)] = s
		c.byToken[r.Token] = s
	}
	c.joined = max(joined, len(students))
}

// saveCoalesce is how long a change of results waits for others before
// the class is written: a busy class is written twice a second at most,
// a join (Flush) at once.
const saveCoalesce = 500 * time.Millisecond

// saveLoop writes the class whenever it changed, until stop closes; then
// once more if anything is left unwritten.
func (g *Grader) saveLoop(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-g.urgent:
		case <-g.dirty:
			wait := time.NewTimer(saveCoalesce)
			select {
			case <-wait.C:
			case <-g.urgent:
				wait.Stop()
			case <-stop:
				wait.Stop()
			}
		case <-stop:
			g.save()
			return
		}
		g.save()
	}
}

// save writes the class as it is now, if it changed since the last
// write, and wakes the waiters of Flush.
func (g *Grader) save() {
	g.mu.Lock()
	gen := g.gen
	if gen == g.savedGen {
		g.mu.Unlock()
		return
	}
	rec := g.recordLocked()
	g.mu.Unlock()
	students, joined := g.class.snapshot()
	rec.Students, rec.Joined = students, joined
	err := writeClassFile(g.cfg.StateFile, rec)
	g.mu.Lock()
	g.saveErr = err
	if err == nil {
		g.savedGen = gen
	}
	close(g.saved)
	g.saved = make(chan struct{})
	g.mu.Unlock()
}

// recordLocked copies the grader's part of the class record.
func (g *Grader) recordLocked() classRecord {
	rec := classRecord{SavedAt: time.Now(), Current: g.current, From: map[string]map[string]int64{}, Results: map[string]map[string]resultRecord{}, Stage: g.stage}
	for ex, m := range g.from {
		rec.From[ex] = make(map[string]int64, len(m))
		for name, off := range m {
			rec.From[ex][name] = off
		}
	}
	for ex, m := range g.results {
		rec.Results[ex] = make(map[string]resultRecord, len(m))
		for name, r := range m {
			rr := resultRecord{Done: r.Done, CheckedAt: r.CheckedAt}
			for _, c := range r.Checks {
				rr.Checks = append(rr.Checks, checkRecord{Key: c.Key, OK: c.OK, Evidence: c.Evidence, Hint: c.Hint})
			}
			rec.Results[ex][name] = rr
		}
	}
	return rec
}

// restoreLocked puts the file's exercise, reset points, results and
// stage back.
func (g *Grader) restoreLocked(rec classRecord) {
	g.current, g.stage = rec.Current, rec.Stage
	for ex, m := range rec.From {
		g.from[ex] = m
	}
	for ex, m := range rec.Results {
		g.results[ex] = make(map[string]Result, len(m))
		for name, rr := range m {
			r := Result{Name: name, Done: rr.Done, CheckedAt: rr.CheckedAt}
			for _, c := range rr.Checks {
				r.Checks = append(r.Checks, CheckResult{Key: c.Key, Verdict: Verdict{OK: c.OK, Evidence: c.Evidence, Hint: c.Hint}})
			}
			g.results[ex][name] = r
		}
	}
}

// markDirtyLocked counts a change for the writer.
func (g *Grader) markDirtyLocked() {
	if g.dirty == nil {
		return
	}
	g.gen++
	select {
	case g.dirty <- struct{}{}:
	default: // a write is already due; it will take this change too
	}
}

// urgentLocked asks the writer for a write now: a teacher's action.
func (g *Grader) urgentLocked() {
	if g.urgent == nil {
		return
	}
	select {
	case g.urgent <- struct{}{}:
	default:
	}
}

// Flush returns once the class file holds every change made before the
// call, or ctx ends, or a write fails (its error). Without a StateFile
// it returns at once.
func (g *Grader) Flush(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dirty == nil {
		return nil
	}
	g.markDirtyLocked() // the class may have changed outside the grader's lock (a join)
	want := g.gen
	g.urgentLocked()
	for g.savedGen < want {
		saved := g.saved
		g.mu.Unlock()
		select {
		case <-saved:
		case <-ctx.Done():
			g.mu.Lock()
			return ctx.Err()
		}
		g.mu.Lock()
		if g.savedGen < want && g.saveErr != nil {
			return g.saveErr
		}
	}
	return nil
}

// Close writes what is left and stops the writer; a grader without a
// StateFile has nothing to close.
func (g *Grader) Close() {
	if g.stopSaving == nil {
		return
	}
	g.closeOnce.Do(func() {
		close(g.stopSaving)
		<-g.saverDone
	})
}
