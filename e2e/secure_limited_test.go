package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSecureLimitedRights: users of the secure cluster short of one right
// see the rest of each page. Without DESCRIBE_CONFIGS the topic page draws
// every partition's strip and says, in the configurations' place, that
// user may not DESCRIBE_CONFIGS the topic; without READ too it says so
// where the open transactions are counted, and the transactions page
// lists the transactional ids while its producers section says why it is
// empty; the group page keeps a group's offsets and lag and says why
// its record lag is missing. /api/topics/{t} answers 200 with the reasons. In Chromium at
// 1280×720 and 1920×1080 the strips and both sentences are on show, and
// the maps' refusal (READ) is said once under the strips.
func TestSecureLimitedRights(t *testing.T) {
	t.Parallel()
	dir := startSecure(t)
	suffix := randomSuffix(t)
	topic, txid := "orders-"+suffix, "orders-app-"+suffix
	admin := filepath.Join(dir, "admin.properties")
	adm := kadm.NewClient(secureClient(t, admin))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	producer := secureClient(t, admin, kgo.TransactionalID(txid), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := producer.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := producer.ProduceSync(ctx, &kgo.Record{Value: []byte("O-1"), Partition: 1}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	noConfigs := limitedUser(t, dir, "noconfigs-"+suffix, func(p string) []*kadm.ACLBuilder {
		return []*kadm.ACLBuilder{
			kadm.NewACLs().Allow(p).AllowHosts("*").Topics("*").Operations(kadm.OpDescribe, kadm.OpRead),
			kadm.NewACLs().Allow(p).AllowHosts("*").TransactionalIDs("*").Operations(kadm.OpDescribe),
		}
	})
	describeOnly := limitedUser(t, dir, "describeonly-"+suffix, func(p string) []*kadm.ACLBuilder {
		return []*kadm.ACLBuilder{
			kadm.NewACLs().Allow(p).AllowHosts("*").Topics("*").Operations(kadm.OpDescribe),
			kadm.NewACLs().Allow(p).AllowHosts("*").TransactionalIDs("*").Operations(kadm.OpDescribe),
			kadm.NewACLs().Allow(p).AllowHosts("*").Groups("*").Operations(kadm.OpDescribe),
		}
	})
	// A group a step behind on partition 2 (two plain records): counting
	// its record lag needs READ on the topic.
	group := "orders-readers-" + suffix
	plain := secureClient(t, admin, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := plain.ProduceSync(ctx, &kgo.Record{Value: []byte("a"), Partition: 2}, &kgo.Record{Value: []byte("b"), Partition: 2}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: topic, Partition: 2, At: 1, LeaderEpoch: -1})
	if committed, err := adm.CommitOffsets(ctx, group, offsets); err != nil || committed.Error() != nil {
		t.Fatalf("commit: %v %v", err, committed.Error())
	}

	// Aborting another producer's transaction writes its markers with
	// WriteTxnMarkers, which Kafka authorizes as ALTER on the cluster (else
	// CLUSTER_ACTION), not as a write to the topic: a user who may write
	// the topic is told the right they lack.
	t.Run("abort without ALTER on the cluster", func(t *testing.T) {
		writer := limitedUser(t, dir, "writer-"+suffix, func(p string) []*kadm.ACLBuilder {
			return []*kadm.ACLBuilder{
				kadm.NewACLs().Allow(p).AllowHosts("*").Topics("*").Operations(kadm.OpDescribe, kadm.OpRead, kadm.OpWrite),
				kadm.NewACLs().Allow(p).AllowHosts("*").TransactionalIDs("*").Operations(kadm.OpDescribe),
			}
		})
		user := strings.TrimSuffix(filepath.Base(writer), ".properties")
		a := startServerProcess(t, "--data-dir", t.TempDir(), "--command-config", writer, "--allow-writes").app(suffix)
		status, body := a.request("POST", fmt.Sprintf("/api/topics/%s/partitions/1/transactions/0/abort", topic), nil)
		if status != http.StatusForbidden || !strings.Contains(string(body), "may not ALTER on cluster kafka-cluster") || !strings.Contains(string(body), user) {
			t.Errorf("abort as %s: %d %s; want 403 naming ALTER on cluster kafka-cluster", user, status, body)
		}
	})

	for _, tt := range []struct {
		name, file string
		// want are what the topic page must hold, lack what it must not.
		want, lack []string
		openUnread bool
	}{
		{"without DESCRIBE_CONFIGS", noConfigs,
			[]string{`data-testid="configs-problem"`, "may not DESCRIBE_CONFIGS on topic " + topic, `data-open="1"`},
			[]string{`data-testid="config-table"`, `data-testid="open-problem"`}, false},
		{"with DESCRIBE alone", describeOnly,
			[]string{`data-testid="configs-problem"`, `data-testid="open-problem"`, "may not READ on topic " + topic, `data-open="?"`},
			[]string{`data-testid="config-table"`}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			user := strings.TrimSuffix(filepath.Base(tt.file), ".properties")
			a := startServerProcess(t, "--data-dir", t.TempDir(), "--command-config", tt.file).app(suffix)
			status, body := a.request("GET", "/topics/"+topic, nil)
			if status != http.StatusOK {
				t.Fatalf("GET /topics/%s as %s: %d", topic, user, status)
			}
			page := string(body)
			if got := strings.Count(page, `data-testid="strip"`); got != 3 {
				t.Errorf("the topic page as %s draws %d strips, want 3", user, got)
			}
			for _, w := range append(tt.want, "user "+user) {
				if !strings.Contains(page, w) {
					t.Errorf("the topic page as %s lacks %s", user, w)
				}
			}
			for _, l := range tt.lack {
				if strings.Contains(page, l) {
					t.Errorf("the topic page as %s holds %s", user, l)
				}
			}
			var d struct {
				Partitions    []json.RawMessage `json:"partitions"`
				ConfigsUnread *struct {
					Code string `json:"code"`
				} `json:"configsUnread"`
				OpenUnread *struct {
					Code string `json:"code"`
				} `json:"openTransactionsUnread"`
			}
			a.do("GET", "/api/topics/"+topic, nil, http.StatusOK, &d)
			if len(d.Partitions) != 3 || d.ConfigsUnread == nil || d.ConfigsUnread.Code != "error.notAllowed" || (d.OpenUnread != nil) != tt.openUnread {
				t.Errorf("/api/topics/%s as %s: %d partitions, configs unread %+v, open unread %+v", topic, user, len(d.Partitions), d.ConfigsUnread, d.OpenUnread)
			}
			status, body = a.request("GET", "/transactions?topic="+topic, nil)
			txns := string(body)
			if status != http.StatusOK || !strings.Contains(txns, `data-id="`+txid+`"`) {
				t.Errorf("the transactions page as %s: %d, lists %s: %v", user, status, txid, strings.Contains(txns, txid))
			}
			if tt.openUnread && !strings.Contains(txns, "may not READ on topic "+topic) {
				t.Errorf("the transactions page as %s does not say why it cannot describe the producers", user)
			}
			if !tt.openUnread && !strings.Contains(txns, `data-testid="abort-item"`) {
				t.Errorf("the transactions page as %s does not show the open transaction's producer", user)
			}
			if tt.openUnread {
				// The group page keeps the committed offset and the offset
				// lag, and says why the record lag is missing.
				status, body := a.request("GET", "/groups/"+group, nil)
				page := string(body)
				if status != http.StatusOK || !strings.Contains(page, `data-committed="1" data-log-end="2" data-lag="1" data-record-lag="-1"`) || !strings.Contains(page, "may not READ on topic "+topic) {
					t.Errorf("the group page as %s: %d; want the offset row with lag 1 and the missing READ named", user, status)
				}
			}
			if testing.Short() {
				return
			}
			chromium := chromiumPath(t)
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				p := openPage(t, a, chromium, size[0], size[1])
				p.open("/topics/" + topic)
				visible := func(testID string) string {
					return fmt.Sprintf(`(() => { const e = document.querySelector('[data-testid=%q]'); if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })()`, testID)
				}
				p.wait("the strips at "+fmt.Sprint(size), `document.querySelectorAll('[data-testid="strip"]').length === 3 && `+visible("strips"), 10*time.Second)
				p.wait("the configurations' sentence", visible("configs-problem"), 5*time.Second)
				if tt.openUnread {
					p.wait("the open transactions' sentence", visible("open-problem"), 5*time.Second)
					// The maps need READ too: said once under the strips.
					p.wait("the maps' refusal", visible("strips-error")+` && document.querySelector('[data-testid="strips-error"]').dataset.denied === 'true'`, 10*time.Second)
					if got := p.text("strips-error"); !strings.Contains(got, "READ") {
						t.Errorf("at %v the maps' refusal reads %q", size, got)
					}
				}
				if got := p.text("configs-problem"); !strings.Contains(got, "DESCRIBE_CONFIGS") {
					t.Errorf("at %v the configurations' sentence reads %q", size, got)
				}
			}
		})
	}
}
