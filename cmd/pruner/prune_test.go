package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// sampleSource is a file with one function the goal names among unrelated ones.
func sampleSource(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("package sample\n\nimport \"strings\"\n\n")
	for i := 0; i < 40; i++ {
		b.WriteString("// helper" + strings.Repeat("x", i%5) + " formats unrelated values for the report writer.\n")
		b.WriteString("func helper" + string(rune('A'+i%26)) + strings.Repeat("x", i/26) + "(v string) string {\n")
		for j := 0; j < 8; j++ {
			b.WriteString("\tv = strings.ReplaceAll(v, \"unrelated placeholder text number\", \"another unrelated replacement value\")\n")
		}
		b.WriteString("\treturn strings.TrimSpace(v) + \" unrelated suffix for the report\"\n}\n\n")
	}
	b.WriteString("// parseHeader splits a header line into its name and value.\nfunc parseHeader(line string) (string, string) {\n")
	b.WriteString("\tname, value, ok := strings.Cut(line, \":\")\n\tif !ok {\n\t\treturn \"\", \"\"\n\t}\n\treturn name, value\n}\n")
	path := filepath.Join(t.TempDir(), "sample.go")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

func TestPruneCommandKeepsTheNamedFunction(t *testing.T) {
	path := sampleSource(t)
	code, out, stderr := runCLI(t, "", "prune", path, "--goal", "parseHeader returns empty values when the colon is missing")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "func parseHeader(line string) (string, string) {")
	assert.Contains(t, out, "name, value, ok := strings.Cut(line, \":\")")
	assert.Contains(t, out, "⟦PRUNÉ: prune_id=prn_")
	assert.Less(t, strings.Count(out, "\n"), strings.Count(mustRead(t, path), "\n")/2, "most of the file is cut")
	assert.Regexp(t, `pruner: kept \d+ of \d+ lines, \d+ → \d+ tokens`, stderr)
}

func TestPruneCommandJSONFromStdin(t *testing.T) {
	text := mustRead(t, sampleSource(t))
	code, out, stderr := runCLI(t, text, "prune", "-", "--goal", "parseHeader", "--json", "--source-type", "code", "--annotate-lines")
	require.Equal(t, 0, code, stderr)
	var res engine.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Regexp(t, `^prn_[0-9a-f]{32}$`, res.PruneID)
	assert.NotEmpty(t, res.Annotations)
	assert.Equal(t, res.Annotations[0].Marker, firstMarkerLine(res.PrunedText))
	assert.Contains(t, out, "│", "JSON is not ASCII-escaped")
	assert.Equal(t, len(engine.SplitLines(text)), res.Stats.OriginalLines)
}

func TestPruneCommandGuessesSourceType(t *testing.T) {
	tests := map[string]engine.SourceType{
		"build.log": engine.SourceLogs, "ci-log.txt": engine.SourceLogs, "README.md": engine.SourceDocs,
		"guide.rst": engine.SourceDocs, "main.go": engine.SourceCode, "": engine.SourceCode,
	}
	for name, want := range tests {
		assert.Equal(t, want, guessSourceType(name), name)
	}
}

