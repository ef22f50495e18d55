package e2e

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// TestSecureCommandsAsPrinted runs the commands the transactions page
// prints, exactly as printed (a shell line, kafka-transactions.sh a
// script over Apache Kafka 4.3.1's jars), against the secure cluster while
// a transaction is open. As the reader, every command carries
// --command-config with the reader's file; describe-producers runs and
// lists the open transaction; the page says the reader lacks WRITE on the
// transactional id and ALTER on the cluster, and forceTerminateTransaction
// and abort fail with exactly those refusals; the group page's
// kafka-consumer-groups.sh --describe runs as printed. As the admin the page says
// the rights are held and forceTerminateTransaction, as printed, aborts
// the transaction. Off the lab, the partition page's Inspect tab (in
// Chromium at 1280×720 and 1920×1080) asks about the transaction that
// holds the LSO and the group committed on the partition, not the lab's
// order-totals-app and totals-tx, and its Brokers box offers no docker
// compose command.
func TestSecureCommandsAsPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a JVM: not with -short")
	}
	t.Parallel()
	tools := requireJavaTools(t)
	dir := startSecure(t)
	suffix := randomSuffix(t)
	topic, txid := "payments-"+suffix, "payments-app-"+suffix
	admin := filepath.Join(dir, "admin.properties")
	adm := kadm.NewClient(secureClient(t, admin))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	producer := secureClient(t, admin, kgo.TransactionalID(txid), kgo.DefaultProduceTopic(topic))
	if err := producer.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := producer.ProduceSync(ctx, kgo.StringRecord("held")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	group := "payments-readers-" + suffix
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: topic, Partition: 0, At: 0, LeaderEpoch: -1})
	if committed, err := adm.CommitOffsets(ctx, group, offsets); err != nil || committed.Error() != nil {
		t.Fatalf("commit %s's offset: %v %v", group, err, committed.Error())
	}
	bin := toolScripts(t, tools)

	reader := filepath.Join(dir, "reader.properties")
	r := startServerProcess(t, "--data-dir", t.TempDir(), "--command-config", reader).app(suffix)
	page := printedCommands(t, r, "/transactions?topic="+topic)
	for _, id := range []string{"describe-command", "find-hanging-command", "terminate-command", "abort-command"} {
		if !strings.Contains(page.commands[id], "--command-config "+reader) {
			t.Errorf("the reader's %s lacks --command-config %s: %q", id, reader, page.commands[id])
		}
	}
	for id, want := range map[string]string{"terminate-right": "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "abort-right": "CLUSTER_AUTHORIZATION_FAILED"} {
		if !page.denied[id] || !strings.Contains(page.rights[id], want) || !strings.Contains(page.rights[id], "reader") {
			t.Errorf("the reader's page under %s: denied %v, %q; want denied naming reader and %s", id, page.denied[id], page.rights[id], want)
		}
	}
	if page.denied["describe-right"] || !strings.Contains(page.rights["describe-right"], "READ on topic "+topic) {
		t.Errorf("describe-producers' right: %q", page.rights["describe-right"])
	}

	described := runPrinted(t, bin, page.commands["describe-command"])
	if rows := table(t, described.out, "ProducerId"); described.err != nil || len(rows) != 1 || rows[0]["CurrentTransactionStartOffset"] != "0" {
		t.Errorf("describe-producers as printed for the reader: %v\n%s", described.err, described.out)
	}
	terminated := runPrinted(t, bin, page.commands["terminate-command"])
	if terminated.err == nil || !strings.Contains(terminated.out, "transactional ID authorization failure") {
		t.Errorf("forceTerminateTransaction as the reader: %v\n%s; want a transactional ID authorization failure, as the page says", terminated.err, terminated.out)
	}
	aborted := runPrinted(t, bin, page.commands["abort-command"])
	if aborted.err == nil || !strings.Contains(aborted.out, "cluster authorization") {
		t.Errorf("abort as the reader: %v\n%s; want a cluster authorization failure, as the page says", aborted.err, aborted.out)
	}

	groupPage := printedCommands(t, r, "/groups/"+group)
	if line := groupPage.commands["group-describe-command"]; !strings.Contains(line, "--command-config "+reader) {
		t.Errorf("the group page's command lacks --command-config %s: %q", reader, line)
	}
	if run := runPrinted(t, bin, groupPage.commands["group-describe-command"]); run.err != nil || !strings.Contains(run.out, topic) {
		t.Errorf("kafka-consumer-groups.sh as printed for the reader: %v\n%s", run.err, run.out)
	}

	inspectFollows(t, r, topic, txid, group)

	a := startServerProcess(t, "--data-dir", t.TempDir(), "--command-config", admin).app(suffix)
	page = printedCommands(t, a, "/transactions?topic="+topic)
	if page.denied["terminate-right"] || !strings.Contains(page.rights["terminate-right"], "WRITE on transactional-id "+txid) {
		t.Errorf("the admin's page under forceTerminateTransaction: denied %v, %q", page.denied["terminate-right"], page.rights["terminate-right"])
	}
	if run := runPrinted(t, bin, page.commands["terminate-command"]); run.err != nil {
		t.Fatalf("forceTerminateTransaction as printed for the admin: %v\n%s", run.err, run.out)
	}
	if err := wait.Until(ctx, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		l := a.log(topic)
		return l.LastStableOffset == 2 && l.HighWatermark == 2, nil
	}); err != nil {
		t.Errorf("after forceTerminateTransaction the LSO does not reach the high watermark past the ABORT marker: %+v", a.log(topic))
	}
}

