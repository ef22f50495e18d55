package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingSetup: the same missing setup skips a test normally and
// fails it under CI=true (checked in a child test process, whose CI the
// test sets).
func TestMissingSetup(t *testing.T) {
	if os.Getenv("OFFSETLAB_TESTENV_CHILD") == "1" {
		MissingSetup(t, "set %s", "SOMETHING")
		return
	}
	for _, ci := range []string{"", "true"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingSetup$", "-test.v")
		cmd.Env = append(os.Environ(), "OFFSETLAB_TESTENV_CHILD=1", "CI="+ci)
		out, err := cmd.CombinedOutput()
		switch {
		case ci == "" && (err != nil || !strings.Contains(string(out), "--- SKIP") || !strings.Contains(string(out), "set SOMETHING")):
			t.Errorf("without CI: %v\n%s; want a skip saying what to set", err, out)
		case ci == "true" && (err == nil || !strings.Contains(string(out), "--- FAIL") || !strings.Contains(string(out), "CI=true needs this setup: set SOMETHING")):
			t.Errorf("CI=true: %v\n%s; want a failure saying what to set", err, out)
		}
	}
}
