package e2e

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// Apache Kafka 4.3.1's own tools against the embedded broker's Kafka port
// and against real Kafka, each compared with what the dashboard shows of
// the same broker, then the two brokers compared with each other.

const (
	topicCommand       = "org.apache.kafka.tools.TopicCommand"
	getOffsetShell     = "org.apache.kafka.tools.GetOffsetShell"
	groupCommand       = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
	transactionsTool   = "org.apache.kafka.tools.TransactionsCommand"
	consoleProducer    = "org.apache.kafka.tools.ConsoleProducer"
	consoleConsumer    = "org.apache.kafka.tools.consumer.ConsoleConsumer"
	producerPerf       = "org.apache.kafka.tools.ProducerPerformance"
	transactionCopier  = "org.apache.kafka.tools.TransactionalMessageCopier"
	keyedRecords       = 20 // the console producer's records
	restartedTxRecords = 50 // the records of a restarted transactional producer
)

// toolsFacts is what the tools saw on one broker, for comparing brokers.
type toolsFacts struct {
	highWatermarks []int64             // of the console producer's topic, by partition
	members        map[string][]string // by group protocol: host, assignment, as --members prints them
	assignors      map[string]string   // by group protocol, as --state prints it
	memberEpochs   string              // a KIP-848 member's CURRENT-EPOCH / TARGET-EPOCH
	committedReads int                 // read_committed records of the transactional topic
	markers        []string            // the transactional topic's markers: "COMMIT e3"
	states         stateFacts          // coordinator states, an idempotent producer, a compacted topic
}

// TestKafkaTools drives the Kafka port with kafka-topics, the console
// producer and consumer (both isolation levels; a classic group and a
// group.protocol=consumer group), kafka-consumer-groups, kafka-get-offsets,
// kafka-transactions and transactional Java producers killed with kill -9
// and restarted, on the embedded broker (the server binary) and on real
// Kafka (OFFSETLAB_KAFKA_BROKERS, the dashboard over it).
func TestKafkaTools(t *testing.T) {
	tools := requireJavaTools(t)
	facts := map[brokerKind]toolsFacts{}
	var factsMu sync.Mutex
	// The two brokers side by side (the group ends when both have); the
	// test as a whole runs alone, as the package's other JVM-heavy tests do.
	t.Run("brokers", func(t *testing.T) {
		for _, kind := range brokerKinds {
			t.Run(string(kind), func(t *testing.T) {
				t.Parallel()
				var p *serverProcess
				bootstrap := os.Getenv(brokersEnv)
				switch kind {
				case embedded:
					p = startServerProcess(t, "--data-dir", t.TempDir())
					bootstrap = p.kafkaAddr
				case realKafka:
					testenv.Needs(t, testenv.JVM)
					if bootstrap == "" {
						testenv.MissingSetup(t, "real Kafka tools tests skipped: set %s=host:port (scripts/test.sh starts Apache Kafka 4.3.1 and sets it)", brokersEnv)
					}
					p = startServerProcess(t, "--brokers", bootstrap, "--allow-writes", "--data-dir", t.TempDir())
				}
				a := p.app(randomSuffix(t))
				a.kind = kind
				trained := tools.train(t, bootstrap)
				begin := time.Now()
				got := runKafkaTools(t, trained, a, bootstrap)
				factsMu.Lock()
				facts[kind] = got
				factsMu.Unlock()
				t.Logf("%s: the tools' run took %v", kind, time.Since(begin).Round(time.Millisecond))
			})
		}
	})
	emb, okEmb := facts[embedded]
	kafka, okKafka := facts[realKafka]
	if !okEmb || !okKafka {
		return
	}
	t.Run("same answers on both brokers", func(t *testing.T) {
		if !slices.Equal(emb.highWatermarks, kafka.highWatermarks) {
			t.Errorf("high watermarks by partition: embedded %v, Kafka %v", emb.highWatermarks, kafka.highWatermarks)
		}
		for _, proto := range []string{"classic", "consumer"} {
			if !slices.Equal(emb.members[proto], kafka.members[proto]) {
				t.Errorf("%s group --members: embedded %v, Kafka %v", proto, emb.members[proto], kafka.members[proto])
			}
			if emb.assignors[proto] != kafka.assignors[proto] {
				t.Errorf("%s group assignor: embedded %q, Kafka %q", proto, emb.assignors[proto], kafka.assignors[proto])
			}
		}
		if emb.committedReads != kafka.committedReads {
			t.Errorf("read_committed records: embedded %d, Kafka %d", emb.committedReads, kafka.committedReads)
		}
		if emb.memberEpochs != kafka.memberEpochs {
			t.Errorf("KIP-848 member epochs (current/target): embedded %s, Kafka %s", emb.memberEpochs, kafka.memberEpochs)
		}
		if !slices.Equal(emb.states.transactions, kafka.states.transactions) {
			t.Errorf("kafka-transactions describe / list after a commit and an abort:\n embedded %v\n Kafka    %v", emb.states.transactions, kafka.states.transactions)
		}
		if !maps.Equal(emb.states.idempotent, kafka.states.idempotent) {
			t.Errorf("describe-producers of an idempotent producer:\n embedded %v\n Kafka    %v", emb.states.idempotent, kafka.states.idempotent)
		}
		for _, iso := range []string{"read_committed", "read_uncommitted"} {
			if !slices.Equal(emb.states.compacted[iso], kafka.states.compacted[iso]) {
				t.Errorf("console consumer at %s of the compacted topic: embedded %v, Kafka %v", iso, emb.states.compacted[iso], kafka.states.compacted[iso])
			}
		}
		t.Logf("kafka-transactions after commit and abort: %v; describe-producers of an idempotent producer: embedded %v, Kafka %v; compacted topic: %v",
			emb.states.transactions, emb.states.idempotent, kafka.states.idempotent, emb.states.compacted)
	})
	t.Run("marker epochs", func(t *testing.T) {
		// Kafka 4.3 with a 4.x Java client (transaction version 2)
		// writes every marker with the producer epoch + 1.
		if !slices.Equal(emb.markers, kafka.markers) {
			t.Errorf("markers of the Java producers:\n embedded %v\n Kafka    %v", emb.markers, kafka.markers)
		}
	})
}

