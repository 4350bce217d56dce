package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// faultText has enough lines for the engine to cut some with default-ish options.
var faultText = func() string {
	var b strings.Builder
	for i := range 60 {
		if i == 30 {
			b.WriteString("the needle is here\n")
			continue
		}
		fmt.Fprintf(&b, "filler line number %d\n", i)
	}
	return b.String()
}()

func pruneReq(scorer, goal string) *engine.Request {
	o := engine.DefaultOptions()
	o.MinKeepLines = 5
	o.TimeoutMS = 2000
	return &engine.Request{Text: faultText, GoalHint: goal, SourceType: engine.SourceCode, Options: o, Scorer: scorer}
}

// requireWorks asserts that the plugin answers a normal request through the engine.
func requireWorks(t *testing.T, e *engine.Engine) {
	t.Helper()
	res, err := e.Prune(context.Background(), pruneReq("p", "needle"))
	require.NoError(t, err)
	require.False(t, res.Stats.UsedFallback, "warnings %v", res.Warnings)
	assert.Contains(t, res.PrunedText, "the needle is here")
	assert.Less(t, res.Stats.KeptLines, res.Stats.OriginalLines)
}

func requireFailOpen(t *testing.T, res *engine.Result, warning string) {
	t.Helper()
	require.True(t, res.Stats.UsedFallback, "want a fail-open result")
	assert.Equal(t, []string{warning}, res.Warnings)
	assert.Equal(t, faultText, res.PrunedText, "fail-open returns the text unchanged")
}

func TestFaults(t *testing.T) {
	bin, sum := buildPlugin(t, "./plugins/testdata/faulty")
	tests := []struct {
		name      string
		goal      string
		timeoutMS int
		warning   string
		restart   bool // the process must be replaced
	}{
		{name: "killed mid-request", goal: "crash", warning: engine.WarnScorerError, restart: true},
		{name: "hang past the deadline", goal: "hang", timeoutMS: 300, warning: engine.WarnTimeout, restart: true},
		{name: "slow but honours cancellation", goal: "slow", timeoutMS: 100, warning: engine.WarnTimeout},
		{name: "NaN scores", goal: "nan", warning: engine.WarnScorerError},
		{name: "wrong number of scores", goal: "short", warning: engine.WarnScorerError},
		{name: "panic in the scorer", goal: "panic", warning: engine.WarnScorerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, Config{Name: "faulty", Command: bin, SHA256: sum, Start: StartEager, HangGrace: 300 * time.Millisecond})
			e := newEngine(t, map[string]engine.Scorer{"p": c})
			requireWorks(t, e)
			require.Equal(t, 1, c.Starts())

			req := pruneReq("p", tt.goal)
			if tt.timeoutMS > 0 {
				req.Options.TimeoutMS = tt.timeoutMS
			}
			res, err := e.Prune(context.Background(), req)
			require.NoError(t, err, "a plugin failure is never a failed request")
			requireFailOpen(t, res, tt.warning)

			if tt.timeoutMS > 0 {
				// The engine left the call at its deadline; the client's own return orders
				// its hang check before waitChecks. This call ends at its deadline, or
				// earlier when the first call's hang check (due at about the same moment:
				// deadline + HangGrace) kills the process under it; either way it fails.
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(tt.timeoutMS)*time.Millisecond)
				_, err := c.Score(ctx, &engine.ScoreRequest{Lines: []string{"x"}, Goal: tt.goal})
				cancel()
				if !errors.Is(err, ErrUnavailable) {
					require.ErrorIs(t, err, context.DeadlineExceeded)
				}
				c.waitChecks()
			}
			requireWorks(t, e)
			if tt.restart {
				assert.Equal(t, 2, c.Starts(), "the broken process is replaced")
			} else {
				assert.Equal(t, 1, c.Starts(), "a working process is kept")
			}
		})
	}
}

func TestRefusesBadBinaries(t *testing.T) {
	bin, sum := buildPlugin(t, "./plugins/testdata/faulty")
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{name: "wrong checksum", cfg: Config{Command: bin, SHA256: strings.Repeat("ab", 32)}, want: ErrChecksum},
		{name: "wrong handshake", cfg: Config{Command: bin, SHA256: sum, Args: []string{"handshake"}}, want: ErrStart},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Name = "bad"
			// Eager start refuses at start-up.
			eager := tt.cfg
			eager.Start = StartEager
			_, err := New(context.Background(), eager)
			require.ErrorIs(t, err, tt.want)

			// Lazy start fails open at use and keeps the server working.
			bad := newClient(t, tt.cfg)
			good := newClient(t, Config{Name: "good", Command: bin, SHA256: sum})
			e := newEngine(t, map[string]engine.Scorer{"bad": bad, "p": good})
			res, err := e.Prune(context.Background(), pruneReq("bad", "needle"))
			require.NoError(t, err)
			requireFailOpen(t, res, engine.WarnScorerError)
			_, err = bad.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"x"}})
			require.ErrorIs(t, err, tt.want, "the first failure is retried at once")
			_, err = bad.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"x"}})
			require.ErrorIs(t, err, ErrUnavailable, "repeated failures are backed off")
			requireWorks(t, e)
			assert.Zero(t, bad.Starts())
		})
	}
}

