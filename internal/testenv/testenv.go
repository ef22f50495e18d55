// Package testenv holds the rules every test suite that needs a setup
// follows (real Apache Kafka, Python with confluent-kafka, three brokers,
// Chromium).
//
// Without its setup a suite skips with a sentence saying how to provide
// it — except under CI=true, where a missing setup is a failure, so that
// CI never passes by running nothing (MissingSetup).
//
// `go test -short ./...` is the everyday loop: a test that starts a
// browser, a JVM (Apache Kafka, its Java tools, or a test against a
// running Kafka) or Python calls Needs before it does, and skips under
// -short; so does a test too long for the loop (Long). A source scan
// (TestHeavySetupsAreGated) fails when a test reaches one of these setups
// without the call. It is imported by tests only.
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

// Heavy is a setup the fast loop (`go test -short`) never starts.
type Heavy int

const (
	// Browser is a headless Chromium driven over the DevTools protocol.
	Browser Heavy = iota + 1
	// JVM is Apache Kafka (started by the test or already running),
	// Kafka's Java tools, or Apicurio Registry.
	JVM
	// Python is a Python interpreter (confluent-kafka).
	Python
)

// String says what the setup is, for the skip's sentence.
func (h Heavy) String() string {
	switch h {
	case Browser:
		return "a browser (Chromium)"
	case JVM:
		return "a JVM (Apache Kafka, its Java tools or Apicurio Registry)"
	case Python:
		return "Python (confluent-kafka)"
	}
	return "an unknown setup"
}

// Needs skips the test under `go test -short`, because it starts h. Call
// it before starting anything, in the helper that finds the setup.
func Needs(t testing.TB, h Heavy) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: this test needs %s; run without -short (scripts/test.sh runs everything)", h)
	}
}

// May reports whether a test may start h when it is there: false under
// `go test -short`. For a test that only adds a check with h and runs
// without it. Every heavy setup is off under -short alike; h names the
// one the check starts, for the reader and for TestHeavySetupsAreGated.
func May(h Heavy) bool { return h != 0 && !testing.Short() }

// Long skips the test under `go test -short` because it takes too long
// for the everyday loop; why says what makes it long.
func Long(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s; run without -short (scripts/test.sh runs everything)", why)
	}
}
