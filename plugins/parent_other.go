//go:build !linux

package plugins

import (
	"os"
	"syscall"
)

// dieWithParent exits when the parent process goes away (no parent-death signal here).
func dieWithParent() { watchParent(os.Getppid()) }

func hostProcAttr() *syscall.SysProcAttr { return nil }

// execPath is f's path: without /proc, the program is started by name again, and a file
// swapped on disk between the check and the start is not caught.
func execPath(f *os.File) string { return f.Name() }
