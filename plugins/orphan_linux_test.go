package plugins

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A host killed without any chance to clean up takes its plugin with it.
func TestNoOrphanWhenHostIsKilled(t *testing.T) {
	plugin, sum := buildPlugin(t, "./plugins/testdata/faulty")
	host, _ := buildPlugin(t, "./plugins/testdata/host")
	cmd := exec.Command(host, plugin, sum)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err)
	require.Positive(t, pid)

	// Watch the plugin through a pidfd: readable once the process has exited.
	fd, err := unix.PidfdOpen(pid, 0)
	require.NoError(t, err, "plugin %d not running", pid)
	defer unix.Close(fd)

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 10_000)
	require.NoError(t, err)
	require.Equal(t, 1, n, "plugin %d still running 10 s after its host was killed", pid)
}
