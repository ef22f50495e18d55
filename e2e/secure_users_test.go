package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetlab/offsetlab/internal/wait"
)

// limitedUser makes a SCRAM-SHA-512 user of the secure cluster in dir
// with exactly the ALLOW bindings grants returns for it (logged in as the
// admin, a super user), waits until the user logs in, and returns a copy
// of reader.properties that logs in as that user (0600, in a temporary
// directory).
func limitedUser(t *testing.T, dir, user string, grants func(principal string) []*kadm.ACLBuilder) string {
	t.Helper()
	adm := kadm.NewClient(secureClient(t, filepath.Join(dir, "admin.properties")))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pass := randomSuffix(t) + randomSuffix(t)
	altered, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: user, Mechanism: kadm.ScramSha512, Iterations: 4096, Password: pass}})
	if err == nil {
		err = altered.Error()
	}
	if err != nil {
		t.Fatalf("make user %s: %v", user, err)
	}
	for _, b := range grants("User:" + user) {
		results, err := adm.CreateACLs(ctx, b)
		if err == nil {
			for _, r := range results {
				if r.Err != nil {
					err = r.Err
				}
			}
		}
		if err != nil {
			t.Fatalf("grant %s: %v", user, err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "reader.properties"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "sasl.jaas.config=") {
			l = `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="` + user + `" password="` + pass + `";`
		}
		lines = append(lines, l)
	}
	file := filepath.Join(t.TempDir(), user+".properties")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	cl := secureClient(t, file)
	if err := wait.Until(ctx, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		return cl.Ping(ctx) == nil, nil
	}); err != nil {
		t.Fatalf("user %s does not log in: %v", user, err)
	}
	return file
}
