package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
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

// TestEmptyVariablesAreUnset: a variable set to nothing ("VAR=" in a Compose or .env file)
// leaves its setting at the default, for numbers as for strings; a value that is there but
// wrong still stops the command.
func TestEmptyVariablesAreUnset(t *testing.T) {
	for _, name := range []string{"MCP_PRUNER_PRUNE_ID_TTL_S", "MCP_PRUNER_MAX_INPUT_CHARS", "MCP_PRUNER_STORE_BYTES",
		"MCP_PRUNER_ENCODING", "MCP_PRUNER_SCORER", "MCP_PRUNER_LOG_LEVEL", "MCP_PRUNER_LOG_FORMAT", "MCP_PRUNER_PLUGINS",
		"MCP_PRUNER_ONNX_THREADS", "MCP_PRUNER_SWEPRUNER_URL"} {
		t.Setenv(name, "")
	}
	code, _, stderr := runCLI(t, "", "stdio")
	assert.Equal(t, 0, code, stderr)
	t.Setenv("MCP_PRUNER_PRUNE_ID_TTL_S", "soon")
	code, _, stderr = runCLI(t, "", "stdio")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `MCP_PRUNER_PRUNE_ID_TTL_S="soon"`)
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

// TestHelpShowsExamplesThatParse: every command's --help has an Examples section, and each
// flag an example passes to a pruner command is one that command's --help lists, so an
// example cannot go stale when a flag is renamed.
func TestHelpShowsExamplesThatParse(t *testing.T) {
	help := func(t *testing.T, name string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, "", append(strings.Fields(name), "--help")...)
		require.Equal(t, 0, code, stderr)
		return stdout + stderr
	}
	// Commands with subcommands of their own flags: "pruner bench diff" is not "pruner bench".
	subcommands := map[string][]string{"bench": {"diff", "spread", "build-commits"}}
	isCommand := map[string]bool{}
	names := []string{}
	for _, c := range commands() {
		isCommand[c.name] = true
		names = append(names, c.name)
		for _, sub := range subcommands[c.name] {
			names = append(names, c.name+" "+sub)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			text := help(t, name)
			_, examples, ok := strings.Cut(text, "\nExamples:\n")
			require.True(t, ok, "no Examples section:\n%s", text)
			examples, _, _ = strings.Cut(examples, "\n\n")
			require.Contains(t, examples, "pruner "+name)
			for _, line := range strings.Split(examples, "\n") {
				line, _, _ = strings.Cut(line, " # ")
				words := strings.Fields(line)
				for i, w := range words {
					if w != "pruner" || i+1 >= len(words) || !isCommand[words[i+1]] {
						continue // "claude mcp add pruner -- …" names the server, not a command
					}
					sub, args := words[i+1], words[i+2:]
					if len(args) > 0 && slices.Contains(subcommands[sub], args[0]) {
						sub, args = sub+" "+args[0], args[1:]
					}
					subHelp := help(t, sub)
					for _, arg := range args {
						if arg == "|" || arg == "<" {
							break
						}
						name, isFlag := strings.CutPrefix(arg, "--")
						if !isFlag {
							continue
						}
						name, _, _ = strings.Cut(name, "=")
						assert.Regexp(t, `(?m)^  -`+name+`( |$)`, subHelp, "%q: pruner %s has no flag --%s", line, sub, name)
					}
				}
			}
		})
	}
}

// TestMistypedFlagNamesTheMeantOne: an unknown flag that is a near miss of the command's own,
// or another command's name for it, ends the usage with the flag meant; one far from every
// flag gets no guess.
func TestMistypedFlagNamesTheMeantOne(t *testing.T) {
	for _, c := range []struct {
		args  []string
		meant string
	}{
		{[]string{"bench", "--scorer", "structural"}, "--scorers"},
		{[]string{"bench", "--workers", "2"}, "--parallel"},
		{[]string{"train", "--jobs", "2"}, "--parallel"},
		{[]string{"prune", "--budget", "300", "--goal", "x", "-"}, "--token-budget"},
		{[]string{"prune", "--goals", "x", "-"}, "--goal"},
		{[]string{"prune", "--source_type", "logs", "--goal", "x", "-"}, "--source-type"},
		{[]string{"serve", "--prot", "8006"}, "--port"},
		{[]string{"bench", "--bogus"}, ""},
		{[]string{"prune", "--x", "--goal", "x", "-"}, ""},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, "", c.args...)
			require.Equal(t, 2, code, stderr)
			last := stderr[strings.LastIndex(strings.TrimRight(stderr, "\n"), "\n")+1:]
			if c.meant == "" {
				assert.NotContains(t, stderr, "did you mean")
				return
			}
			assert.Equal(t, "did you mean "+c.meant+"?\n", last)
		})
	}
}

// TestBenchHasNoDefaultScorer: bench names every scorer it runs, so it offers no --scorer
// (which would silently do nothing) and ignores MCP_PRUNER_SCORER, even a bad one.
func TestBenchHasNoDefaultScorer(t *testing.T) {
	_, help, _ := runCLI(t, "", "bench", "--help")
	assert.NotContains(t, help, "-scorer ")
	assert.Contains(t, help, "-scorers ")

	t.Setenv("MCP_PRUNER_SCORER", "no-such-scorer")
	code, out, stderr := runCLI(t, "", "bench", "--data", benchCases(t), "--scorers", "head", "--modes", "budget", "--budgets", "0.2")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "head")
}

