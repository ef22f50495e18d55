package main

import (
	"bytes"
	"os"
	"reflect"
	"strings"
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

type innerFields struct {
	Name  string `json:"name"`
	Items []int  `json:"items"`
}

type outerFields struct {
	innerFields
	Items      []string `json:"items"`
	ProducerID int64    `json:"producerId,omitempty"`
	Hidden     string   `json:"-"`
}

// TestFieldsAsEncodingJSON: embedded fields inline, an outer field hiding
// an embedded one of the same JSON name, omitempty optional, producer ids
// number or string.
func TestFieldsAsEncodingJSON(t *testing.T) {
	g := &declarer{names: map[string]reflect.Type{}}
	ms, err := g.fields(reflect.TypeFor[outerFields](), 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range dominant(ms) {
		got = append(got, strings.TrimSpace(m.line))
	}
	want := []string{"name: string;", "items: string[] | null;", "producerId?: number | string;"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}
