package plugins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// TestNoWorkerOutlivesItsPlugin: a plugin killed for hanging, or closed, takes what it
// started with it (its process group): a worker it forked used to outlive it, one more at
// every restart.
func TestNoWorkerOutlivesItsPlugin(t *testing.T) {
	bin, sum := buildPlugin(t, "./plugins/testdata/faulty")
	for _, how := range []string{"hang check", "close"} {
		t.Run(how, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "worker.pid")
			c, err := New(context.Background(), Config{Name: "spawner", Command: bin, SHA256: sum, Env: []string{"FAULTY_PIDFILE=" + pidFile}})
			require.NoError(t, err)
			defer c.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { _, _ = c.Score(ctx, &engine.ScoreRequest{Lines: []string{"x"}, Goal: "spawn"}) }()
			var pid int
			require.Eventually(t, func() bool {
				b, err := os.ReadFile(pidFile)
				if err != nil || len(b) == 0 {
					return false
				}
				pid, err = strconv.Atoi(string(b))
				return err == nil
			}, 10*time.Second, 10*time.Millisecond, "the worker started")
			require.True(t, running(pid), "the worker runs while its plugin does")
			if how == "close" {
				require.NoError(t, c.Close())
			} else {
				cancel() // the call's context ends; the hung plugin is killed a second later
			}
			assert.Eventually(t, func() bool { return !running(pid) }, 10*time.Second, 20*time.Millisecond, "the worker ended with its plugin")
		})
	}
}

// running reports whether process pid exists and is not a zombie waiting for its parent.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	st := string(b)
	i := strings.LastIndexByte(st, ')')
	return i >= 0 && i+2 < len(st) && st[i+2] != 'Z'
}
