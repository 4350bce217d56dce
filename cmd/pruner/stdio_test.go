package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdioAnswersEveryCallAtEndOfInput is `pruner stdio < requests.jsonl`: stdin ends right
// after the last request, and every call still gets its answer on stdout.
func TestStdioAnswersEveryCallAtEndOfInput(t *testing.T) {
	src, err := os.ReadFile(sampleSource(t))
	require.NoError(t, err)
	args, err := json.Marshal(map[string]any{
		"text": string(src), "goal_hint": "parseHeader splits the header line", "source_type": "code", "path": "sample.go",
		"options": map[string]any{"max_prune_ratio": 0.8, "min_keep_lines": 5, "timeout_ms": 5000, "annotate_lines": false, "include_markers": true},
	})
	require.NoError(t, err)
	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"prune_text","arguments":` + string(args) + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n"
	code, stdout, stderr := runCLI(t, requests, "stdio", "--log-level", "error")
	require.Equal(t, 0, code, stderr)

	answers := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var a struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &a), line)
		require.Empty(t, string(a.Error), line)
		answers[a.ID] = string(a.Result)
	}
	require.Len(t, answers, 3, "every call is answered before the server exits:\n%s", stdout)
	assert.Contains(t, answers[2], "func parseHeader(line string)", "the prune's answer keeps the function the goal names")
	assert.Contains(t, answers[3], `"prune_text"`)
}

func TestStdioShutdownTimeoutMustBePositive(t *testing.T) {
	code, _, stderr := runCLI(t, "", "stdio", "--shutdown-timeout", "0s")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--shutdown-timeout must be positive")
}

func TestServeReadTimeoutMustBePositive(t *testing.T) {
	code, _, stderr := runCLI(t, "", "serve", "--port", "0", "--read-timeout", "0s")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--read-timeout must be positive")
}

func TestServeMaxSessionsMustBePositive(t *testing.T) {
	code, _, stderr := runCLI(t, "", "serve", "--port", "0", "--max-sessions", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--max-sessions must be >= 1")
	t.Setenv("MCP_PRUNER_MAX_SESSIONS", "-3")
	// --read-timeout 0s stops the server from starting should the variable go unchecked.
	code, _, stderr = runCLI(t, "", "serve", "--port", "0", "--read-timeout", "0s")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "MCP_PRUNER_MAX_SESSIONS")
}

// TestServeZeroMeansDefaultInFlagAndVariable: 0 is the default of --max-concurrent-prunes
// (the adaptive bound) and --max-body-bytes (6 x max-input-chars + 1 MiB), and their variables
// take it too; a negative value is refused by either, with what 0 means. (--read-timeout 0s
// stops the server from starting once the values pass.)
func TestServeZeroMeansDefaultInFlagAndVariable(t *testing.T) {
	for _, v := range []struct{ flag, env string }{
		{"--max-concurrent-prunes", "MCP_PRUNER_MAX_CONCURRENT_PRUNES"},
		{"--max-body-bytes", "MCP_PRUNER_MAX_BODY_BYTES"},
	} {
		t.Run(v.env, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", "serve", "--port", "0", v.flag, "0", "--read-timeout", "0s")
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, "--read-timeout must be positive", "the flag takes 0")
			code, _, stderr = runCLI(t, "", "serve", "--port", "0", v.flag, "-1", "--read-timeout", "0s")
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, v.flag+" must be >= 0 (0: the")
			t.Setenv(v.env, "0")
			code, _, stderr = runCLI(t, "", "serve", "--port", "0", "--read-timeout", "0s")
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, "--read-timeout must be positive", "the variable takes 0 too")
			t.Setenv(v.env, "-1")
			code, _, stderr = runCLI(t, "", "serve", "--port", "0", "--read-timeout", "0s")
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, v.env+`="-1": want an integer >= 0 (0: the`)
		})
	}
}

// TestServerRequestsCannotPickWhatItLoads: a request's scorer may be any registered scorer,
// but an onnx:DIR or swepruner:URL only when the operator allowed it (--allow-scorers or
// --scorer); otherwise the call is refused as a bad "scorer" and nothing is opened or called.
func TestServerRequestsCannotPickWhatItLoads(t *testing.T) {
	dir := t.TempDir() // no model.json: a factory that ran would say so
	call := func(id int, scorer string) string {
		args, err := json.Marshal(map[string]any{
			"text": "a\nb\n", "goal_hint": "b", "source_type": "logs", "scorer": scorer,
			"options": map[string]any{"max_prune_ratio": 0.5, "min_keep_lines": 1, "timeout_ms": 5000, "annotate_lines": false, "include_markers": true},
		})
		require.NoError(t, err)
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"prune_text","arguments":%s}}`, id, args)
	}
	session := func(calls ...string) string {
		return strings.Join(append([]string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		}, calls...), "\n") + "\n"
	}
	answers := func(stdout string) map[int]string {
		out := map[int]string{}
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var a struct {
				ID int `json:"id"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &a), line)
			out[a.ID] = line
		}
		return out
	}

	code, stdout, stderr := runCLI(t, session(call(2, "onnx:"+dir), call(3, "swepruner:http://127.0.0.1:9/steal"), call(4, "heuristic")),
		"stdio", "--log-level", "error")
	require.Equal(t, 0, code, stderr)
	got := answers(stdout)
	for _, id := range []int{2, 3} {
		assert.Contains(t, got[id], `"code":-32602`, "refused as a bad argument")
		assert.Contains(t, got[id], `"field":"scorer"`)
		assert.Contains(t, got[id], "not allowed")
		assert.NotContains(t, got[id], "model.json", "the directory was never opened")
	}
	assert.Contains(t, got[4], `"pruned_text"`, "registered scorers stay open to requests")

	code, stdout, stderr = runCLI(t, session(call(2, "onnx:"+dir)), "stdio", "--allow-scorers", "onnx:"+dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, answers(stdout)[2], `"scorer_error"`, "an allowed spec is built; one that cannot be fails open")
	assert.Contains(t, stderr, "model.json", "and the log says why (here: an empty directory)")
}

// TestServeHeapFloorBounds: --heap-floor-mb and MCP_PRUNER_HEAP_FLOOR_MB take 0 (off) and
// refuse a negative value, with what 0 means. (--read-timeout 0s stops the server from
// starting once the values pass.)
func TestServeHeapFloorBounds(t *testing.T) {
	code, _, stderr := runCLI(t, "", "serve", "--port", "0", "--heap-floor-mb", "0", "--read-timeout", "0s")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--read-timeout must be positive", "the flag takes 0")
	code, _, stderr = runCLI(t, "", "serve", "--port", "0", "--heap-floor-mb", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--heap-floor-mb must be 0..1048576 (0: off), got -1")
	t.Setenv("MCP_PRUNER_HEAP_FLOOR_MB", "-1")
	code, _, stderr = runCLI(t, "", "serve", "--port", "0", "--read-timeout", "0s")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `MCP_PRUNER_HEAP_FLOOR_MB="-1": want an integer 0..1048576 (0: off)`)
}
