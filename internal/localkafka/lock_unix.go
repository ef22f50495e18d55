//go:build unix

package localkafka

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/offsetlab/offsetlab/internal/wait"
)

// lockFile takes an exclusive flock(2) on path, waiting until ctx ends;
// waiting is called once if another process holds it. The returned function releases it.
func lockFile(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing the file releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		if !told {
			waiting()
			told = true
		}
		if err := wait.Sleep(ctx, 200*time.Millisecond); err != nil {
			f.Close()
			return nil, err
		}
	}
}