// TestScriptPlugins: a plugin may be a script ("#!"), pinned by the script's checksum; the
// host starts what it checked from an open descriptor, which the script's interpreter must
// be able to read too. A file that is not executable is refused under its own name.
func TestScriptPlugins(t *testing.T) {
	bin, _ := buildPlugin(t, "./plugins/testdata/faulty")
	dir := t.TempDir()
	script := filepath.Join(dir, "wrap.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nexec "+bin+" \"$@\"\n"), 0o755))
	sum, err := FileSHA256(script)
	require.NoError(t, err)
	c := newClient(t, Config{Name: "script", Command: script, SHA256: sum, Start: StartEager})
	resp, err := c.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"a needle", "b"}, Goal: "needle"})
	require.NoError(t, err)
	assert.Len(t, resp.Scores, 2)

	require.NoError(t, os.Chmod(script, 0o644))
	_, err = New(context.Background(), Config{Name: "script", Command: script, SHA256: sum, Start: StartEager})
	require.ErrorIs(t, err, ErrStart)
	assert.Contains(t, err.Error(), script+" is not an executable file")
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{name: "no command", cfg: Config{SHA256: strings.Repeat("0", 64)}},
		{name: "short checksum", cfg: Config{Command: "x", SHA256: "abcd"}},
		{name: "not hex", cfg: Config{Command: "x", SHA256: strings.Repeat("z", 64)}},
		{name: "bad start mode", cfg: Config{Command: "x", SHA256: strings.Repeat("0", 64), Start: "sometimes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(context.Background(), tt.cfg)
			assert.Error(t, err)
		})
	}
}

func TestBackoff(t *testing.T) {
	const ms = 1_000_000
	tests := []struct {
		name     string
		failures int
		want     int64
	}{
		{name: "first failure restarts at once", failures: 1, want: 0},
		{name: "second waits the minimum", failures: 2, want: 100 * ms},
		{name: "then doubles", failures: 4, want: 400 * ms},
		{name: "capped", failures: 40, want: 30_000 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, int64(backoff(tt.failures, 100*ms, 30_000*ms)))
		})
	}
}

func TestCloseKillsAndRefuses(t *testing.T) {
	bin, sum := buildPlugin(t, "./plugins/testdata/faulty")
	c, err := New(context.Background(), Config{Name: "f", Command: bin, SHA256: sum, Start: StartEager})
	require.NoError(t, err)
	p := c.proc
	require.NoError(t, c.Close())
	assert.True(t, p.pc.Exited(), "the process is gone after Close")
	_, err = c.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"x"}})
	assert.ErrorIs(t, err, ErrClosed)
	require.NoError(t, c.Close(), "Close twice")
}

// TestPluginOutputAndStartErrors: what a plugin prints once it serves reaches the host's log
// (go-plugin drops it by default), and a plugin that fails its handshake is reported by the
// operator's command, not by /proc/self/fd/3 with that descriptor's mode, which called a
// script that printed something else than its handshake "not executable".
func TestPluginOutputAndStartErrors(t *testing.T) {
	bin, sum := buildPlugin(t, "./plugins/testdata/faulty")
	var logs lockedBuffer
	c := newClient(t, Config{Name: "loud", Command: bin, SHA256: sum, Logs: &logs})
	_, err := c.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"x"}, Goal: "print"})
	require.NoError(t, err)
	assert.Eventually(t, func() bool {
		return strings.Contains(logs.String(), "plugin.loud stdout: faulty says hi\n") && strings.Contains(logs.String(), "plugin.loud stderr: faulty complains\n")
	}, 10*time.Second, 10*time.Millisecond, "%s", logs.String())

	script := filepath.Join(t.TempDir(), "hello.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho hello world\nsleep 1\n"), 0o755))
	ssum, err := FileSHA256(script)
	require.NoError(t, err)
	_, err = New(context.Background(), Config{Name: "hello", Command: script, SHA256: ssum, Start: StartEager, Logs: &logs})
	require.ErrorIs(t, err, ErrStart)
	assert.Contains(t, err.Error(), "hello world")
	assert.NotContains(t, err.Error(), pinnedPath)
	assert.NotContains(t, err.Error(), "Mode:")
	assert.NotContains(t, logs.String(), pinnedPath, "go-plugin's log lines name the command")
}
