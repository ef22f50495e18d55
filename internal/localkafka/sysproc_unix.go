//go:build unix && !linux

package localkafka

import "syscall"

// sysProcAttr puts a JVM in its own process group, so that a Ctrl-C in
// the server's terminal reaches the server (which then stops the brokers
// in order) and not the brokers directly. Only Linux has a parent-death
// signal: elsewhere a server killed with SIGKILL leaves its brokers
// running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
