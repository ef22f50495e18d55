//go:build unix

package main

import (
	"errors"
	"syscall"
)

// detached puts the supervisor in a session of its own: a terminal's
// Ctrl-C or hang-up does not reach it, and it outlives start.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// processAlive reports whether process pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
