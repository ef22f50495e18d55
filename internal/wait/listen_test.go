package wait

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
)

func TestListen(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()

	ln, err := Listen(context.Background(), taken.Addr().String())
	if err == nil {
		ln.Close()
		t.Fatalf("Listen on a taken address succeeded")
	}
	if !errors.Is(err, ErrAddressInUse) || !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("Listen on a taken address: %v, want ErrAddressInUse and EADDRINUSE", err)
	}

	// Freed while Listen retries: it binds.
	addr := taken.Addr().String()
	freed := make(chan struct{})
	go func() {
		defer close(freed)
		ln, err = Listen(context.Background(), addr)
	}()
	taken.Close()
	<-freed
	if err != nil {
		t.Fatalf("Listen after the address was freed: %v", err)
	}
	ln.Close()

	if _, err := Listen(context.Background(), "127.0.0.1:not-a-port"); err == nil || errors.Is(err, ErrAddressInUse) {
		t.Errorf("Listen on a bad address: %v, want the parse error", err)
	}
}