// runKafkaTools runs every tool against bootstrap and checks each answer
// against the dashboard a.
func runKafkaTools(t *testing.T, tools javaTools, a *app, bootstrap string) toolsFacts {
	facts := toolsFacts{members: map[string][]string{}, assignors: map[string]string{}}
	topic, txTopic := a.name("tools"), a.name("tools-tx")
	server := []string{"--bootstrap-server", bootstrap}

	// kafka-topics --create, then --describe beside the console producer,
	// keyed: the keys place records alike on both brokers.
	created := tools.run(t, "", topicCommand, append(server, "--create", "--topic", topic, "--partitions", "2", "--replication-factor", "1")...)
	if !strings.Contains(created.stdout, "Created topic "+topic+".") {
		t.Fatalf("kafka-topics --create: %s", created.stdout)
	}
	a.do("POST", "/api/topics", map[string]any{"name": txTopic, "partitions": 1}, http.StatusCreated, nil)
	var lines strings.Builder
	for i := range keyedRecords {
		fmt.Fprintf(&lines, "k%d:v%d\n", i, i)
	}
	runs := tools.runAll(t,
		call(topicCommand, append(server, "--describe", "--topic", topic)...),
		toolCall{stdin: lines.String(), class: consoleProducer, args: append(server, "--topic", topic, "--reader-property", "parse.key=true", "--reader-property", "key.separator=:")})
	described := runs[0]
	dash := a.brief(topic)
	if !strings.Contains(described.stdout, "PartitionCount: 2") || len(dash.Partitions) != 2 {
		t.Fatalf("kafka-topics --describe:\n%s\ndashboard: %+v", described.stdout, dash)
	}
	for _, p := range dash.Partitions {
		want := fmt.Sprintf("Partition: %d\tLeader: %d\tReplicas: %d\tIsr: %d", p.Partition, p.Leader, p.Leader, p.Leader)
		if !strings.Contains(described.stdout, want) {
			t.Errorf("kafka-topics --describe has no %q:\n%s", want, described.stdout)
		}
	}

	// kafka-get-offsets equals the dashboard's high watermarks.
	offsets := tools.run(t, "", getOffsetShell, append(server, "--topic", topic)...)
	dash = a.brief(topic)
	var total int64
	for _, p := range dash.Partitions {
		facts.highWatermarks = append(facts.highWatermarks, p.HighWatermark)
		total += p.HighWatermark
		if line := offsetsLine(topic, p.Partition, p.HighWatermark); !strings.Contains(offsets.stdout, line) {
			t.Errorf("kafka-get-offsets has no %q (the dashboard's high watermark):\n%s", line, offsets.stdout)
		}
	}
	if total != keyedRecords {
		t.Fatalf("high watermarks %v add up to %d, want %d", facts.highWatermarks, total, keyedRecords)
	}

	checkLessonCommands(t, tools, a, server)
	checkGroups(t, tools, a, server, topic, &facts)
	checkTransactions(t, tools, a, server, topic, txTopic, &facts)
	facts.states = checkStates(t, tools, a, server)
	return facts
}