// TestScorersShowsTheDefaults: the listing says which scorer a request naming none gets for
// each source type, as --scorer and MCP_PRUNER_SCORER set it, refuses a --scorer a server
// would refuse, and lists a family spec given as the default.
func TestScorersShowsTheDefaults(t *testing.T) {
	code, out, stderr := runCLI(t, "", "scorers")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "Requests that name no scorer get: code → structural, logs → heuristic, docs → heuristic (built in).")

	t.Setenv("MCP_PRUNER_SCORER", "structural")
	code, out, stderr = runCLI(t, "", "scorers", "--json")
	require.Equal(t, 0, code, stderr)
	var rows []struct {
		Name       string   `json:"name"`
		DefaultFor []string `json:"default_for"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	defaults := map[string][]string{}
	for _, r := range rows {
		if len(r.DefaultFor) > 0 {
			defaults[r.Name] = r.DefaultFor
		}
	}
	assert.Equal(t, map[string][]string{"structural": {"code", "logs", "docs"}}, defaults)

	code, out, stderr = runCLI(t, "", "scorers", "--scorer", "plugin:builtin/heuristic")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "code → plugin:builtin/heuristic, logs → plugin:builtin/heuristic, docs → plugin:builtin/heuristic (--scorer or MCP_PRUNER_SCORER)")

	code, _, stderr = runCLI(t, "", "scorers", "--scorer", "no-such-scorer")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--scorer (MCP_PRUNER_SCORER): scorer "no-such-scorer": unknown scorer`)
}

// TestNumericFlagsOutOfRange: a number out of range is refused with the flag's name and the
// value (the engine's flags in every command that takes them, as their variables are), not
// taken as some default.
func TestNumericFlagsOutOfRange(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prune", "--goal", "x", "--onnx-threads", "0", "-"}, "--onnx-threads must be >= 1, got 0"},
		{[]string{"scorers", "--onnx-threads", "0"}, "--onnx-threads must be >= 1, got 0"},
		{[]string{"bench", "--onnx-threads", "-3"}, "--onnx-threads must be >= 1, got -3"},
		{[]string{"stdio", "--onnx-threads", "0"}, "--onnx-threads must be >= 1, got 0"},
		{[]string{"prune", "--goal", "x", "--max-input-chars", "0", "-"}, "--max-input-chars must be >= 1, got 0"},
		{[]string{"bench", "--limit", "-1"}, "--limit must be >= 0 (0: every case), got -1"},
		// A store smaller than one prune's bookkeeping keeps nothing: it was accepted with a
		// warning naming a largest storable text of -96 bytes.
		{[]string{"stdio", "--store-bytes", "100"}, "--store-bytes must be >= 1024"},
		{[]string{"stdio", "--mcp-content", "xml"}, `--mcp-content (MCP_PRUNER_MCP_CONTENT) "xml": want json or text`},
		{[]string{"serve", "--mcp-content", "XML"}, "want json or text"},
		{[]string{"bench", "build-commits", "--repo", ".", "--out", "x.jsonl", "--limit", "-1"}, "--limit must be >= 0 (0: no limit), got -1"},
		{[]string{"bench", "build-commits", "--repo", ".", "--out", "x.jsonl", "--max-file-bytes", "0"}, "--max-file-bytes must be >= 1, got 0"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, "a\n", c.args...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, c.want)
		})
	}
	t.Setenv("MCP_PRUNER_ONNX_THREADS", "0")
	code, _, stderr := runCLI(t, "", "scorers")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "MCP_PRUNER_ONNX_THREADS")
}

// TestPluginLogLinesAreRecords: what the plugin host writes (its restart notes, go-plugin's
// hclog lines, a plugin's stderr) becomes one log record a line, so --log-format json stays
// JSON; an hclog level is kept, anything else is a warning, and a partial line waits.
func TestPluginLogLinesAreRecords(t *testing.T) {
	var out bytes.Buffer
	w := &logLines{log: slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	_, err := w.Write([]byte("2026-11-27T16:35:44.730Z [ERROR] plugin.f: plugin process exited: path=/x pid=7\nplugin \"f\" (pid 7) hung; restart"))
	require.NoError(t, err)
	_, err = w.Write([]byte("ing on next use\n\n  \n[DEBUG] plugin.f: starting\n"))
	require.NoError(t, err)
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &rec), "every line is JSON: %s", l)
		got = append(got, rec)
	}
	require.Len(t, got, 3)
	assert.Equal(t, "ERROR", got[0]["level"])
	assert.Equal(t, "plugin.f: plugin process exited: path=/x pid=7", got[0]["msg"])
	assert.Equal(t, "WARN", got[1]["level"])
	assert.Equal(t, `plugin "f" (pid 7) hung; restarting on next use`, got[1]["msg"])
	assert.Equal(t, "DEBUG", got[2]["level"])
}