func TestPruneCommandErrors(t *testing.T) {
	path := sampleSource(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing goal", []string{"prune", path}, 2, "--goal is required"},
		{"blank goal", []string{"prune", path, "--goal", " \t "}, 2, "--goal is required, and not blank"},
		{"invisible goal", []string{"prune", path, "--goal", "\u200b\u202e"}, 2, "--goal is required, and not blank"},
		{"two files", []string{"prune", path, path, "--goal", "x"}, 2, "at most one FILE"},
		{"bad source type", []string{"prune", path, "--goal", "x", "--source-type", "prose"}, 2, "--source-type"},
		// An invalid option is said as the flag the user typed, with its value.
		{"bad ratio", []string{"prune", path, "--goal", "x", "--max-prune-ratio", "2"}, 2, "pruner prune: --max-prune-ratio must be a number between 0 and 1, got 2\n"},
		{"bad min keep", []string{"prune", path, "--goal", "x", "--min-keep-lines", "-1"}, 2, "pruner prune: --min-keep-lines must be an integer >= 0, got -1\n"},
		{"bad timeout", []string{"prune", path, "--goal", "x", "--timeout-ms", "0"}, 2, "pruner prune: --timeout-ms must be an integer >= 1, got 0\n"},
		{"bad threshold", []string{"prune", path, "--goal", "x", "--threshold", "1.5"}, 2, "pruner prune: --threshold must be a number between 0 and 1, got 1.5\n"},
		{"bad budget", []string{"prune", path, "--goal", "x", "--token-budget", "-5"}, 2, "pruner prune: --token-budget must be an integer >= 0, got -5\n"},
		{"unknown scorer", []string{"prune", path, "--goal", "x", "--scorer", "nope"}, 2, "unknown scorer"},
		{"missing file", []string{"prune", filepath.Join(t.TempDir(), "nope.go"), "--goal", "x"}, 1, "no such file"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"bad encoding", []string{"prune", path, "--goal", "x", "--encoding", "p50k"}, 2, "unknown encoding"},
		// -1 was the flag's "unset": negative thresholds and NaN ran with the scorer's own.
		{"negative threshold", []string{"prune", path, "--goal", "x", "--threshold", "-0.5"}, 2, "pruner prune: --threshold must be a number between 0 and 1, got -0.5\n"},
		{"NaN threshold", []string{"prune", path, "--goal", "x", "--threshold", "nan"}, 2, "pruner prune: --threshold must be a number between 0 and 1, got NaN\n"},
		{"unknown language", []string{"prune", path, "--goal", "x", "--language", "cobol"}, 2, `--language "cobol" is not a language the structural scorer knows (bash, c, cpp`},
		{"a switch's value after a space", []string{"prune", path, "--goal", "x", "--markers", "false"}, 2, `as in --markers=false; "false" was read as a FILE`},
		{"a switch's value after a space, from stdin", []string{"prune", "--markers", "false", "--goal", "x"}, 2, `open false: no such file or directory (a true/false flag`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tc.args...)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, stderr, tc.msg)
		})
	}
}

