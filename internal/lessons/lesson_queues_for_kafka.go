package lessons

// Lesson 9: share groups (KIP-932, "Queues for Kafka"), which no seed runs.

import (
	"fmt"
	"strings"

	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/producer"
)

const (
	cmdShareConfigs  = "kafka-configs.sh --bootstrap-server {bootstrap} --alter --entity-type groups --entity-name {%s} --add-config %s"
	cmdShareGroup    = "kafka-share-groups.sh --bootstrap-server {bootstrap} --describe --group {%s}"
	cmdSharePoll     = "records = consumer.poll(Duration.ofSeconds(3));   // %s: KafkaShareConsumer of {%s}, max.poll.records=%d"
	cmdShareAck      = "consumer.acknowledge(record, AcknowledgeType.%s);   // %s: offsets %s\nconsumer.commitSync();"
	cmdShareCrash    = "kill -STOP <pid of %s>   # it hangs holding its records"
	jobsLockMs       = "15000"
	jobsDeliveryCaps = "2"
	pyInitPayer      = `producer = Producer({"bootstrap.servers": "{bootstrap}", "transactional.id": "{payer-app}"})` + "\n" + `producer.init_transactions(); producer.begin_transaction()`
)

func pySendTo(topic, value string) string {
	return `producer.produce("{` + topic + `}", value=b"` + value + `"); producer.flush()`
}

// sharePoll is a step in which worker polls at most max records.
func sharePoll(title, say Msg, worker, group, topic string, max int, held string) Step {
	return Step{
		Title: title, Say: say,
		Do:      SharePoll{Worker: worker, Group: group, Topic: topic, Max: max},
		Command: fmt.Sprintf(cmdSharePoll, worker, group, max),
		Expect:  []Expect{{Say: "expect.held", Fact: FactHeld, Want: held}},
	}
}

// shareAck is a step in which worker acknowledges offsets as ack says.
func shareAck(title, say Msg, worker, topic string, ack lab.ShareAck, javaAck, offsets string, list []int64, held string) Step {
	return Step{
		Title: title, Say: say,
		Do:      ShareAck{Worker: worker, Topic: topic, Offsets: list, Ack: ack},
		Command: fmt.Sprintf(cmdShareAck, javaAck, worker, offsets),
		Expect:  []Expect{{Say: "expect.held", Fact: FactHeld, Want: held}},
	}
}

// shareGroupStep is kafka-share-groups.sh --describe with its LAG and,
// unless start is empty, its START-OFFSET.
func shareGroupStep(title, say Msg, group, topic, start, lag string) Step {
	s := Step{
		Title: title, Say: say,
		Do:      DescribeShareGroup{Group: group, Topic: topic},
		Command: fmt.Sprintf(cmdShareGroup, group),
	}
	if start != "" {
		s.Expect = append(s.Expect, Expect{Say: "expect.startOffset", Fact: FactStartOffset, Want: start})
	}
	s.Expect = append(s.Expect, Expect{Say: "expect.lag", Fact: FactLag, Want: lag})
	return s
}

