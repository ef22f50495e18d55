package wait

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"
)

// ListenRetry is how long Listen keeps trying an address that is in use.
// A server killed a moment ago (kill -9) can hold its ports while the
// kernel tears the process down; past this it is another program.
const ListenRetry = 2 * time.Second

// ErrAddressInUse is what Listen's error wraps when another program still
// held the address after ListenRetry.
var ErrAddressInUse = errors.New("the address is in use by another program (is another Offset Lab still running?)")

// Listen binds a TCP listener on addr. While the address is in use it
// tries again every 50 ms for up to ListenRetry (or until ctx ends), then
// fails with an error that wraps ErrAddressInUse and syscall.EADDRINUSE.
// Any other failure (a bad address, no permission) is returned at once.
// The caller closes the listener.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	ctx, cancel := context.WithTimeout(ctx, ListenRetry)
	defer cancel()
	var ln net.Listener
	err := Until(ctx, 50*time.Millisecond, func(context.Context) (bool, error) {
		var err error
		if ln, err = net.Listen("tcp", addr); errors.Is(err, syscall.EADDRINUSE) {
			return false, nil
		}
		return true, err
	})
	if ln != nil {
		return ln, nil
	}
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return nil, addressInUse{}
	}
	return nil, err
}

// addressInUse reads as ErrAddressInUse and is both it and EADDRINUSE.
type addressInUse struct{}

func (addressInUse) Error() string   { return ErrAddressInUse.Error() }
func (addressInUse) Unwrap() []error { return []error{ErrAddressInUse, syscall.EADDRINUSE} }
