package localkafka

import "syscall"

// sysProcAttr puts a JVM in its own process group, so that a Ctrl-C in
// the server's terminal reaches the server (which then stops the brokers
// in order) and not the brokers directly, and has the kernel SIGKILL it
// when the server dies, however it dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
