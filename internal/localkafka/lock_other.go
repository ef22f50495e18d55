//go:build !unix

package localkafka

import "context"

// lockFile does not lock where flock(2) does not exist: one server
// downloads at a time there only if one server runs.
func lockFile(context.Context, string, func()) (unlock func(), err error) {
	return func() {}, nil
}
