package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// topicRecord remembers the topics lesson runs created, so that cleaning
// up deletes those and nothing else: a team's orders-202612 looks like a
// lesson topic's name but was never created by a run, so it is never
// listed. A name is recorded before its topic is created (a crash in
// between leaves a name whose topic does not exist, which cleanup skips)
// and forgotten once its topic is deleted.
//
// With a path the record is a JSON file rewritten whole (through a
// temporary file and a rename) on every change, and read back by the next
// Runner over the same path: a restarted server still cleans up its
// earlier runs' topics. Without one (tests, a server given no data
// directory) it lives as long as the Runner. A record that cannot be read
// is an error of New; one that cannot be written fails the step that
// creates the topic, before the topic exists.
type topicRecord struct {
	path string

	mu     sync.Mutex
	topics []string // in the order they were recorded
}

// topicRecordFile is the record file's shape.
type topicRecordFile struct {
	// Topics are the topics lesson runs created on this cluster, by
	// name, oldest first.
	Topics []string `json:"topics"`
}

// loadTopicRecord reads the record at path; a missing file is an empty
// record.
func loadTopicRecord(path string) (*topicRecord, error) {
	rec := &topicRecord{path: path}
	if path == "" {
		return rec, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lessons: read the record of created topics: %w", err)
	}
	var f topicRecordFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("lessons: read the record of created topics %s: %w", path, err)
	}
	rec.topics = f.Topics
	return rec, nil
}

// add records name (once).
func (rec *topicRecord) add(name string) error {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if slices.Contains(rec.topics, name) {
		return nil
	}
	next := append(slices.Clone(rec.topics), name)
	if err := rec.saveLocked(next); err != nil {
		return err
	}
	rec.topics = next
	return nil
}

// forget drops names from the record.
func (rec *topicRecord) forget(names ...string) error {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	next := slices.DeleteFunc(slices.Clone(rec.topics), func(n string) bool { return slices.Contains(names, n) })
	if len(next) == len(rec.topics) {
		return nil
	}
	if err := rec.saveLocked(next); err != nil {
		return err
	}
	rec.topics = next
	return nil
}

// has reports whether name was recorded.
func (rec *topicRecord) has(name string) bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Contains(rec.topics, name)
}

// list is every recorded name, oldest first.
func (rec *topicRecord) list() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.topics)
}

func (rec *topicRecord) saveLocked(topics []string) error {
	if rec.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(topicRecordFile{Topics: topics}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(rec.path), 0o755); err != nil {
		return fmt.Errorf("lessons: record a created topic: %w", err)
	}
	tmp := rec.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("lessons: record a created topic: %w", err)
	}
	if err := os.Rename(tmp, rec.path); err != nil {
		return fmt.Errorf("lessons: record a created topic: %w", err)
	}
	return nil
}
