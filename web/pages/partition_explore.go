package pages

import (
	"strconv"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// jumpKinds are the Explore tab's jump rows, in order: the kinds of
// offset (inspect.JumpKind) a person hunts for in a long partition.
var jumpKinds = []string{
	string(inspect.JumpAborted),
	string(inspect.JumpOpen),
	string(inspect.JumpTombstone),
	string(inspect.JumpCommitMarker),
	string(inspect.JumpAbortMarker),
	string(inspect.JumpGap),
	string(inspect.JumpGapCompacted),
	string(inspect.JumpGapBeforeLogStart),
}

// downloadMaxOffsets bounds one JSON Lines download: the page reads the
// offsets with …/log (inspect.MaxLimit a request) and holds them in memory
// until the file is written, so it asks for at most this many (~6 MB of
// JSON at the log's 1 KiB cut of each value).
const downloadMaxOffsets = 20_000

// downloadMaxText is downloadMaxOffsets as the page writes a count.
var downloadMaxText = groupThousands(downloadMaxOffsets)

// maxQueryText is the longest search query the API takes, in bytes: the
// page refuses a longer one itself with the API's sentence (a query of
// megabytes would not even fit in a URL).
var maxQueryText = strconv.Itoa(inspect.MaxQueryBytes)

// groupThousands writes n with commas: 20,000.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
