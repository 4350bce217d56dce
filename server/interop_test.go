package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInteropTypeScriptSDK drives pruner stdio and pruner serve's /mcp with the official
// TypeScript MCP SDK client (interop/, version pinned in package-lock.json): a client we did
// not write must list the tools, prune, recover and see the contract's error codes.
func TestInteropTypeScriptSDK(t *testing.T) {
	bin := pruner(t) // skips with -short
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found on PATH; the TypeScript SDK interop test needs Node.js 20+")
	}
	dir := filepath.Join(moduleRoot(t), "interop")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("npm not found on PATH and interop/node_modules is missing")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "npm ci in interop/:\n%s", out)
	}
	run := func(t *testing.T, args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		runErr := cmd.Run()
		var summary struct {
			OK     bool
			Tools  []string
			Checks []struct {
				Name   string
				OK     bool
				Detail any
			}
		}
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &summary), "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
		for _, c := range summary.Checks {
			assert.True(t, c.OK, "%s: %v", c.Name, c.Detail)
		}
		assert.GreaterOrEqual(t, len(summary.Checks), 14, "every check ran")
		assert.Equal(t, []string{"health", "prune_text", "recover_text"}, summary.Tools)
		assert.True(t, summary.OK)
		assert.NoError(t, runErr, "stderr: %s", stderr.String())
	}
	t.Run("stdio", func(t *testing.T) { run(t, "stdio", bin) })
	t.Run("streamable http", func(t *testing.T) {
		s := startServe(t, nil)
		run(t, "http", s.url+"/mcp")
	})
}
