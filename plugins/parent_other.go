//go:build !linux

package plugins

import (
	"os"
	"os/exec"
	"syscall"
)

// dieWithParent exits when the parent process goes away (no parent-death signal here).
func dieWithParent() { watchParent(os.Getppid()) }

func hostProcAttr() *syscall.SysProcAttr { return nil }

// killGroup does nothing here: plugins are not started in a process group of their own.
func killGroup(int) {}

// pinnedCommand starts f's path: without /proc, the program is started by name again, and a
// file swapped on disk between the check and the start is not caught.
func pinnedCommand(f *os.File, args ...string) *exec.Cmd { return exec.Command(f.Name(), args...) }
