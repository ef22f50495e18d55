package apicurio

import "syscall"

// sysProcAttr puts the JVM in its own process group, so that a Ctrl-C in
// the caller's terminal reaches the caller (which then closes the
// registry) and not the JVM directly, and has the kernel SIGKILL it when
// the caller dies, however it dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
