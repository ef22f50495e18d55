package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// This file keeps the run in progress (the current one) on disk, so that
// a restart finds the lesson at the step it was on, with its names, the
// steps done and what they showed, and what later steps compare against
// (the run's memory). What lived only in the process does not come back:
// an application process's open transaction or producer; a later step
// that needed one fails with its reason, and Reset starts the run over.

// runFormat is the run file's format.
const runFormat = 1

// runRecord is the run file.
type runRecord struct {
	Format  int               `json:"format"`
	SavedAt time.Time         `json:"savedAt"`
	ID      string            `json:"id"`
	Lesson  string            `json:"lesson"`
	Suffix  string            `json:"suffix"`
	Cursor  int               `json:"cursor"`
	Failed  string            `json:"failed,omitempty"`
	Steps   []StepState       `json:"steps"`
	Memory  memoryRecord      `json:"memory"`
	Names   map[string]string `json:"names"`
}

// memoryRecord is a run's memory as the run file holds it.
type memoryRecord struct {
	CrashedEpoch map[string]int16       `json:"crashedEpoch"`
	Began        map[string]beganRecord `json:"began"`
	ProducerIDs  []int64                `json:"producerIds"`
	KeyPartition map[string]int32       `json:"keyPartition"`
	Stopped      []int32                `json:"stopped"`
	Held         map[string][]int64     `json:"held"`
}

type beganRecord struct {
	Process string `json:"process"`
	ID      int64  `json:"id"`
	Epoch   int16  `json:"epoch"`
}

func (m *memory) record() memoryRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := memoryRecord{CrashedEpoch: m.crashedEpoch, Began: map[string]beganRecord{}, ProducerIDs: m.producerIDs,
		KeyPartition: m.keyPartition, Stopped: m.stopped, Held: m.held}
	for k, b := range m.began {
		out.Began[k] = beganRecord{Process: b.process, ID: b.id, Epoch: b.epoch}
	}
	return out
}

func (m *memory) restore(r memoryRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.CrashedEpoch != nil {
		m.crashedEpoch = r.CrashedEpoch
	}
	if r.KeyPartition != nil {
		m.keyPartition = r.KeyPartition
	}
	if r.Held != nil {
		m.held = r.Held
	}
	m.producerIDs, m.stopped = r.ProducerIDs, r.Stopped
	for k, b := range r.Began {
		m.began[k] = beginRecord{process: b.Process, id: b.ID, epoch: b.Epoch}
	}
}

// KeepRunIn keeps the current run in the file at path from now on, and
// first reads back the run an earlier Runner left there, which becomes
// the current run again at the step it was on. A file that cannot be
// read, or names a lesson or names this Runner does not have, is refused
// with an error naming it.
func (r *Runner) KeepRunIn(path string) error {
	r.mu.Lock()
	r.runPath = path
	r.mu.Unlock()
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("lessons: the lesson run file %s %s; move it away to start without the run in progress", path, why)
	}
	if err != nil {
		return refuse("cannot be read: " + err.Error())
	}
	var rec runRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return refuse("is torn or is not a run file (" + err.Error() + ")")
	}
	if rec.Format != runFormat {
		return refuse(fmt.Sprintf("has format %d, not %d", rec.Format, runFormat))
	}
	l, err := r.lesson(rec.Lesson)
	if err != nil || rec.ID == "" || rec.Suffix == "" || rec.Cursor < 0 || rec.Cursor > len(l.Steps) || len(rec.Steps) != len(l.Steps) {
		return refuse("does not match this version's lessons")
	}
	rn := &run{id: rec.ID, lesson: l, runner: r, used: time.Now()}
	rn.resetWith(rec.Suffix)
	rn.memory.restore(rec.Memory)
	rn.mu.Lock()
	for i := 0; i < rec.Cursor || i < len(rec.Steps) && rec.Steps[i].Status == StepFailed; i++ {
		rn.steps[i] = rec.Steps[i] // done (or failed): what it showed, as it showed it
	}
	rn.cursor, rn.failed = rec.Cursor, rec.Failed
	rn.mu.Unlock()
	r.mu.Lock()
	r.runs[rn.id] = rn
	r.current = rn.id
	r.mu.Unlock()
	return nil
}

// keep writes the current run to the run file, when there is one; a
// failure to write is returned for the log (the run goes on in memory).
func (r *Runner) keep() error {
	r.mu.Lock()
	path, rn := r.runPath, r.runs[r.current]
	r.mu.Unlock()
	if path == "" || rn == nil {
		return nil
	}
	rec := runRecord{Format: runFormat, SavedAt: time.Now(), ID: rn.id, Lesson: rn.lesson.ID, Memory: rn.memory.record()}
	rn.mu.Lock()
	rec.Suffix, rec.Cursor, rec.Failed, rec.Names = rn.suffix, rn.cursor, rn.failed, rn.names
	rec.Steps = append([]StepState(nil), rn.steps...)
	b, err := json.Marshal(rec)
	rn.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("lessons: keep the run: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".run-*.tmp")
	if err != nil {
		return fmt.Errorf("lessons: keep the run: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(b)
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
		return fmt.Errorf("lessons: keep the run in %s: %w", path, err)
	}
	return nil
}
