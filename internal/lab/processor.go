package lab

import (
	"context"
	"maps"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// RunProcessor runs the seeds' order processor once, as one start of
// processor.py: it checks both topics exist, notes whether its
// transactional.id has a transaction left Ongoing by a crashed run (which
// this start will fence and abort), runs, and narrates the fence (with the
// CONCURRENT_TRANSACTIONS retries Kafka answers while it aborts) and the
// crash, if the run was told to crash.
func (l *Lab) RunProcessor(ctx context.Context, cfg producer.RunConfig) (*producer.RunResult, error) {
	if err := l.writes(cfg.Output, cfg.Group, cfg.TransactionalID); err != nil {
		return nil, err
	}
	if err := l.roomToStore(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	touched := map[string][]int32{}
	for _, topic := range []string{cfg.Input, cfg.Output} {
		t, err := l.cluster.Topic(ctx, topic)
		if err != nil {
			return nil, err
		}
		touched[topic] = toRecord(t, nil)
	}
	fencesOngoing := false
	if cfg.Mode == producer.Transactional {
		if t, err := l.cluster.Transaction(ctx, cfg.TransactionalID); err == nil {
			fencesOngoing = t.State == cluster.TxnOngoing
		}
	}
	before := int64(-1)
	if fencesOngoing {
		before = l.logEnd(cfg.Output, 0) // the fence comes before the ABORT it causes
	}
	recordBoth := func(ctx context.Context) {
		for topic, partitions := range touched {
			l.record(ctx, topic, partitions)
		}
	}
	recordBoth(ctx)
	cfg.BeforeOrder = recordBoth
	res, err := l.processor.Run(ctx, cfg)
	recordBoth(ctx)
	if err != nil {
		return res, err
	}
	if fencesOngoing {
		l.narrateFence(cfg, res, before)
	}
	if res.Crashed {
		l.narrateCrash(cfg, res)
	}
	return res, nil
}

// narrateFence: the new producer's init_transactions() fenced the crashed
// one and made the coordinator abort its transaction. The epoch told is
// the one the fence gave the new producer, which the records after the
// ABORT carry (not the run's last, raised again by each commit).
func (l *Lab) narrateFence(cfg producer.RunConfig, res *producer.RunResult, at int64) {
	key := "narration.fence"
	if res.ConcurrentTransactions > 0 {
		key = "narration.fence.retried"
	}
	l.narrateAt(live.EventFence, cfg.Output, 0, at, catalog.M(key, "txid", cfg.TransactionalID,
		"producer", strconv.FormatInt(res.ProducerID, 10), "epoch", strconv.Itoa(int(res.InitEpoch))))
}

// narrateCrash quotes the run's last line (the crash) in the viewer's
// language: its catalogue key fills {last}.
func (l *Lab) narrateCrash(cfg producer.RunConfig, res *producer.RunResult) {
	args := catalog.Args{}
	if n := len(res.LogKeys); n > 0 {
		maps.Copy(args, res.LogKeys[n-1].Args)
		args["lastKey"] = res.LogKeys[n-1].Key
	}
	key := "narration.crash"
	switch cfg.Mode {
	case producer.Transactional:
		key, args["txid"] = "narration.crash.txn", cfg.TransactionalID
	case producer.Plain:
		key, args["group"] = "narration.crash.plain", cfg.Group
	}
	l.narrateAt(live.EventCrash, cfg.Output, 0, -1, catalog.Message{Key: key, Args: args})
}