// TestPruneCommandSaysWhyUnchanged: a text returned unchanged says why on stderr, in text
// mode and with --json (whose payload is the wire's and has no room for it), and an
// oversized one names the flag that raises the limit.
func TestPruneCommandSaysWhyUnchanged(t *testing.T) {
	path := sampleSource(t)
	for _, args := range [][]string{{}, {"--json"}} {
		code, out, stderr := runCLI(t, "", append([]string{"prune", path, "--goal", "x", "--max-input-chars", "10"}, args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, "parse")
		assert.Contains(t, stderr, "the text is over 10 characters; --max-input-chars raises the limit")
		code, _, stderr = runCLI(t, "", append([]string{"prune", path, "--goal", "x", "--scorer", "swepruner:http://127.0.0.1:1"}, args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "connection refused")
	}
}

// TestPruneCommandInvalidUTF8: plain output keeps a file's invalid bytes; --json cannot (its
// strings are Unicode) and says so on stderr.
func TestPruneCommandInvalidUTF8(t *testing.T) {
	text := strings.Repeat("ok line about parsing\nbad \xff\xfe bytes \xc3 here\n", 30)
	code, out, stderr := runCLI(t, text, "prune", "-", "--goal", "parsing", "--source-type", "docs")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "bad \xff\xfe bytes \xc3 here\n", "the bytes come back as they were")
	assert.NotContains(t, stderr, "not valid UTF-8")
	code, out, stderr = runCLI(t, text, "prune", "-", "--goal", "parsing", "--source-type", "docs", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `bad \ufffd\ufffd bytes \ufffd here`, "encoding/json writes U+FFFD escaped")
	assert.Contains(t, stderr, "the input is not valid UTF-8")
}

// TestPruneCommandStreamsWhatIsTooLarge: without --json, a text sure to be over
// --max-input-chars (more than 4 bytes a character of it) is copied through unchanged as it
// is read, not held whole: pruner prune on an endless pipe is cat.
func TestPruneCommandStreamsWhatIsTooLarge(t *testing.T) {
	text := strings.Repeat("a line of a large log, nothing to prune here\n", 2000)
	code, out, stderr := runCLI(t, text, "prune", "-", "--goal", "x", "--max-input-chars", "100")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, text, out)
	assert.Contains(t, stderr, "returned unchanged, warnings: input_too_large (the text is over 100 characters")
	// --json needs the text whole: the engine answers, unchanged, with the payload.
	code, out, stderr = runCLI(t, text, "prune", "-", "--goal", "x", "--max-input-chars", "100", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"input_too_large"`)
}

func TestHelpAndVersion(t *testing.T) {
	code, out, _ := runCLI(t, "", "--help")
	assert.Equal(t, 0, code)
	for _, c := range commands() {
		assert.Contains(t, out, c.name)
	}
	// Help asked for goes to stdout, to be paged or searched; nothing goes to stderr.
	code, out, stderr := runCLI(t, "", "prune", "--help")
	assert.Equal(t, 0, code)
	assert.Empty(t, stderr)
	for _, flag := range []string{"-goal", "-source-type", "-max-prune-ratio", "-min-keep-lines", "-scorer", "-json", "-token-budget"} {
		assert.Contains(t, out, flag)
	}
	// A mistake's usage goes to stderr, under the mistake.
	code, out, stderr = runCLI(t, "", "prune", "--no-such-flag")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.True(t, strings.HasPrefix(stderr, "flag provided but not defined: -no-such-flag\nUsage: pruner prune"), "%.80q", stderr)
	// Each command explains itself and offers only the flags it uses: the recovery store's
	// only where texts are kept for recover_text, pruning limits only where something is pruned.
	offers := map[string]struct{ has, lacks []string }{
		"prune":   {[]string{"-max-input-chars", "-encoding"}, []string{"-ttl", "-store-bytes"}},
		"bench":   {[]string{"-max-input-chars", "-encoding", "-accounting"}, []string{"-ttl", "-store-bytes"}},
		"scorers": {[]string{"-plugins", "-onnxruntime-lib", "-json"}, []string{"-max-input-chars", "-encoding", "-ttl"}},
		"serve":   {[]string{"-max-input-chars", "-ttl", "-store-bytes", "-port", "-read-timeout", "-max-sessions", "-heap-floor-mb", "-mcp-content"}, nil},
		"stdio":   {[]string{"-max-input-chars", "-ttl", "-store-bytes", "-shutdown-timeout", "-mcp-content"}, []string{"-port", "-heap-floor-mb"}},
	}
	for cmd, want := range offers {
		code, help, stderr := runCLI(t, "", cmd, "--help")
		assert.Equal(t, 0, code, cmd)
		assert.Empty(t, stderr, cmd)
		assert.True(t, strings.HasPrefix(help, "Usage: pruner "+cmd), "%s --help opens with its usage line: %.60q", cmd, help)
		flagLine := func(f string) *regexp.Regexp { return regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(f) + `( |$)`) }
		for _, f := range want.has {
			assert.Regexp(t, flagLine(f), help, "%s offers %s", cmd, f)
		}
		for _, f := range want.lacks {
			assert.NotRegexp(t, flagLine(f), help, "%s does not offer %s", cmd, f)
		}
	}
	for _, arg := range []string{"version", "--version", "-v"} {
		code, out, _ = runCLI(t, "", arg)
		assert.Equal(t, 0, code, arg)
		assert.Equal(t, "pruner "+version+"\n", out, arg)
	}
	// version --help explains the command instead of running it; arguments are refused.
	code, out, stderr = runCLI(t, "", "version", "--help")
	assert.Equal(t, 0, code)
	assert.Empty(t, stderr)
	assert.Contains(t, out, "Usage: pruner version")
	assert.NotContains(t, out, "pruner "+version+"\n")
	code, _, stderr = runCLI(t, "", "version", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "unexpected arguments")
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func firstMarkerLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "⟦PRUNÉ") {
			return l
		}
	}
	return ""
}
