// Package testenv holds the one rule every test suite that needs a setup
// follows (real Apache Kafka, Python with confluent-kafka, three brokers,
// Chromium): without its setup the suite skips with a sentence saying how
// to provide it — except under CI=true, where a missing setup is a
// failure, so that CI never passes by running nothing. It is imported by
// tests only.
package testenv

import (
	"os"
	"testing"
)

// CI reports whether the tests run under CI=true, where every suite must
// run.
func CI() bool { return os.Getenv("CI") == "true" }

// MissingSetup ends the test because its setup is missing: it skips with
// the sentence format and args give (say what to set), or fails with it
// under CI=true.
func MissingSetup(t testing.TB, format string, args ...any) {
	t.Helper()
	if CI() {
		t.Fatalf("CI=true needs this setup: "+format, args...)
	}
	t.Skipf(format, args...)
}
