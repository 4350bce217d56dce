package main

import (
	"encoding/json"
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
