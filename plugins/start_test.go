//go:build unix

package plugins

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// gatedStart starts a lazy probe client whose start stays in progress (inside the plugin's
// Describe) until the returned release is called.
func gatedStart(t *testing.T) (c *Client, release func(), pid int) {
	t.Helper()
	bin, sum := buildPlugin(t, "./plugins/testdata/probe")
	gate := filepath.Join(t.TempDir(), "gate")
	release = func() { _ = os.WriteFile(gate, nil, 0o600) }
	c = newClient(t, Config{Name: "p", Command: bin, SHA256: sum, Env: []string{"PROBE_GATE=" + gate}})
	t.Cleanup(release) // cleanups run last-in first-out: this one runs before Close
	// Only starts the process; the error does not matter.
	go func() { _, _ = c.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"a"}}) }()
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(gate + ".entered")
		pid, _ = strconv.Atoi(string(b))
		return err == nil && pid > 0
	}, 10*time.Second, 5*time.Millisecond, "the plugin never reached Describe")
	return c, release, pid
}

// within runs f and reports whether it returned within d.
func within(d time.Duration, f func()) bool {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func TestDescribeDoesNotWaitForStart(t *testing.T) {
	c, release, _ := gatedStart(t)
	var info engine.ScorerInfo
	require.True(t, within(2*time.Second, func() { info = c.Describe() }), "Describe waited for the start")
	assert.Equal(t, "p", info.Name, "before the first start, the configured name")
	assert.Equal(t, engine.DefaultThreshold, info.Threshold)

	release()
	require.Eventually(t, func() bool { return c.Starts() == 1 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, 0.4, c.Describe().Threshold, "after the start, what the plugin said")
}

func TestScoreGivesUpOnStartAtDeadline(t *testing.T) {
	c, release, _ := gatedStart(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var err error
	require.True(t, within(2*time.Second, func() { _, err = c.Score(ctx, &engine.ScoreRequest{Lines: []string{"a"}}) }),
		"Score waited for the start past its deadline")
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	release()
	_, err = c.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"a"}})
	require.NoError(t, err, "the start the caller gave up on serves the next call")
	assert.Equal(t, 1, c.Starts())
}

func TestCloseDuringStartLeavesNoProcess(t *testing.T) {
	c, release, pid := gatedStart(t)
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	release()
	require.NoError(t, <-closed)
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the process started during Close is gone")
	_, err := c.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"a"}})
	assert.ErrorIs(t, err, ErrClosed)
	assert.Zero(t, c.Starts())
}
