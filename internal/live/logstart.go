package live

import "github.com/offsetlab/offsetlab/internal/inspect"

// LogStartMoves lists the times the story saw the partition's log start
// offset move up, oldest first: from each recorded pointer (or snapshot)
// to the next. A log that went backwards (the topic made again) starts
// over.
func (h History) LogStartMoves() []inspect.LogStartMove {
	var out []inspect.LogStartMove
	var last *inspect.Pointers
	for _, st := range h.Steps {
		if st.Pointers == nil {
			continue
		}
		p := *st.Pointers
		switch {
		case last == nil:
		case p.HighWatermark < last.HighWatermark:
			out = nil
		case p.LogStartOffset > last.LogStartOffset:
			out = append(out, inspect.LogStartMove{At: st.Time, From: last.LogStartOffset, To: p.LogStartOffset})
		}
		last = &p
	}
	return out
}

// MoveOf is the move of moves that deleted offset o, or nil.
func MoveOf(moves []inspect.LogStartMove, o int64) *inspect.LogStartMove {
	for i := len(moves) - 1; i >= 0; i-- {
		if m := moves[i]; m.From <= o && o < m.To {
			return &m
		}
	}
	return nil
}
