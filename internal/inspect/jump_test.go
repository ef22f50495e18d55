package inspect

import (
	"errors"
	"testing"
)

var allJumpKinds = []JumpKind{JumpPlain, JumpCommitted, JumpAborted, JumpOpen, JumpMarker, JumpCommitMarker, JumpAbortMarker, JumpGap}

// expectedJump finds, in ReadLog's entries, the first offset of kind in
// [from, to) or the last; -1 when there is none.
func expectedJump(entries []Entry, kind JumpKind, from, to int64, backward bool) int64 {
	found := int64(-1)
	for i := range entries {
		e := &entries[i]
		if e.Offset < from || e.Offset >= to || !kind.matches(classOfEntry(e)) {
			continue
		}
		if !backward {
			return e.Offset
		}
		found = e.Offset
	}
	return found
}

// TestJumpMatchesReadLog checks next/previous jumps of every kind from
// several offsets against ReadLog's entries, on kfake and real Kafka.
func TestJumpMatchesReadLog(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			lso := f.mixed()
			hw := f.settle(lso).HighWatermark
			entries := f.walk(0, hw, MaxLimit)
			for _, k := range allJumpKinds {
				for _, at := range []int64{0, 7, lso - 1, lso, lso + 9, hw - 2, hw} {
					next, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: k, From: at + 1, To: -1})
					if err != nil {
						t.Fatal(err)
					}
					checkJump(t, k, "next after", at, next, expectedJump(entries, k, at+1, hw, false))
					prev, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: k, From: -1, To: at, Backward: true})
					if err != nil {
						t.Fatal(err)
					}
					checkJump(t, k, "previous before", at, prev, expectedJump(entries, k, 0, at, true))
				}
			}
		})
	}
}

func checkJump(t *testing.T, k JumpKind, what string, at int64, got *JumpResult, want int64) {
	t.Helper()
	switch {
	case got.Next != nil:
		t.Errorf("%s %s %d: budget ran out at %d", k, what, at, *got.Next)
	case want < 0 && got.Offset != nil:
		t.Errorf("%s %s %d: got %d, want none", k, what, at, *got.Offset)
	case want >= 0 && (got.Offset == nil || *got.Offset != want):
		t.Errorf("%s %s %d: got %v, want %d", k, what, at, got.Offset, want)
	}
}

// TestJumpBudget runs jumps with a budget of one fetch and follows Next:
// they end where an unbounded jump does.
func TestJumpBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", nil)
	p := f.producer("")
	for range 40 {
		f.send(p, values("v", 50)...)
	}
	tx := f.producer("tx")
	f.begin(tx)
	f.send(tx, "late")
	f.end(tx, false)
	hw := f.settle(-1).HighWatermark
	f.ins.FetchBytes = 4 << 10
	tests := []struct {
		kind     JumpKind
		backward bool
		want     int64 // -1: none
	}{
		{JumpAbortMarker, false, hw - 1},
		{JumpAborted, false, hw - 2},
		{JumpGap, false, -1},
		{JumpPlain, true, hw - 3},
		{JumpGap, true, -1},
	}
	for _, tt := range tests {
		req := JumpRequest{Kind: tt.kind, From: 0, To: -1, MaxBytes: 1, Backward: tt.backward}
		got, calls := int64(-1), 0
		for {
			calls++
			res, err := f.ins.Jump(testCtx(t), f.topic, 0, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Offset != nil {
				got = *res.Offset
				break
			}
			if res.Next == nil {
				break
			}
			if tt.backward {
				req.To = *res.Next
			} else {
				req.From = *res.Next
			}
		}
		if got != tt.want || calls < 2 && tt.want != hw-3 {
			t.Errorf("%s backward=%v: got %d after %d calls, want %d after several", tt.kind, tt.backward, got, calls, tt.want)
		}
	}
	if _, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: "sideways", From: -1, To: -1}); !errors.Is(err, ErrInvalidQuery) {
		t.Errorf("unknown kind: got %v, want ErrInvalidQuery", err)
	}
	res, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: JumpPlain, From: hw + 5, To: -1})
	if err != nil || res.Offset != nil || res.Next != nil {
		t.Errorf("jump past the high watermark: got %+v, %v; want nothing", res, err)
	}
}
