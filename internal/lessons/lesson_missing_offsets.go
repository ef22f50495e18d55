package lessons

// Lessons 7 and 8: the two other reasons an offset holds nothing — the
// log cleaner of a compacted topic, and retention or DeleteRecords moving
// the log start offset.

import (
	"fmt"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Commands of lessons 7 and 8.
const (
	cmdKeyed     = "printf '%s\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {%s} --property parse.key=true --property key.separator=:"
	cmdTombstone = "printf '%s:NULL\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {%s} --property parse.key=true --property key.separator=: --property null.marker=NULL"
	cmdAlter     = "kafka-configs.sh --bootstrap-server {bootstrap} --alter --entity-type topics --entity-name {%s} --add-config %s"
	cmdDescribe  = "kafka-configs.sh --bootstrap-server {bootstrap} --describe --entity-type topics --entity-name {%s}   # then wait: the cleaner wakes every log.cleaner.backoff.ms (1 s on the lab's brokers)"
	cmdGroupRead = "kafka-console-consumer.sh --bootstrap-server {bootstrap} --topic {%s} --group {%s} --consumer-property auto.offset.reset=%s --formatter-property print.offset=true --timeout-ms 5000"
)

// keyed is a step producing values under one key, one command line.
func keyed(title, say Msg, topic, key string, values []string, offsets string) Step {
	lines := ""
	for i, v := range values {
		if i > 0 {
			lines += "\\n"
		}
		lines += key + ":" + v
	}
	return Step{
		Title: title, Say: say,
		Do:      Produce{Topic: topic, Key: key, Values: values, Acks: producer.AcksAll},
		Command: fmt.Sprintf(cmdKeyed, lines, topic),
		Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: offsets}},
	}
}

