package lessons

import (
	"strings"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// RunProcessor runs the seeds' order processor once (one process start).
type RunProcessor struct {
	Mode            producer.Mode
	Input           string
	Output          string
	Group           string
	TransactionalID string
	CrashAt         string
}

// Kind implements Action.
func (RunProcessor) Kind() string { return "run-processor" }

// Facts implements Action.
func (RunProcessor) Facts() []Fact { return []Fact{FactCrashed, FactProcessed, FactRetried} }

// Names implements Action.
func (a RunProcessor) Names() []string {
	return []string{a.Input, a.Output, a.Group, a.TransactionalID}
}

// TopicNames implements Action.
func (a RunProcessor) TopicNames() []string { return []string{a.Input, a.Output} }

// Icon implements Action.
func (a RunProcessor) Icon() string {
	if a.CrashAt != "" {
		return live.EventCrash
	}
	return live.EventInfo
}

func (a RunProcessor) run(sc *stepContext) (*observation, error) {
	cfg := producer.RunConfig{
		Mode: a.Mode, Input: sc.name(a.Input), Output: sc.name(a.Output), Group: sc.name(a.Group), CrashAt: a.CrashAt,
	}
	if a.TransactionalID != "" {
		cfg.TransactionalID = sc.name(a.TransactionalID)
	}
	obs := newObservation(cfg.Output, 0)
	res, err := sc.lab.RunProcessor(sc, cfg)
	if res != nil {
		obs.output = append(obs.output, res.Log...)
	}
	if err != nil {
		return obs, err
	}
	var processed []string
	for _, p := range res.Processed {
		processed = append(processed, p.Order)
	}
	obs.set(FactCrashed, yesNo(res.Crashed))
	obs.set(FactProcessed, orNone(strings.Join(processed, ", ")))
	obs.set(FactRetried, yesNo(res.ConcurrentTransactions > 0))
	if cfg.Mode == producer.Transactional {
		if res.Crashed {
			sc.memory().crashed(cfg.TransactionalID, res.ProducerEpoch)
		} else {
			settle(sc, cfg.TransactionalID)
		}
	}
	return obs, nil
}
