//go:build !unix

package main

import (
	"os"
	"syscall"
)

// detached: no sessions here; the supervisor just runs in the background.
func detached() *syscall.SysProcAttr { return nil }

// processAlive reports whether process pid exists, as far as this system
// can tell.
func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