// checkLessonCommands runs the producer and consumer commands the lessons
// print under "On real Kafka" that the steps above do not: idempotent and
// acks=all producers, the acks=1 idempotent producer the Java client
// refuses (lesson 5's point), and a consumer of one partition from the
// earliest offset printing keys.
func checkLessonCommands(t *testing.T, tools javaTools, a *app, server []string) {
	topic := a.name("tools-lesson")
	a.do("POST", "/api/topics", map[string]any{"name": topic, "partitions": 1}, http.StatusCreated, nil)
	produce := append(slices.Clone(server), "--topic", topic, "--reader-property", "parse.key=true", "--reader-property", "key.separator=:")
	tools.runAll(t,
		toolCall{stdin: "k1:idempotent\n", class: consoleProducer, args: append(slices.Clone(produce), "--command-property", "enable.idempotence=true")},
		toolCall{stdin: "k2:acks-all\n", class: consoleProducer, args: append(slices.Clone(produce), "--command-property", "acks=all", "--command-property", "enable.idempotence=false")},
		toolCall{stdin: "k3:refused\n", class: consoleProducer, args: append(slices.Clone(produce), "--command-property", "enable.idempotence=true", "--command-property", "acks=1"),
			refusal: "Must set acks to all in order to use the idempotent producer"})
	consumed := tools.run(t, "", consoleConsumer, append(server, "--topic", topic, "--partition", "0", "--offset", "earliest",
		"--formatter-property", "print.key=true", "--formatter-property", "print.offset=true", "--max-messages", "2", "--timeout-ms", "30000")...)
	want := a.recordOffsets(topic, "read_uncommitted")
	if got := printedOffsets(consumed.stdout); !slices.Equal(got, want) || !strings.Contains(consumed.stdout, "\tk1\tidempotent") || !strings.Contains(consumed.stdout, "\tk2\tacks-all") {
		t.Errorf("console consumer of partition 0 printed offsets %v (the dashboard's: %v):\n%s", got, want, consumed.stdout)
	}
}

