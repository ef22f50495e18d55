package e2e

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSecureUnreadablePartition: on the secure real cluster, the dashboard
// connects as the reader, which an administrator denied one topic. The
// page must say so once, naming the right it lacks, instead of a blank log
// and "reconnecting…" for ever:
//   - denied READ only: the stream opens (the topic can be described) and
//     its problem message names the missing READ; the page says it;
//   - denied DESCRIBE and READ: the server refuses the websocket (403,
//     which the browser cannot see), so the page asks the log API why,
//     says "may not READ on topic …" and stops reconnecting.
func TestSecureUnreadablePartition(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	dir := startSecure(t)
	admin := secureClient(t, filepath.Join(dir, "admin.properties"))
	adm := kadm.NewClient(admin)
	suffix := randomSuffix(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	tests := []struct {
		name    string
		topic   string
		deny    []kadm.ACLOperation
		state   string // the stream status the page ends in
		because string // what the page's problem line must say: the right
		then    string // and what it means for the page
	}{
		{"no READ", "payments-" + suffix, []kadm.ACLOperation{kadm.OpRead}, "stale", "may not READ on topic payments-" + suffix, "shows none of its records"},
		{"no DESCRIBE, no READ", "ledger-" + suffix, []kadm.ACLOperation{kadm.OpRead, kadm.OpDescribe}, "refused", "may not READ on topic ledger-" + suffix, "stopped watching"},
	}
	for _, tt := range tests {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, tt.topic); err != nil {
			t.Fatal(err)
		}
		if err := admin.ProduceSync(ctx, &kgo.Record{Topic: tt.topic, Value: []byte("payment 1")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		b := kadm.NewACLs().Deny("User:reader").DenyHosts("*").Topics(tt.topic).ResourcePatternType(kadm.ACLPatternLiteral).Operations(tt.deny...)
		res, err := adm.CreateACLs(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				t.Fatalf("deny %v on %s: %v", tt.deny, tt.topic, r.Err)
			}
		}
	}

	reader := startServerProcess(t, "--data-dir", t.TempDir(), "--command-config", filepath.Join(dir, "reader.properties"))
	r := reader.app(suffix)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := openPage(t, r, chromium, 1280, 720)
			p.open("/topics/" + tt.topic + "/partitions/0")
			p.wait("the page to say why it cannot read "+tt.topic,
				`(() => { const b = byTestID('problem'); return !b.hidden && b.textContent.includes(`+strconv.Quote(tt.because)+`) && b.textContent.includes(`+strconv.Quote(tt.then)+`)
					&& byTestID('stream-status').dataset.state === `+strconv.Quote(tt.state)+`
					&& document.getElementById('log-frame').dataset.stale === 'true' })()`, 40*time.Second)
			var text string
			p.eval(`byTestID('problem').textContent`, &text)
			t.Logf("the page says: %s", text)
			p.checkConsole()
		})
	}
}
