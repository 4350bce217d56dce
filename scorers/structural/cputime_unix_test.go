//go:build unix

package structural

import (
	"syscall"
	"time"
)

// processCPU is the user and system CPU time the process has used so far, so benchmarks on
// a shared machine can report CPU per operation beside wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