// compactedTopic is lesson 7: keys, overwrites, a tombstone and a
// transaction in a topic turned compacted, and two passes of the log
// cleaner — which offsets go and why, and what consumers receive after.
func compactedTopic() Lesson {
	const topic, txid = "prices", "prices-app"
	py := `producer = Producer({"bootstrap.servers": "{bootstrap}", "transactional.id": "{prices-app}"})` + "\n" +
		`producer.init_transactions(); producer.begin_transaction()`
	return Lesson{
		ID: "7", Title: "l7.title", Summary: "l7.summary", Focus: topic,
		Steps: []Step{
			{
				Title: "create.title", Say: "l7.create.say",
				Do:      CreateTopics{Topics: []TopicSpec{{Name: topic, Partitions: 1, Configs: map[string]string{"segment.ms": "1"}}}},
				Command: fmt.Sprintf(cmdTopic, topic) + " --config segment.ms=1",
				Expect:  []Expect{{Say: "expect.created", Fact: FactCreated, Want: "1"}},
			},
			keyed("l7.pear.title", "l7.pear.say", topic, "pear", []string{"pear 300"}, "0"),
			keyed("l7.apple.title", "l7.apple.say", topic, "apple", []string{"apple 100", "apple 120"}, "1, 2"),
			{
				Title: "l7.begin.title", Say: "l7.begin.say",
				Do:      Begin{TransactionalID: txid},
				Command: py,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: FactProducerID, Want: "yes"}},
			},
			{
				Title: "l7.send.title", Say: "l7.send.say",
				Do:      Send{TransactionalID: txid, Topic: topic, Key: "kiwi", Values: []string{"kiwi 50"}},
				Command: `producer.produce("{prices}", key=b"kiwi", value=b"kiwi 50"); producer.flush()`,
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: FactOffsets, Want: "3"}},
			},
			{
				Title: "l7.commit.title", Say: "l7.commit.say",
				Do:      End{TransactionalID: txid, Commit: true},
				Command: pyCommit,
				Expect:  []Expect{{Say: "expect.ended", Fact: FactEnded, Want: "committed"}},
			},
			keyed("l7.apple2.title", "l7.apple2.say", topic, "apple", []string{"apple 130"}, "5"),
			{
				Title: "l7.tombstone.title", Say: "l7.tombstone.say",
				Do:      Produce{Topic: topic, Key: "kiwi", Tombstone: true, Acks: producer.AcksAll},
				Command: fmt.Sprintf(cmdTombstone, "kiwi", topic),
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "6"}},
			},
			keyed("l7.plum.title", "l7.plum.say", topic, "plum", []string{"plum 80"}, "7"),
			{
				Title: "l7.before.title", Say: "l7.before.say",
				Do:      ReadLog{Topic: topic},
				Command: fmt.Sprintf(cmdDumpLog, topic),
				Expect: []Expect{
					{Say: "expect.shape", Fact: FactShape, Want: "0:none 1:none 2:none 3:committed 4:COMMIT 5:none 6:none 7:none"},
					{Say: "expect.gaps", Fact: FactGaps, Want: "none"},
					{Say: "expect.latest", Fact: FactLatest, Want: "apple=apple 130 · kiwi=<null> · pear=pear 300 · plum=plum 80"},
				},
			},
			{
				Title: "l7.compact.title", Say: "l7.compact.say",
				Do:      AlterConfigs{Topic: topic, Configs: map[string]string{"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0"}},
				Command: fmt.Sprintf(cmdAlter, topic, "cleanup.policy=compact,min.cleanable.dirty.ratio=0.01,delete.retention.ms=0"),
				Expect:  []Expect{{Say: "expect.configs", Fact: FactConfigs, Want: "cleanup.policy=compact, delete.retention.ms=0, min.cleanable.dirty.ratio=0.01"}},
			},
			{
				Title: "l7.pass1.title", Say: "l7.pass1.say",
				Do:      AwaitCleaner{Topic: topic, Gone: 2},
				Command: fmt.Sprintf(cmdDescribe, topic),
				Expect:  []Expect{{Say: "expect.removed", Fact: FactRemoved, Want: "1, 2, 3"}},
			},
			{
				Title: "l7.after1.title", Say: "l7.after1.say",
				Do:      ReadLog{Topic: topic},
				Command: fmt.Sprintf(cmdDumpLog, topic),
				Expect: []Expect{
					{Say: "expect.gaps", Fact: FactGaps, Want: "1-3 compacted"},
					{Say: "expect.markers", Fact: FactMarkers, Want: "4 COMMIT"},
					{Say: "expect.logStart", Fact: FactLogStart, Want: "0"},
				},
			},
			keyed("l7.plum2.title", "l7.plum2.say", topic, "plum", []string{"plum 90"}, "8"),
			{
				Title: "l7.pass2.title", Say: "l7.pass2.say",
				Do:      AwaitCleaner{Topic: topic, Gone: 6},
				Command: fmt.Sprintf(cmdDescribe, topic),
				Expect:  []Expect{{Say: "expect.removed", Fact: FactRemoved, Want: "6"}},
			},
			{
				Title: "l7.after2.title", Say: "l7.after2.say",
				Do:      ReadLog{Topic: topic},
				Command: fmt.Sprintf(cmdDumpLog, topic),
				Expect: []Expect{
					{Say: "expect.gaps", Fact: FactGaps, Want: "1-3 compacted, 6 compacted"},
					{Say: "expect.markers", Fact: FactMarkers, Want: "4 COMMIT"},
					{Say: "expect.latest", Fact: FactLatest, Want: "apple=apple 130 · pear=pear 300 · plum=plum 90"},
					{Say: "expect.rcVisible", Fact: FactReadCommitted, Want: "0, 5, 7, 8"},
					{Say: "expect.ruVisible", Fact: FactReadUncommitted, Want: "0, 5, 7, 8"},
					{Say: "expect.hw", Fact: FactHW, Want: "9"},
				},
			},
			consume("l7.rc.title", "l7.rc.say", topic, inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "0: pear 300 · 5: apple 130 · 7: plum 80 · 8: plum 90"},
			),
		},
	}
}

