package e2e

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// checkTransactions copies the console producer's partition 0 into txTopic
// with TransactionalMessageCopier (transactions of four records, offsets
// committed in them), then bounces a transactional ProducerPerformance
// twice with kill -9: the first time kafka-transactions list, describe,
// describe-producers and find-hanging look at the open transaction and a
// restart fences it; the second time kafka-transactions abort ends it.
// Console consumers at both isolation levels then count what the
// dashboard counts.
func checkTransactions(t *testing.T, tools javaTools, a *app, server []string, topic, txTopic string, facts *toolsFacts) {
	bootstrap := server[1]
	copierGroup, copierID, producerID := a.name("tools-copier"), a.name("tools-copier"), a.name("tools-perf")
	tools.run(t, "", transactionCopier, "--broker-list", bootstrap, "--input-topic", topic, "--input-partition", "0",
		"--output-topic", txTopic, "--consumer-group", copierGroup, "--transactional-id", copierID,
		"--transaction-size", "4", "--use-group-metadata")
	copied := facts.highWatermarks[0]
	waitFor(t, "the copier's offsets committed", 30*time.Second, func() bool {
		g := a.dashGroup(copierGroup)
		return len(g.Offsets) == 1 && g.Offsets[0].Committed == copied
	})
	a.settledTransaction(copierID)

	perf := func(records, throughput string) []string {
		return []string{"--topic", txTopic, "--num-records", records, "--record-size", "10", "--throughput", throughput,
			"--transactional-id", producerID, "--transaction-duration-ms", "600000",
			"--command-property", "bootstrap.servers=" + bootstrap, "transaction.timeout.ms=60000"}
	}
	for bounce := 1; bounce <= 2; bounce++ {
		running := tools.start(t, producerPerf, perf("100000000", "500")...)
		waitFor(t, "an open transaction of 20 records or more", 60*time.Second, func() bool {
			p := a.brief(txTopic).Partitions[0]
			return p.HighWatermark-p.LastStableOffset >= 20
		})
		running.signal(syscall.SIGKILL)
		open := a.brief(txTopic).Partitions[0]
		if open.LastStableOffset >= open.HighWatermark {
			t.Fatalf("bounce %d: after kill -9 the LSO %d is not below the HW %d", bounce, open.LastStableOffset, open.HighWatermark)
		}
		switch bounce {
		case 1:
			checkOpenTransaction(t, tools, a, server, txTopic, producerID, open.LastStableOffset)
		case 2:
			// The abort as the transactions page prints it.
			aborts := a.pageCommands("/transactions?topic=" + txTopic)["abort-command"]
			want := append(slices.Clone(server), "abort", "--topic", txTopic, "--partition", "0", "--start-offset", fmt.Sprint(open.LastStableOffset))
			if len(aborts) != 1 || !slices.Equal(aborts[0], want) {
				t.Fatalf("the transactions page's abort commands: %v, want %v", aborts, want)
			}
			tools.run(t, "", transactionsTool, aborts[0]...)
			waitFor(t, "the LSO at the HW after kafka-transactions abort", 30*time.Second, func() bool {
				p := a.brief(txTopic).Partitions[0]
				return p.LastStableOffset == p.HighWatermark
			})
		}
		tools.run(t, "", producerPerf, perf(fmt.Sprint(restartedTxRecords), "-1")...)
		a.settledTransaction(producerID)
		waitFor(t, "the LSO at the HW after the restarted producer's commit", 30*time.Second, func() bool {
			p := a.brief(txTopic).Partitions[0]
			return p.LastStableOffset == p.HighWatermark
		})
	}

	// Each consumer stops at the number of records the dashboard says it
	// receives; the offsets it printed must be the dashboard's.
	isolations := []string{"read_committed", "read_uncommitted"}
	var calls []toolCall
	want := map[string][]int64{}
	for _, iso := range isolations {
		want[iso] = a.recordOffsets(txTopic, iso)
		calls = append(calls, call(consoleConsumer, append(server, "--topic", txTopic, "--from-beginning", "--isolation-level", iso,
			"--formatter-property", "print.offset=true", "--max-messages", fmt.Sprint(len(want[iso])), "--timeout-ms", "30000")...))
	}
	for i, run := range tools.runAll(t, calls...) {
		iso := isolations[i]
		if got := printedOffsets(run.stdout); !slices.Equal(got, want[iso]) {
			t.Errorf("console consumer at %s received %d records (offsets %v…), the dashboard %d (%v…)", iso, len(got), head(got), len(want[iso]), head(want[iso]))
		}
	}
	facts.committedReads = len(want["read_committed"])
	if want := int(copied) + 2*restartedTxRecords; facts.committedReads != want {
		t.Errorf("read_committed records: %d, want %d copied and %d from each restart", facts.committedReads, copied, restartedTxRecords)
	}
	facts.markers = a.markers(txTopic)
	t.Logf("markers: %v", facts.markers)
}