// pagePrint is what a page prints: each command as its text, and each
// right's sentence and whether it says the dashboard's user lacks it.
type pagePrint struct {
	commands, rights map[string]string
	denied           map[string]bool
}

var (
	rightRe = regexp.MustCompile(`<p class="command-right[^"]*" data-testid="([a-z-]+-right)" data-denied="(true|false)">(.*?)</p>`)
	tagRe   = regexp.MustCompile(`<[^>]+>`)
)

// printedCommands reads the commands and rights the page at path prints.
func printedCommands(t *testing.T, a *app, path string) pagePrint {
	t.Helper()
	status, body := a.request("GET", path, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d", path, status)
	}
	p := pagePrint{commands: map[string]string{}, rights: map[string]string{}, denied: map[string]bool{}}
	for _, m := range commandRe.FindAllStringSubmatch(string(body), -1) {
		p.commands[m[1]] = html.UnescapeString(tagRe.ReplaceAllString(m[2], ""))
	}
	for _, m := range rightRe.FindAllStringSubmatch(string(body), -1) {
		p.rights[m[1]] = html.UnescapeString(tagRe.ReplaceAllString(m[3], ""))
		p.denied[m[1]] = m[2] == "true"
	}
	return p
}

// toolScripts writes kafka-transactions.sh (and its siblings as needed)
// into a directory for PATH: a script running the tool's class from the
// Kafka jars, as the distribution's bin/ does.
func toolScripts(t *testing.T, tools javaTools) string {
	t.Helper()
	bin := t.TempDir()
	for name, class := range map[string]string{"kafka-transactions.sh": transactionsTool, "kafka-consumer-groups.sh": groupCommand, "kafka-topics.sh": topicCommand} {
		script := "#!/bin/sh\nexec " + tools.java + " " + strings.Join(jvmFlags, " ") + " -cp '" + tools.classpath + "' " + class + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// printedRun is a printed command's combined output and exit.
type printedRun struct {
	out string
	err error
}

// runPrinted runs line in a shell, as a reader pastes it, with the tool
// scripts of bin first on PATH.
func runPrinted(t *testing.T, bin, line string) printedRun {
	t.Helper()
	if line == "" {
		t.Fatal("no command printed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	t.Logf("$ %s (Kafka %s)\n%s", line, localkafka.KafkaVersion, out)
	return printedRun{out: string(out), err: err}
}

// inspectFollows opens topic's partition 0 in Chromium at both sizes and
// checks that the Inspect tab follows it: the coordinator box shows txid
// Ongoing, the group box group, the Brokers box no docker compose.
func inspectFollows(t *testing.T, a *app, topic, txid, group string) {
	t.Helper()
	chromium := chromiumPath(t)
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		p := openPage(t, a, chromium, size[0], size[1])
		p.open("/topics/" + topic + "/partitions/0")
		p.openTabOf("coord-id")
		value := func(id string) string {
			return fmt.Sprintf(`document.querySelector('[data-testid=%q]').value`, id)
		}
		p.wait("the coordinator box on the LSO's holder", value("coord-id")+` === `+strconv.Quote(txid)+` && document.querySelector('[data-testid="coord-state"]').dataset.state === 'Ongoing'`, 30*time.Second)
		p.wait("the group box on the partition's group", value("group-id")+` === `+strconv.Quote(group)+` && document.querySelector('[data-testid="group-offsets"] tr') !== null`, 30*time.Second)
		p.wait("the brokers box's hint", `!document.querySelector('[data-testid="brokers-hint"]').hidden`, 10*time.Second)
		if hint := p.text("brokers-hint"); strings.Contains(hint, "docker compose") || hint == "" {
			t.Errorf("at %v the Brokers box off the lab says %q", size, hint)
		}
	}
}
