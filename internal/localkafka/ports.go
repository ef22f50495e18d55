package localkafka

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowestPort is where the brokers' ports start. Below it lie the ports
// tests pick for brokers that must come back on the same port (e2e's
// outage tests use 12000-19999).
const lowestPort = 20000

// freePorts returns n distinct ports that nothing listens on at
// 127.0.0.1, chosen at random below the kernel's ephemeral range.
//
// Why not bind(0): a port from bind(0) is ephemeral, and between this
// check and the JVM's own bind any process asking for port 0 (a test's
// listener, an outgoing connection) may be handed the same port; that
// happened once to a parallel test. Ports below the ephemeral range are
// never handed out that way, so only a process choosing ports as we do
// could collide, and Start then tries once more with new ports.
func freePorts(n int) ([]int, error) {
	return freePortsIn(n, lowestPort, ephemeralLow()-1)
}

// freePortsIn returns n distinct free ports from [low, high], trying each
// port of the range at most once, in random order.
func freePortsIn(n, low, high int) ([]int, error) {
	if high < low {
		return nil, fmt.Errorf("no ports to pick from: %d-%d", low, high)
	}
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for _, i := range rand.Perm(high - low + 1) {
		port := low + i
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		held = append(held, l) // held until all are picked: no port twice
		ports = append(ports, port)
		if len(ports) == n {
			return ports, nil
		}
	}
	return nil, fmt.Errorf("only %d of %d ports free in %d-%d", len(ports), n, low, high)
}

// ephemeralLow is the first port of Linux's ephemeral range, or 32768
// (the usual default) where it cannot be read or starts so low that
// nothing would be left below it (then the retry in Start has to do).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	return parseEphemeralLow(string(b))
}

func parseEphemeralLow(s string) int {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= lowestPort {
		return 32768
	}
	return n
}