// checkOpenTransaction compares kafka-transactions list, describe,
// describe-producers and find-hanging with the dashboard while producerID's
// transaction is open from offset start on txTopic-0.
func checkOpenTransaction(t *testing.T, tools javaTools, a *app, server []string, txTopic, producerID string, start int64) {
	var txn struct {
		State         string   `json:"state"`
		ProducerID    int64    `json:"producerId"`
		ProducerEpoch int16    `json:"producerEpoch"`
		Partitions    []string `json:"partitions"`
	}
	a.do("GET", "/api/transactions/"+producerID, nil, http.StatusOK, &txn)
	if txn.State != "Ongoing" {
		t.Fatalf("the dashboard says %s's transaction is %s, want Ongoing", producerID, txn.State)
	}
	pid, epoch := fmt.Sprint(txn.ProducerID), fmt.Sprint(txn.ProducerEpoch)

	// describe-producers and find-hanging as the transactions page prints them.
	page := a.pageCommands("/transactions?topic=" + txTopic)
	if len(page["describe-command"]) != 1 || len(page["find-hanging-command"]) != 1 {
		t.Fatalf("the transactions page prints %v; want one describe-producers and one find-hanging command", page)
	}
	runs := tools.runAll(t,
		call(transactionsTool, append(server, "list")...),
		call(transactionsTool, append(server, "describe", "--transactional-id", producerID)...),
		call(transactionsTool, page["describe-command"][0]...),
		call(transactionsTool, page["find-hanging-command"][0]...))
	listed, describedRun, producersRun, hanging := runs[0], runs[1], runs[2], runs[3]
	var found bool
	for _, row := range table(t, listed.stdout, "TransactionalId") {
		if row["TransactionalId"] == producerID {
			found = true
			if row["ProducerId"] != pid || row["TransactionState"] != "Ongoing" {
				t.Errorf("kafka-transactions list: %v; dashboard producer id %s, Ongoing", row, pid)
			}
		}
	}
	if !found {
		t.Errorf("kafka-transactions list does not list %s:\n%s", producerID, listed.stdout)
	}

	described := table(t, describedRun.stdout, "CoordinatorId")
	if len(described) != 1 || described[0]["ProducerId"] != pid || described[0]["ProducerEpoch"] != epoch ||
		described[0]["TransactionState"] != "Ongoing" || described[0]["TopicPartitions"] != strings.Join(txn.Partitions, ",") {
		t.Errorf("kafka-transactions describe: %v; dashboard %+v", described, txn)
	}

	var dashProducers struct {
		Producers []struct {
			ProducerID                    int64 `json:"producerId"`
			ProducerEpoch                 int16 `json:"producerEpoch"`
			CurrentTransactionStartOffset int64 `json:"currentTransactionStartOffset"`
			Hanging                       bool  `json:"hanging"`
		} `json:"producers"`
	}
	a.do("GET", "/api/topics/"+txTopic+"/partitions/0/producers", nil, http.StatusOK, &dashProducers)
	tool := map[string]map[string]string{}
	for _, row := range table(t, producersRun.stdout, "ProducerId") {
		tool[row["ProducerId"]] = row
	}
	if len(tool) != len(dashProducers.Producers) {
		t.Errorf("kafka-transactions describe-producers lists %d producers, the dashboard %d: %v", len(tool), len(dashProducers.Producers), tool)
	}
	for _, d := range dashProducers.Producers {
		row := tool[fmt.Sprint(d.ProducerID)]
		want := "None"
		if d.CurrentTransactionStartOffset >= 0 {
			want = fmt.Sprint(d.CurrentTransactionStartOffset)
		}
		if row == nil || row["ProducerEpoch"] != fmt.Sprint(d.ProducerEpoch) || row["CurrentTransactionStartOffset"] != want {
			t.Errorf("describe-producers for producer %d: %v; dashboard %+v", d.ProducerID, row, d)
		}
		if d.Hanging {
			t.Errorf("the dashboard calls producer %d's transaction hanging; its coordinator knows it", d.ProducerID)
		}
	}
	if row := tool[pid]; row == nil || row["CurrentTransactionStartOffset"] != fmt.Sprint(start) {
		t.Errorf("describe-producers: producer %s's transaction should start at the LSO %d: %v", pid, start, row)
	}

	if rows := table(t, hanging.stdout, "Topic"); len(rows) != 0 {
		t.Errorf("kafka-transactions find-hanging lists %v; the coordinator knows the transaction", rows)
	}
}

