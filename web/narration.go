package web

import (
	"fmt"
	"slices"
	"strings"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// narrateProduce tells the timeline what the producer did and learned;
// the feed narrates what landed in the log.
func (s *Server) narrateProduce(req producer.Request, out *producer.Outcome) {
	if s.deps.Live == nil {
		return
	}
	// say narrates text, the English sentence, and key with args, the
	// same sentence in the UI catalogue (live.Event.Key).
	say := func(kind, text, key string, args map[string]string) {
		s.deps.Live.Narrate(live.Event{Kind: kind, Topic: req.Topic, Partition: partitionOf(out), Text: text, Key: key, Args: args})
	}
	if req.Profile.Acks == producer.AcksNone {
		say(live.EventInfo, "acks=0: the producer reported the send as done without waiting for the broker, so it cannot know whether or at which offset the record was stored.", "narration.acks0", nil)
	}
	if out.AckLost {
		idempotent := out.ProducerID >= 0
		if idempotent {
			say(live.EventWarning, fmt.Sprintf("The broker stored the batch but its ACK was lost on the way back; the producer retried. With idempotence (producer id %d, epoch %d) the broker recognised the retried sequence number and kept one copy.", out.ProducerID, out.ProducerEpoch),
				"narration.acklost.idempotent", map[string]string{"producer": fmt.Sprint(out.ProducerID), "epoch": fmt.Sprint(out.ProducerEpoch)})
		} else {
			say(live.EventWarning, "The broker stored the batch but its ACK was lost on the way back; the producer retried. Without idempotence the broker cannot tell a retry from a new record: the log now holds it twice.", "narration.acklost.plain", nil)
		}
	}
	if req.Fault == producer.DoubleSend {
		say(live.EventWarning, "The application called produce twice for the same event: two records, whatever the producer's settings — idempotence only removes the producer's own retries.", "narration.doublesend", nil)
	}
}

func partitionOf(out *producer.Outcome) int32 {
	for _, r := range out.Results {
		if r.Partition >= 0 {
			return r.Partition
		}
	}
	return 0
}

// narrateRun tells the timeline how a processor run ended.
func (s *Server) narrateRun(cfg producer.RunConfig, res *producer.RunResult, fencedOngoing bool) {
	if s.deps.Live == nil {
		return
	}
	say := func(kind, text, key string, args map[string]string) {
		s.deps.Live.Narrate(live.Event{Kind: kind, Text: text, Key: key, Args: args})
	}
	// last is the processor's last log line: it stays English in every
	// language, like the client log it quotes.
	if cfg.Mode == producer.Transactional && fencedOngoing {
		retried := slices.ContainsFunc(res.Log, func(l string) bool { return strings.Contains(l, "CONCURRENT_TRANSACTIONS") })
		text := fmt.Sprintf("A new producer with transactional.id %s started (producer id %d, epoch %d): initialising it fenced the crashed producer and made the coordinator abort its open transaction.", cfg.TransactionalID, res.ProducerID, res.ProducerEpoch)
		key := "narration.fence"
		if retried {
			text += " The coordinator first answered CONCURRENT_TRANSACTIONS while it wrote the ABORT markers, and the client retried."
			key = "narration.fence.retried"
		}
		say(live.EventFence, text, key, map[string]string{"txid": cfg.TransactionalID, "producer": fmt.Sprint(res.ProducerID), "epoch": fmt.Sprint(res.ProducerEpoch)})
	}
	if res.Crashed && len(res.Log) > 0 {
		last := res.Log[len(res.Log)-1]
		switch cfg.Mode {
		case producer.Transactional:
			say(live.EventCrash, fmt.Sprintf("Process crashed before commit — no EndTxn was sent. %s. Transaction %s stays Ongoing and holds the last stable offset back.", last, cfg.TransactionalID),
				"narration.crash.txn", map[string]string{"last": last, "txid": cfg.TransactionalID})
		case producer.Plain:
			say(live.EventCrash, fmt.Sprintf("Process crashed before the offset commit. %s. Group %s still points at the order, so a restart processes it again.", last, cfg.Group),
				"narration.crash.plain", map[string]string{"last": last, "group": cfg.Group})
		default:
			say(live.EventCrash, fmt.Sprintf("Process crashed. %s.", last), "narration.crash", map[string]string{"last": last})
		}
	}
}
