package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlagErrorsAreUsageErrorsSaidOnce: a mistyped flag exits 2 like every usage error, and
// its message appears once (the flag package prints it with the usage).
func TestFlagErrorsAreUsageErrorsSaidOnce(t *testing.T) {
	for _, args := range [][]string{
		{"prune", "--bogus"},
		{"prune", "--goal", "x", "--token-budget", "abc", "-"},
		{"scorers", "--bogus"},
		{"serve", "--bogus"},
		{"stdio", "--bogus"},
		{"bench", "--bogus"},
		{"train", "--bogus"},
		{"plugin", "--bogus"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, "", args...)
			assert.Equal(t, 2, code)
			problem := strings.SplitN(stderr, "\n", 2)[0]
			require.NotEmpty(t, problem)
			assert.Equal(t, 1, strings.Count(stderr, problem), "said once:\n%s", stderr)
		})
	}
}

// TestFlagsWinOverTheEnvironment: a flag given on the command line is used even when its
// variable holds something malformed, and --help works whatever the environment holds; a
// malformed variable whose flag is not given still stops the command, naming the variable.
func TestFlagsWinOverTheEnvironment(t *testing.T) {
	t.Setenv("MCP_PRUNER_MAX_INPUT_CHARS", "lots")
	t.Setenv("MCP_PRUNER_LOG_LEVEL", "loud")

	code, _, stderr := runCLI(t, "", "stdio", "--help")
	assert.Equal(t, 0, code, stderr)

	code, _, stderr = runCLI(t, "", "stdio", "--max-input-chars", "1000", "--log-level", "error")
	assert.Equal(t, 0, code, "both malformed variables are overridden by their flags: %s", stderr)

	code, _, stderr = runCLI(t, "", "stdio", "--log-level", "error")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `MCP_PRUNER_MAX_INPUT_CHARS="lots"`)

	code, _, stderr = runCLI(t, "", "stdio", "--max-input-chars", "1000")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "MCP_PRUNER_LOG_LEVEL", "an error about a value the environment set names the variable")

	t.Setenv("MCP_PRUNER_MAX_INPUT_CHARS", "3")
	t.Setenv("MCP_PRUNER_LOG_LEVEL", "error")
	code, out, stderr := runCLI(t, "abcdef\n", "prune", "--goal", "x", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "input_too_large", "a well-formed variable still applies when its flag is absent")
}

// TestPruneCommandStdoutIsTheAnswer: stdout is the pruned text byte for byte, so a text
// returned unchanged is the input, even without a final newline.
func TestPruneCommandStdoutIsTheAnswer(t *testing.T) {
	for _, text := range []string{"no final newline", "two\nlines", "\x00\x01binary\xff", "ends\n"} {
		code, out, stderr := runCLI(t, text, "prune", "--goal", "x", "-")
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, text, out)
	}
}

// TestPruneCommandBudgetDecides: with --token-budget and no explicit floors, the budget is
// met on a file where keeping 10% of the lines (the command line's default floor) would not be.
func TestPruneCommandBudgetDecides(t *testing.T) {
	path := sampleSource(t)
	const budget = 150
	prune := func(extra ...string) (kept int, warnings []string) {
		code, out, stderr := runCLI(t, "", append([]string{"prune", path, "--goal", "parseHeader", "--json", "--token-budget", "150"}, extra...)...)
		require.Equal(t, 0, code, stderr)
		var res struct {
			Stats struct {
				After int `json:"tokens_est_after"`
			} `json:"stats"`
			Warnings []string `json:"warnings"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &res))
		return res.Stats.After, res.Warnings
	}
	kept, warnings := prune()
	assert.LessOrEqual(t, kept, budget)
	assert.NotContains(t, warnings, "token_budget_exceeded")

	kept, warnings = prune("--max-prune-ratio", "0.9")
	assert.Greater(t, kept, budget, "a floor the reader set still binds")
	assert.Contains(t, warnings, "token_budget_exceeded")
}
