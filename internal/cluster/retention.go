package cluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// AlterTopicConfigs sets topic configurations, as
// kafka-configs.sh --alter --entity-type topics --add-config does
// (IncrementalAlterConfigs, SET): the names and values are checked as
// CreateTopic checks them. A topic that does not exist is an unknown topic.
func (c *Cluster) AlterTopicConfigs(ctx context.Context, topic string, configs map[string]string) error {
	if err := ValidateTopicName(topic); err != nil {
		return err
	}
	if err := ValidateTopicConfigs(configs); err != nil {
		return err
	}
	var alter []kadm.AlterConfig
	for _, name := range slices.Sorted(maps.Keys(configs)) {
		v := configs[name]
		alter = append(alter, kadm.AlterConfig{Op: kadm.SetConfig, Name: name, Value: &v})
	}
	resp, err := c.admin.AlterTopicConfigs(ctx, alter, topic)
	if err == nil && len(resp) != 1 {
		err = fmt.Errorf("the broker answered for %d resources", len(resp))
	}
	if err == nil {
		err = resp[0].Err
	}
	switch {
	case errors.Is(err, kerr.UnknownTopicOrPartition):
		return problem.UnknownTopic(topic)
	case err != nil:
		return fmt.Errorf("cluster: alter configs of %s: %w", topic, err)
	}
	return nil
}

// DeleteRecords deletes a partition's records below offset before, as
// kafka-delete-records.sh --offset-json-file does (DeleteRecords): the log
// start offset moves up to before and never down. It returns the log start
// offset the leader reports afterwards. An offset past the high watermark
// is OFFSET_OUT_OF_RANGE, refused as invalid.
func (c *Cluster) DeleteRecords(ctx context.Context, topic string, partition int32, before int64) (int64, error) {
	var offsets kadm.Offsets
	offsets.Add(kadm.Offset{Topic: topic, Partition: partition, At: before, LeaderEpoch: -1})
	var logStart int64
	err := wait.Retry(ctx, func() error {
		resp, err := c.admin.DeleteRecords(ctx, offsets)
		if err != nil {
			return err
		}
		r, ok := resp.Lookup(topic, partition)
		if !ok {
			return fmt.Errorf("no answer for %s/%d", topic, partition)
		}
		logStart = r.LowWatermark
		return r.Err
	})
	switch {
	case errors.Is(err, kerr.UnknownTopicOrPartition):
		return 0, problem.UnknownTopic(topic)
	case errors.Is(err, kerr.OffsetOutOfRange):
		return 0, problem.New(problem.Invalid, "error.deleteRecordsRange", "topic", topic, "offset", fmt.Sprint(before))
	case err != nil:
		return 0, fmt.Errorf("cluster: delete records of %s/%d below %d: %w", topic, partition, before, err)
	}
	return logStart, nil
}

// CommitGroupOffset commits offset for a group on one partition outside
// any transaction, as a consumer with manual assignment does, or
// kafka-consumer-groups.sh --reset-offsets --to-offset --execute.
func (c *Cluster) CommitGroupOffset(ctx context.Context, group, topic string, partition int32, offset int64) error {
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: topic, Partition: partition, At: offset, LeaderEpoch: -1})
	err := wait.Retry(ctx, func() error {
		resp, err := c.admin.CommitOffsets(ctx, group, offsets)
		if err == nil {
			err = resp.Error()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("cluster: commit offset %d of %s/%d for group %s: %w", offset, topic, partition, group, err)
	}
	return nil
}
