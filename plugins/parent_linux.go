package plugins

import (
	"os"
	"os/exec"
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
// The plugin also leads a process group of its own, so that what it starts (workers it
// forks, the commands a script runs) can be killed with it (killGroup).
func hostProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// killGroup kills what is left of the process group pgid, which a plugin led: called once the
// plugin itself is gone, it ends the processes it left behind. While any of them lives, the
// kernel does not give the number to another process, so the signal cannot reach a stranger.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// pinnedCommand starts the program f holds open, as the child's descriptor 3 (ExtraFiles),
// through /proc/self/fd/3, which the child resolves in its own descriptor table (fexecve).
// Descriptor 3 stays open across exec, so a script works too: the kernel hands its
// interpreter that path to read, and the host's own descriptor, which closes on exec, made
// every "#!" plugin fail to start.
func pinnedCommand(f *os.File, args ...string) *exec.Cmd {
	cmd := exec.Command(pinnedPath, args...)
	cmd.ExtraFiles = []*os.File{f}
	return cmd
}
