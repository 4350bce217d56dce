//go:build !linux

package plugins

import (
	"os"
	"syscall"
)

// dieWithParent exits when the parent process goes away (no parent-death signal here).
func dieWithParent() { watchParent(os.Getppid()) }

func hostProcAttr() *syscall.SysProcAttr { return nil }