// queuesForKafka is lesson 9: two workers of a share group read one
// partition together; a hung worker's records come back when their lock
// expires; a poison record is archived at the delivery limit; a
// read_committed share group never delivers an aborted write.
func queuesForKafka() Lesson {
	workersCfg := "share.auto.offset.reset=earliest,share.record.lock.duration.ms=" + jobsLockMs + ",share.delivery.count.limit=" + jobsDeliveryCaps
	auditCfg := "share.auto.offset.reset=earliest,share.isolation.level=read_committed"
	return Lesson{
		ID: "9", Title: "l9.title", Summary: "l9.summary", Focus: "jobs",
		Steps: []Step{
			seedTopics("l9.create.say", "jobs", "payouts"),
			{
				Title: "l9.produce.title", Say: "l9.produce.say",
				Do:      Produce{Topic: "jobs", Values: []string{"job 0", "job 1", "job 2", "job 3", "job 4", "poison"}, Acks: producer.AcksAll},
				Command: "printf 'job 0\\njob 1\\njob 2\\njob 3\\njob 4\\npoison\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {jobs}",
				Expect:  []Expect{{Say: "expect.offsets", Fact: FactOffsets, Want: "0, 1, 2, 3, 4, 5"}},
			},
			{
				Title: "l9.classic.title", Say: "l9.classic.say",
				Do:      ReadAsGroup{Topic: "jobs", Group: "one-reader", Reset: lab.ResetEarliest},
				Command: fmt.Sprintf(cmdGroupRead, "jobs", "one-reader", lab.ResetEarliest),
				Expect: []Expect{
					{Say: "expect.offsets", Fact: FactOffsets, Want: "0, 1, 2, 3, 4, 5"},
					{Say: "expect.next", Fact: FactNext, Want: "6"},
				},
			},
			{
				Title: "l9.configs.title", Say: "l9.configs.say",
				Do:      SetGroupConfigs{Group: "workers", Configs: splitConfigs(workersCfg)},
				Command: fmt.Sprintf(cmdShareConfigs, "workers", workersCfg),
				Expect:  []Expect{{Say: "expect.configs", Fact: FactConfigs, Want: strings.ReplaceAll(workersCfg, ",", ", ")}},
			},
			sharePoll("l9.w1poll.title", "l9.w1poll.say", "w1", "workers", "jobs", 3, "0/1, 1/1, 2/1"),
			sharePoll("l9.w2poll.title", "l9.w2poll.say", "w2", "workers", "jobs", 3, "3/1, 4/1, 5/1"),
			shareAck("l9.w1accept.title", "l9.w1accept.say", "w1", "jobs", lab.AckAccept, "ACCEPT", "0, 1, 2", []int64{0, 1, 2}, "none"),
			{
				Title: "l9.crash.title", Say: "l9.crash.say",
				Do:      ShareCrash{Worker: "w2", Topic: "jobs"},
				Command: fmt.Sprintf(cmdShareCrash, "w2"),
				Expect: []Expect{
					{Say: "expect.crashed", Fact: FactCrashed, Want: "yes"},
					{Say: "expect.held", Fact: FactHeld, Want: "3/1, 4/1, 5/1"},
				},
			},
			sharePoll("l9.redeliver.title", "l9.redeliver.say", "w1", "workers", "jobs", 3, "3/2, 4/2, 5/2"),
			shareGroupStep("l9.midDescribe.title", "l9.midDescribe.say", "workers", "jobs", "3", "3"),
			shareAck("l9.w1accept2.title", "l9.w1accept2.say", "w1", "jobs", lab.AckAccept, "ACCEPT", "3, 4", []int64{3, 4}, "5/2"),
			shareAck("l9.release.title", "l9.release.say", "w1", "jobs", lab.AckRelease, "RELEASE", "5", []int64{5}, "none"),
			shareGroupStep("l9.describe.title", "l9.describe.say", "workers", "jobs", "", "0"),
			{
				Title: "l9.begin.title", Say: "l9.begin.say",
				Do:      Begin{Process: "payer", TransactionalID: "payer-app"},
				Command: "# payer\n" + pyInitPayer,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: FactProducerID, Want: "yes"}},
			},
			{
				Title: "l9.send.title", Say: "l9.send.say",
				Do:      Send{Process: "payer", TransactionalID: "payer-app", Topic: "payouts", Values: []string{"payout 1"}},
				Command: "# payer\n" + pySendTo("payouts", "payout 1"),
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: FactOffsets, Want: "0"}},
			},
			{
				Title: "l9.abort.title", Say: "l9.abort.say",
				Do:      End{Process: "payer", TransactionalID: "payer-app"},
				Command: "# payer\n" + pyAbort,
				Expect:  []Expect{{Say: "expect.ended", Fact: FactEnded, Want: "aborted"}},
			},
			{
				Title: "l9.payout2.title", Say: "l9.payout2.say",
				Do:      Produce{Topic: "payouts", Values: []string{"payout 2"}, Acks: producer.AcksAll},
				Command: "echo 'payout 2' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {payouts}",
				Expect:  []Expect{{Say: "expect.offsets", Fact: FactOffsets, Want: "2"}},
			},
			{
				Title: "l9.audit.title", Say: "l9.audit.say",
				Do:      SetGroupConfigs{Group: "auditors", Configs: splitConfigs(auditCfg)},
				Command: fmt.Sprintf(cmdShareConfigs, "auditors", auditCfg),
				Expect:  []Expect{{Say: "expect.configs", Fact: FactConfigs, Want: "share.auto.offset.reset=earliest, share.isolation.level=read_committed"}},
			},
			sharePoll("l9.auditpoll.title", "l9.auditpoll.say", "auditor", "auditors", "payouts", 10, "2/1"),
			shareAck("l9.auditaccept.title", "l9.auditaccept.say", "auditor", "payouts", lab.AckAccept, "ACCEPT", "2", []int64{2}, "none"),
			shareGroupStep("l9.auditdescribe.title", "l9.auditdescribe.say", "auditors", "payouts", "", "0"),
		},
	}
}

// splitConfigs splits "a=1,b=2" into its configs.
func splitConfigs(s string) []string { return strings.Split(s, ",") }
