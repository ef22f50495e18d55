package exercises

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/live"
)

// TestEvidenceNamesProducers: the evidence names a student's producers as
// their partition page does (P1, P2 … in the order they first wrote),
// beside the producer id — before anyone watches the partition and while
// its page's live feed runs.
func TestEvidenceNamesProducers(t *testing.T) {
	cr := newClassroom(t)
	ex, _ := Find("idempotent")
	s := cr.join(t, "names")
	n := ex.NamesFor(s.Name)
	produce(t, client(t, s), n.Topic, "r0")
	produce(t, client(t, s), n.Topic, "r1", "r2", "r3", "r4")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := cr.lab.Log(ctx, n.Topic, 0, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	first, second := log.Entries[0].ProducerID, log.Entries[1].ProducerID
	if first < 0 || first == second {
		t.Fatalf("producer ids %d and %d: want two idempotent producers", first, second)
	}
	named := func(r Result) map[string]string {
		out := map[string]string{}
		for _, c := range r.Checks {
			if c.Evidence.ProducerID != nil {
				out[c.Key] = itoa(*c.Evidence.ProducerID) + "=" + c.Evidence.ProducerAlias
			}
		}
		return out
	}
	// The producer id check shows the last record's producer, who wrote
	// second (P2); the sequences check the first one's (P1), too few.
	want := map[string]string{"producerId": itoa(second) + "=P2", "sequences": itoa(first) + "=P1"}
	before := named(gradeUntil(t, cr.lab, ex, s.Name, "producerId=ok sequences=tooFew noDuplicate=ok"))
	if before["producerId"] != want["producerId"] || before["sequences"] != want["sequences"] {
		t.Errorf("with nobody watching, the evidence names %v, want %v", before, want)
	}

	// The partition page's own table, from its live feed.
	sub, err := cr.lab.Watch(ctx, n.Topic, 0, live.Viewer{Teacher: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	page := map[int64]string{}
	for len(page) < 2 {
		select {
		case raw, ok := <-sub.C:
			if !ok {
				t.Fatal("the feed closed")
			}
			var m live.Message
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Producers {
				page[p.ProducerID] = p.Alias
			}
		case <-ctx.Done():
			t.Fatalf("the page's table names only %v", page)
		}
	}
	if page[second] != "P2" || page[first] != "P1" {
		t.Fatalf("the page names %v, want %d=P1 %d=P2", page, first, second)
	}
	watched := named(Grade(ctx, cr.lab, ex, s.Name, 0))
	if watched["producerId"] != itoa(second)+"="+page[second] || watched["sequences"] != itoa(first)+"="+page[first] {
		t.Errorf("while the page watches, the evidence names %v, want the page's %v", watched, page)
	}
}
