package plugins

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// dieWithParent asks the kernel to kill this process when its parent dies, so a plugin never
// outlives a host that was killed without a chance to clean up.
func dieWithParent() {
	ppid := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		watchParent(ppid)
		return
	}
	// The parent may have died before prctl took effect; we would then be re-parented.
	if os.Getppid() != ppid {
		os.Exit(1)
	}
}

// hostProcAttr makes the kernel kill the plugin when the host dies, before the plugin runs
// a single instruction: this covers plugins that do not use Serve.
func hostProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// execPath is the path that starts the program f holds open: /proc/self/fd/N, which the
// child resolves in its own copy of the descriptor table before exec closes it (fexecve).
func execPath(f *os.File) string { return fmt.Sprintf("/proc/self/fd/%d", f.Fd()) }
