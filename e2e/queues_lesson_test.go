package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// queuesNumbers are lesson 9's checks, in order, each run must hold on
// either broker: what Apache Kafka 4.3.1 showed (docs/lessons.md).
var queuesNumbers = []string{
	"created=2", "offsets=0, 1, 2, 3, 4, 5",
	"offsets=0, 1, 2, 3, 4, 5", "next=6",
	"configs=share.auto.offset.reset=earliest, share.record.lock.duration.ms=15000, share.delivery.count.limit=2",
	"held=0/1, 1/1, 2/1", "held=3/1, 4/1, 5/1", "held=none",
	"crashed=yes", "held=3/1, 4/1, 5/1",
	"held=3/2, 4/2, 5/2", "startOffset=3", "lag=3", "held=5/2", "held=none",
	"lag=0",
	"producerId=yes", "offsets=0", "ended=aborted", "offsets=2",
	"configs=share.auto.offset.reset=earliest, share.isolation.level=read_committed",
	"held=2/1", "held=none", "lag=0",
}

// TestQueuesLesson runs lesson 9 (share groups) through the lesson API on
// both brokers, step by step: every check holds with the numbers above,
// and afterwards the share state API agrees.
func TestQueuesLesson(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			st := a.runLesson("9", false)
			var got []string
			for _, s := range st.Steps {
				if s.Status != "done" {
					t.Errorf("%s: step %d %q: status %s (%s)", kind, s.Index+1, s.Title["en"], s.Status, s.Error)
				}
				for _, c := range s.Checks {
					got = append(got, c.Fact+"="+c.Expected)
					if !c.OK {
						t.Errorf("%s: step %d %q: %s: expected %q — observed %q\noutput:\n%s",
							kind, s.Index+1, s.Title["en"], c.Text["en"], c.Expected, c.Observed, strings.Join(s.Output, "\n"))
					}
					if c.Note != nil {
						t.Errorf("%s: a divergence note: %v", kind, c.Note)
					}
				}
			}
			if st.Status != "finished" || st.Passed != st.Check {
				t.Errorf("%s: status %s, %d of %d checks hold (%s)", kind, st.Status, st.Passed, st.Check, st.Error)
			}
			equal(t, fmt.Sprintf("%s: lesson 9 checks", kind), got, queuesNumbers)
			// The share state API: on jobs, nothing is left to deliver and
			// the poison record, where the window still shows it (Kafka
			// moves its start offset past it only with a later write),
			// is archived at the delivery limit; on payouts, payout 2 is
			// acknowledged or below the start offset.
			jobs := a.shareState(st.Names["jobs"], st.Names["workers"], 0)
			for _, r := range jobs.Records {
				if r.Offset != 5 || r.State != "archived" || r.Why != "deliveryLimit" || r.DeliveryCount != 2 {
					t.Errorf("%s: workers' share state on jobs: %+v; want only offset 5 archived at the delivery limit (2)", kind, r)
				}
			}
			if jobs.StartOffset < 5 {
				t.Errorf("%s: workers' SPSO %d, want 5 or more", kind, jobs.StartOffset)
			}
			payouts := a.shareState(st.Names["payouts"], st.Names["auditors"], 0)
			// The aborted payout at 0 and its ABORT marker at 1 reach no
			// read_committed consumer: archived, never delivered, where
			// the window still shows them (the embedded broker's start
			// offset has moved past them; Kafka's state topic keeps 0).
			for _, r := range payouts.Records {
				switch {
				case r.Offset == 2 && r.State != "acknowledged":
					t.Errorf("%s: auditors' share state on payouts: %+v, want offset 2 acknowledged", kind, r)
				case r.Offset < 2 && (r.State != "archived" || r.Why != "notDelivered"):
					t.Errorf("%s: auditors' share state on payouts: %+v, want offset %d archived, never delivered", kind, r, r.Offset)
				}
			}
		})
	}
}