// recordOffsets are the offsets a consumer at iso receives from topic-0,
// as the dashboard reads them.
func (a *app) recordOffsets(topic, iso string) []int64 {
	a.t.Helper()
	out := []int64{}
	for from := int64(0); ; {
		var page struct {
			Records []struct {
				Offset int64 `json:"offset"`
			} `json:"records"`
		}
		a.do("GET", fmt.Sprintf("/api/topics/%s/partitions/0/records?isolation=%s&from=%d&limit=5000", topic, iso, from), nil, http.StatusOK, &page)
		if len(page.Records) == 0 {
			return out
		}
		for _, r := range page.Records {
			out = append(out, r.Offset)
		}
		from = page.Records[len(page.Records)-1].Offset + 1
	}
}

// head is the first few of offsets, for a message.
func head(offsets []int64) []int64 { return offsets[:min(len(offsets), 8)] }

// markers lists topic-0's markers as "COMMIT e3", in offset order, as the
// dashboard's log shows them.
func (a *app) markers(topic string) []string {
	a.t.Helper()
	var out []string
	for from := int64(0); ; {
		var page struct {
			HighWatermark int64 `json:"highWatermark"`
			Entries       []struct {
				Offset        int64  `json:"offset"`
				Kind          string `json:"kind"`
				Marker        string `json:"marker"`
				ProducerEpoch int16  `json:"producerEpoch"`
			} `json:"entries"`
		}
		a.do("GET", fmt.Sprintf("/api/topics/%s/partitions/0/log?from=%d&limit=5000", topic, from), nil, http.StatusOK, &page)
		for _, e := range page.Entries {
			if e.Kind == "control" {
				out = append(out, fmt.Sprintf("%s e%d", e.Marker, e.ProducerEpoch))
			}
		}
		if len(page.Entries) == 0 || page.Entries[len(page.Entries)-1].Offset+1 >= page.HighWatermark {
			return out
		}
		from = page.Entries[len(page.Entries)-1].Offset + 1
	}
}

var (
	commandRe = regexp.MustCompile(`<code data-testid="([a-z-]+-command)">(.*?)</code>`)
	wordRe    = regexp.MustCompile(`<span class="word">(.*?)</span>`)
)

// pageCommands are the kafka-transactions.sh command lines the page at
// path prints, by their test id, as the tool's arguments (the first word,
// the script's name, left out). A word holds an option and its value.
func (a *app) pageCommands(path string) map[string][][]string {
	a.t.Helper()
	status, body := a.request("GET", path, nil)
	if status != http.StatusOK {
		a.t.Fatalf("GET %s: %d", path, status)
	}
	out := map[string][][]string{}
	for _, m := range commandRe.FindAllStringSubmatch(string(body), -1) {
		var args []string
		for i, w := range wordRe.FindAllStringSubmatch(m[2], -1) {
			if i > 0 {
				args = append(args, strings.SplitN(html.UnescapeString(w[1]), " ", 2)...)
			}
		}
		out[m[1]] = append(out[m[1]], args)
	}
	return out
}
