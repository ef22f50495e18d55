//go:build !linux

package apicurio

import "syscall"

// sysProcAttr has nothing to set outside Linux, the one system with a
// parent-death signal: there a caller killed with SIGKILL leaves the JVM
// running.
func sysProcAttr() *syscall.SysProcAttr { return nil }
