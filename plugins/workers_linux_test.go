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

// TestBackgroundCommandsOfAScriptDieWithIt: a script plugin's background command inherits the
// plugin's stdout and stderr, and go-plugin's Kill waits until every holder of those pipes has
// exited. The process group was killed only after Kill returned, so a crash held its call
// until the command ended, a close never returned, and the command outlived both. Each step
// here is bounded well under the command's 300 s.
func TestBackgroundCommandsOfAScriptDieWithIt(t *testing.T) {
	bin, _ := buildPlugin(t, "./plugins/testdata/faulty")
	for _, how := range []string{"crash", "close", "start fails"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "sleep.pid")
			script := filepath.Join(dir, "wrap.sh")
			run := "exec " + bin + " \"$@\"\n"
			if how == "start fails" {
				run = "sleep 300\n" // never speaks the handshake
			}
			require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nsleep 300 &\necho $! > "+pidFile+"\n"+run), 0o755))
			sum, err := FileSHA256(script)
			require.NoError(t, err)
			cfg := Config{Name: "wrapped", Command: script, SHA256: sum}
			if how == "start fails" {
				cfg.StartTimeout = 500 * time.Millisecond
			}
			c, err := New(context.Background(), cfg)
			require.NoError(t, err)
			defer c.Close()
			goal := "needle"
			if how == "crash" {
				goal = "crash"
			}
			var scoreErr error
			require.True(t, within(20*time.Second, func() {
				_, scoreErr = c.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"a needle"}, Goal: goal})
			}), "the call waited for the background command")
			if how == "close" {
				require.NoError(t, scoreErr)
			} else {
				require.Error(t, scoreErr)
			}
			b, err := os.ReadFile(pidFile)
			require.NoError(t, err)
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			require.NoError(t, err)
			if how == "close" {
				require.True(t, running(pid), "the command runs while its plugin does")
				require.True(t, within(20*time.Second, func() { _ = c.Close() }), "Close waited for the background command")
			}
			assert.Eventually(t, func() bool { return !running(pid) }, 10*time.Second, 20*time.Millisecond, "the command ended with its plugin")
		})
	}
}