// checkGroups runs a console consumer in a classic group and one in a
// KIP-848 group and compares kafka-consumer-groups with the dashboard.
func checkGroups(t *testing.T, tools javaTools, a *app, server []string, topic string, facts *toolsFacts) {
	groups := map[string]string{"classic": a.name("tools-classic"), "consumer": a.name("tools-kip848")}
	consumers := map[string]*runningTool{}
	for proto, group := range groups {
		consumers[proto] = tools.start(t, consoleConsumer, append(server, "--topic", topic, "--from-beginning", "--group", group,
			"--consumer-property", "group.protocol="+proto, "--consumer-property", "auto.commit.interval.ms=100")...)
	}
	views := map[string]dashGroup{}
	for proto, group := range groups {
		waitFor(t, proto+" group "+group+" with one member and every offset committed", 60*time.Second, func() bool {
			views[proto] = a.dashGroup(group)
			var committed int64
			for _, o := range views[proto].Offsets {
				committed += max(o.Committed, 0)
			}
			return views[proto].MemberCount == 1 && committed == keyedRecords
		})
	}
	both := []string{"--group", groups["classic"], "--group", groups["consumer"]}
	runs := tools.runAll(t,
		call(groupCommand, append(append(server, "--describe", "--offsets"), both...)...),
		call(groupCommand, append(append(server, "--describe", "--members", "--verbose"), both...)...),
		call(groupCommand, append(append(server, "--describe", "--state"), both...)...),
		call(groupCommand, append(server, "--list")...))
	described, members, state := runs[0], runs[1], runs[2]
	listed := strings.Fields(runs[3].stdout)
	for _, group := range groups {
		if !slices.Contains(listed, group) {
			t.Errorf("kafka-consumer-groups --list does not list %s:\n%s", group, runs[3].stdout)
		}
	}
	for _, row := range table(t, described.stdout, "GROUP") {
		proto := "classic"
		if row["GROUP"] == groups["consumer"] {
			proto = "consumer"
		}
		v := views[proto]
		var found bool
		for _, o := range v.Offsets {
			if fmt.Sprint(o.Partition) == row["PARTITION"] && o.Topic == row["TOPIC"] {
				found = true
				got := []string{row["CURRENT-OFFSET"], row["LOG-END-OFFSET"], row["LAG"], row["CONSUMER-ID"], row["HOST"]}
				want := []string{fmt.Sprint(o.Committed), fmt.Sprint(o.LogEnd), fmt.Sprint(o.Lag), v.Members[0].MemberID, v.Members[0].Host}
				if !slices.Equal(got, want) {
					t.Errorf("%s --offsets %s-%s: tool %v, dashboard %v", row["GROUP"], row["TOPIC"], row["PARTITION"], got, want)
				}
			}
		}
		if !found {
			t.Errorf("kafka-consumer-groups lists %v, which the dashboard does not", row)
		}
	}
	if rows := table(t, described.stdout, "GROUP"); len(rows) != 4 {
		t.Errorf("kafka-consumer-groups --describe --offsets: %d rows, want 2 groups × 2 partitions:\n%s", len(rows), described.stdout)
	}
	for _, row := range table(t, members.stdout, "GROUP") {
		for proto, group := range groups {
			if row["GROUP"] != group {
				continue
			}
			if row["CONSUMER-ID"] != views[proto].Members[0].MemberID || row["#PARTITIONS"] != "2" {
				t.Errorf("%s --members: %v; dashboard's member %+v", group, row, views[proto].Members[0])
			}
			unnamed := func(assignment string) string { return strings.ReplaceAll(assignment, topic, "T") }
			facts.members[proto] = []string{row["HOST"], unnamed(row["CURRENT-ASSIGNMENT"]), unnamed(row["TARGET-ASSIGNMENT"])}
			if proto == "consumer" {
				facts.memberEpochs = row["CURRENT-EPOCH"] + "/" + row["TARGET-EPOCH"]
			}
		}
	}
	for _, row := range table(t, state.stdout, "GROUP") {
		for proto, group := range groups {
			if row["GROUP"] == group {
				facts.assignors[proto] = row["ASSIGNMENT-STRATEGY"]
				if views[proto].Protocol != row["ASSIGNMENT-STRATEGY"] {
					t.Errorf("%s --state: assignor %q, dashboard %q", group, row["ASSIGNMENT-STRATEGY"], views[proto].Protocol)
				}
			}
		}
	}
	for proto, c := range consumers {
		c.signal(syscall.SIGTERM)
		if n := processed(t, c.stderr.String()); n != keyedRecords {
			t.Errorf("%s group's console consumer received %d records, want %d", proto, n, keyedRecords)
		}
	}
}

// dashGroup is GET /api/groups/{g}.
type dashGroup struct {
	State       string `json:"state"`
	Protocol    string `json:"protocol"`
	MemberCount int    `json:"memberCount"`
	Members     []struct {
		MemberID string `json:"memberId"`
		Host     string `json:"host"`
	} `json:"members"`
	Offsets []struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
		Committed int64  `json:"committed"`
		LogEnd    int64  `json:"logEnd"`
		Lag       int64  `json:"lag"`
	} `json:"offsets"`
}

func (a *app) dashGroup(name string) dashGroup {
	a.t.Helper()
	var g dashGroup
	if status, _ := a.request("GET", "/api/groups/"+name, nil); status == http.StatusNotFound {
		return g
	}
	a.do("GET", "/api/groups/"+name, nil, http.StatusOK, &g)
	return g
}

// briefTopic is GET /api/topics/{t}?brief=true.
type briefTopic struct {
	Partitions []struct {
		Partition        int32 `json:"partition"`
		Leader           int32 `json:"leader"`
		LastStableOffset int64 `json:"lastStableOffset"`
		HighWatermark    int64 `json:"highWatermark"`
	} `json:"partitions"`
}

func (a *app) brief(topic string) briefTopic {
	a.t.Helper()
	var b briefTopic
	a.do("GET", "/api/topics/"+topic+"?brief=true", nil, http.StatusOK, &b)
	return b
}
