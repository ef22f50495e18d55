package lessons

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// AwaitCleaner waits until the log cleaner has removed offset Gone of
// partition 0 of a compacted topic — the sign that a pass ran — and
// reports every offset removed since the run last read that log (an
// earlier ReadLog step; else since this step began), telling the story
// so. The cleaner may well have run between the steps: the comparison
// with the last read log says what it took all the same.
type AwaitCleaner struct {
	Topic string
	Gone  int64
}

// Kind implements Action.
func (AwaitCleaner) Kind() string { return "await-cleaner" }

// Facts implements Action.
func (AwaitCleaner) Facts() []Fact { return []Fact{FactRemoved} }

// Names implements Action.
func (a AwaitCleaner) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a AwaitCleaner) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (AwaitCleaner) Icon() string { return live.EventInfo }

// pollEvery is how often the await actions read the partition again.
const pollEvery = 250 * time.Millisecond

func (a AwaitCleaner) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	held, ok := sc.memory().heldOffsets(topic)
	if !ok {
		before, err := sc.lab.Log(sc, topic, 0, 0, inspect.MaxLimit)
		if err != nil {
			return obs, err
		}
		held = heldOffsets(before)
	}
	began := time.Now()
	var after *inspect.Log
	err := wait.Until(sc, pollEvery, func(ctx context.Context) (bool, error) {
		l, err := sc.lab.Log(ctx, topic, 0, 0, inspect.MaxLimit)
		if err != nil {
			return false, err
		}
		after = l
		return gapAt(l, a.Gone), nil
	})
	if err != nil {
		return obs, fmt.Errorf("lessons: the log cleaner did not remove offset %d of %s within the step: %w", a.Gone, topic, err)
	}
	var removed []int64
	for _, o := range held {
		if gapAt(after, o) {
			removed = append(removed, o)
		}
	}
	sc.memory().sawHeld(topic, heldOffsets(after))
	obs.say("cleanerRan", "log", topic+"-0", "seconds", strconv.Itoa(int(time.Since(began).Round(time.Second).Seconds())), "offsets", joinOffsets(removed))
	sc.lab.Compacted(sc, topic, 0) // the cells turn to gaps before the narration says so
	sc.lab.Narrate(live.EventInfo, topic, 0, catalog.M("narration.compacted",
		"log", topic+"-0", "offsets", joinOffsets(removed), "count", strconv.Itoa(len(removed))))
	obs.set(FactRemoved, joinOffsets(removed))
	return obs, nil
}

// gapAt reports whether offset o of l is a gap (below the log start, or an
// empty offset of the window).
func gapAt(l *inspect.Log, o int64) bool {
	if o < l.LogStartOffset {
		return true
	}
	for _, e := range l.Entries {
		if e.Offset == o {
			return e.Kind == inspect.KindGap
		}
	}
	return false
}

// AwaitRetention waits until retention has moved the log start offset of
// partition 0 to the high watermark: every record older than retention.ms
// deleted.
type AwaitRetention struct{ Topic string }

// Kind implements Action.
func (AwaitRetention) Kind() string { return "await-retention" }

// Facts implements Action.
func (AwaitRetention) Facts() []Fact { return []Fact{FactLogStart, FactHW} }

// Names implements Action.
func (a AwaitRetention) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a AwaitRetention) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (AwaitRetention) Icon() string { return live.EventWarning }

func (a AwaitRetention) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	first, err := sc.lab.Pointers(sc, topic, 0)
	if err != nil {
		return obs, err
	}
	var ptrs inspect.Pointers
	err = wait.Until(sc, pollEvery, func(ctx context.Context) (bool, error) {
		p, err := sc.lab.Pointers(ctx, topic, 0)
		ptrs = p
		return err == nil && p.LogStartOffset == p.HighWatermark, err
	})
	if err != nil {
		return obs, fmt.Errorf("lessons: retention did not delete the records of %s within the step: %w", topic, err)
	}
	obs.say("retentionDeleted", "from", i64(first.LogStartOffset), "to", i64(ptrs.HighWatermark-1), "log", topic+"-0", "start", i64(ptrs.LogStartOffset), "hw", i64(ptrs.HighWatermark))
	obs.set(FactLogStart, strconv.FormatInt(ptrs.LogStartOffset, 10))
	obs.set(FactHW, strconv.FormatInt(ptrs.HighWatermark, 10))
	return obs, nil
}