// retentionAndDeleteRecords is lesson 8: DeleteRecords and then retention
// move the log start offset up; two groups committed below it resume with
// auto.offset.reset=earliest and =latest and lose different offsets.
func retentionAndDeleteRecords() Lesson {
	const topic, early, late = "events", "reports-early", "reports-late"
	events := []string{"event 0", "event 1", "event 2", "event 3", "event 4", "event 5"}
	deleteJSON := `echo '{"partitions":[{"topic":"{events}","partition":0,"offset":4}],"version":1}' > delete.json` + "\n" +
		"kafka-delete-records.sh --bootstrap-server {bootstrap} --offset-json-file delete.json"
	resetCmd := func(group, reset, to string) string {
		return fmt.Sprintf(cmdGroupRead, topic, group, reset) + "\n" +
			"# the same by hand, before the consumer starts:\n" +
			"kafka-consumer-groups.sh --bootstrap-server {bootstrap} --group {" + group + "} --topic {events} --reset-offsets --to-" + to + " --execute"
	}
	return Lesson{
		ID: "8", Title: "l8.title", Summary: "l8.summary", Focus: topic,
		Steps: []Step{
			seedTopics("l8.create.say", topic),
			{
				Title: "l8.produce.title", Say: "l8.produce.say",
				Do:      Produce{Topic: topic, Values: events, Acks: producer.AcksAll},
				Command: "printf 'event 0\\nevent 1\\nevent 2\\nevent 3\\nevent 4\\nevent 5\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {events}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "0, 1, 2, 3, 4, 5"}},
			},
			{
				Title: "l8.early1.title", Say: "l8.early1.say",
				Do:      ReadAsGroup{Topic: topic, Group: early, Reset: lab.ResetEarliest, Max: 2},
				Command: fmt.Sprintf(cmdGroupRead, topic, early, "earliest") + " --max-messages 2",
				Expect: []Expect{
					{Say: "expect.offsets", Fact: FactOffsets, Want: "0, 1"},
					{Say: "expect.next", Fact: FactNext, Want: "2"},
				},
			},
			{
				Title: "l8.late1.title", Say: "l8.late1.say",
				Do:      ReadAsGroup{Topic: topic, Group: late, Reset: lab.ResetEarliest, Max: 2},
				Command: fmt.Sprintf(cmdGroupRead, topic, late, "earliest") + " --max-messages 2",
				Expect: []Expect{
					{Say: "expect.offsets", Fact: FactOffsets, Want: "0, 1"},
					{Say: "expect.next", Fact: FactNext, Want: "2"},
				},
			},
			{
				Title: "l8.delete.title", Say: "l8.delete.say",
				Do:      DeleteRecords{Topic: topic, Before: 4},
				Command: deleteJSON,
				Expect:  []Expect{{Say: "expect.logStart", Fact: FactLogStart, Want: "4"}},
			},
			{
				Title: "l8.log1.title", Say: "l8.log1.say",
				Do:      ReadLog{Topic: topic},
				Command: fmt.Sprintf(cmdDumpLog, topic),
				Expect: []Expect{
					{Say: "expect.gaps", Fact: FactGaps, Want: "0-3 beforeLogStart"},
					{Say: "expect.ruVisible", Fact: FactReadUncommitted, Want: "4, 5"},
				},
			},
			groupStep("group.title", "l8.group.say", early, "2", "6", "4"),
			{
				Title: "l8.produce2.title", Say: "l8.produce2.say",
				Do:      Produce{Topic: topic, Values: []string{"event 6", "event 7"}, Acks: producer.AcksAll},
				Command: "printf 'event 6\\nevent 7\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {events}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "6, 7"}},
			},
			{
				Title: "l8.early2.title", Say: "l8.early2.say",
				Do:      ReadAsGroup{Topic: topic, Group: early, Reset: lab.ResetEarliest},
				Command: resetCmd(early, "earliest", "earliest"),
				Expect: []Expect{
					{Say: "expect.outOfRange", Fact: FactOutOfRange, Want: "yes"},
					{Say: "expect.start", Fact: FactStart, Want: "4"},
					{Say: "expect.lost", Fact: FactLost, Want: "2"},
					{Say: "expect.records", Fact: FactRecords, Want: "4: event 4 · 5: event 5 · 6: event 6 · 7: event 7"},
					{Say: "expect.next", Fact: FactNext, Want: "8"},
				},
			},
			{
				Title: "l8.late2.title", Say: "l8.late2.say",
				Do:      ReadAsGroup{Topic: topic, Group: late, Reset: lab.ResetLatest},
				Command: resetCmd(late, "latest", "latest"),
				Expect: []Expect{
					{Say: "expect.outOfRange", Fact: FactOutOfRange, Want: "yes"},
					{Say: "expect.start", Fact: FactStart, Want: "8"},
					{Say: "expect.lost", Fact: FactLost, Want: "6"},
					{Say: "expect.records", Fact: FactRecords, Want: "none"},
					{Say: "expect.next", Fact: FactNext, Want: "8"},
				},
			},
			{
				Title: "l8.retention.title", Say: "l8.retention.say",
				Do:      AlterConfigs{Topic: topic, Configs: map[string]string{"retention.ms": "1000"}},
				Command: fmt.Sprintf(cmdAlter, topic, "retention.ms=1000"),
				Expect:  []Expect{{Say: "expect.configs", Fact: FactConfigs, Want: "retention.ms=1000"}},
			},
			{
				Title: "l8.expired.title", Say: "l8.expired.say",
				Do:      AwaitRetention{Topic: topic},
				Command: "kafka-get-offsets.sh --bootstrap-server {bootstrap} --topic {events} --time -2   # the log start offset; the broker checks every log.retention.check.interval.ms (1 s here)",
				Expect: []Expect{
					{Say: "expect.logStart", Fact: FactLogStart, Want: "8"},
					{Say: "expect.hw", Fact: FactHW, Want: "8"},
				},
			},
			{
				Title: "l8.log2.title", Say: "l8.log2.say",
				Do:      ReadLog{Topic: topic},
				Command: fmt.Sprintf(cmdDumpLog, topic),
				Expect: []Expect{
					{Say: "expect.gaps", Fact: FactGaps, Want: "0-7 beforeLogStart"},
					{Say: "expect.ruVisible", Fact: FactReadUncommitted, Want: "none"},
				},
			},
			groupStep("group.end.title", "l8.group2.say", early, "8", "8", "0"),
		},
	}
}
