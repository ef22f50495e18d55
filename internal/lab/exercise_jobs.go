package lab

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// WriteExerciseJobs is the share-consumer exercise's fixture
// (internal/exercises): it creates a student's job topic (one partition)
// when it does not exist, sets their share group's
// share.auto.offset.reset to earliest (a share group reads from the log
// end by default, and students may not alter group configs) and writes
// values, one record each, in one produce.
//
// It is the one write the lab makes in the students' namespace (see
// writes): the topic and group are the student's own, named by
// Exercise.NamesFor, and the student only reads them. A read-only
// cluster or a full data budget refuses it, as any write.
//
// Cost: a ListTopics and a CreateTopics when the topic is new, an
// IncrementalAlterConfigs, one produce request.
func (l *Lab) WriteExerciseJobs(ctx context.Context, topic, group string, values []string) error {
	if err := l.writable(); err != nil {
		return err
	}
	if !cluster.InStudentNamespace(topic) || !cluster.InStudentNamespace(group) {
		return fmt.Errorf("lab: exercise jobs: %s and %s are not a student's", topic, group)
	}
	if err := l.roomToStore(); err != nil {
		return err
	}
	if _, err := l.cluster.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil && !problem.Is(err, "error.topicExists") {
		return l.notAllowed(err, "CREATE", "topic", topic)
	}
	if err := l.cluster.SetGroupConfig(ctx, group, "share.auto.offset.reset", "earliest"); err != nil {
		return l.notAllowed(err, "ALTER_CONFIGS", "group", group)
	}
	recs := make([]*kgo.Record, 0, len(values))
	for _, v := range values {
		recs = append(recs, &kgo.Record{Topic: topic, Value: []byte(v)})
	}
	if err := l.cluster.Client().ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return l.notAllowed(fmt.Errorf("lab: exercise jobs to %s: %w", topic, err), "WRITE", "topic", topic)
	}
	return nil
}
