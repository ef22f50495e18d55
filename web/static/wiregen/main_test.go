package main

import (
	"bytes"
	"os"
	"testing"
)

// TestWireUpToDate fails when types/wire.d.ts is not what the Go structs
// declare now: a Go field renamed without go generate ./... would else
// pass the page's type check against stale declarations.
func TestWireUpToDate(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../types/wire.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("web/static/types/wire.d.ts is stale: run go generate ./... and commit it")
	}
}

// TestUnionsFromConstants checks that the message types the server sends
// are read from internal/live's constants, problem among them.
func TestUnionsFromConstants(t *testing.T) {
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`| "problem"`, `| "snapshot"`, `| "warning"`, "type: MessageType;", "kind: EventKind;"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("wire.d.ts lacks %s", want)
		}
	}
}
