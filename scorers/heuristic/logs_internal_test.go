package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogsColouredWords: a terminal colour code glued to a word ("\x1b[31merror") hides
// nothing: the word is read as itself, for failure vocabulary and goal terms alike.
func TestLogsColouredWords(t *testing.T) {
	assert.Equal(t, appendTerms(nil, "error parse_header"), appendTerms(nil, "\x1b[0m[\x1b[31merror\x1b[0m] \x1b[1;33mparse_header\x1b[0m"))
	assert.Equal(t, 1.0, failureOf("\x1b[0m[\x1b[31merror\x1b[0m] compilation aborted"))
	assert.Equal(t, appendTerms(nil, "error "), appendTerms(nil, "error \x1b[31"), "an unterminated sequence ends the line's terms")
}

// TestLogsReporterMarks: a passing test whose name says "fails" (mocha ✓, Pester [+]) ranks
// below a failing one (✗, [-]) whose line has no failure word at all.
func TestLogsReporterMarks(t *testing.T) {
	line := failureOf
	assert.Greater(t, line("    ✗ testThatAppendingResponseSerializerToCancelledRequestCallsCompletion, Test crashed"), line("    ✓ fails when the socket closes early"))
	assert.Greater(t, line("[-] runs all files from the local folder -> Expected and actual values differ!"), line("[+] - failing in onetime setup will fail the block"))
	assert.Greater(t, line("  1 failing"), line("[+] - failing in onetime setup will fail the block"))
	assert.Zero(t, line("copied 12 assets [+] done"), "a pass mark alone is no failure")
}

func failureOf(l string) float64 {
	return lineFailure(l, appendTerms(nil, l))
}

func TestEmbeddedTerms(t *testing.T) {
	h, emb := appendTermsFlagged(nil, nil, "onErrorFailed x AssertionError error_log", -1)
	want := []termHash{hashString("on"), hashString("error"), hashString("failed"), hashString("onerrorfailed"),
		hashString("assertion"), hashString("error"), hashString("assertionerror"), hashString("error"), hashString("log"), hashString("errorlog")}
	assert.Equal(t, want, h)
	assert.Equal(t, []bool{true, true, false, false, true, false, false, true, false, false}, emb)
	assert.Equal(t, appendTerms(nil, "onErrorFailed x AssertionError error_log"), h, "the same terms as appendTerms")
	for upto := range len(h) + 1 {
		hu, eu := appendTermsFlagged([]termHash{}, []bool{}, "onErrorFailed x AssertionError error_log", upto)
		require.GreaterOrEqual(t, len(hu), upto, "read at least %d terms", upto)
		assert.Equal(t, h[:len(hu)], hu, "a prefix of the whole line's terms, read up to %d", upto)
		assert.Equal(t, emb[:len(eu)], eu, "with the whole line's flags, read up to %d", upto)
	}
	hu, _ := appendTermsFlagged(nil, nil, "onErrorFailed x AssertionError error_log", 2)
	assert.Len(t, hu, 4, "whole identifiers only: onErrorFailed's four terms")
}

// TestIsLogNoise: progress chatter and zero-count summaries mention failure words without
// being failures; real failure lines, with or without digits, are not noise.
func TestIsLogNoise(t *testing.T) {
	for l, want := range map[string]bool{
		"":                                     true,
		"   ":                                  true,
		"Downloading error-prone-2.3.jar":      true,
		"  Downloaded: failsafe 1.2 (4 KB)":    true,
		"Progress (1): 12/40 KB errors":        true,
		"Compiled with 0 errors":               true,
		"Tests run: 12, 0 failures":            true,
		"lint finished, errors: 0":             true,
		"Tests run: 3, Failures: 0, Errors: 0": true,
		"ERROR: build failed":                  false,
		"Tests run: 12, 1 failures":            false,
		"error: expected 0 arguments, got 2":   false,
		"10 errors":                            true, // "0 errors" inside "10 errors": a known false alarm kept as it was
	} {
		assert.Equal(t, want, isLogNoise(l), "%q", l)
	}
}

// TestSpreadBlocksCloserThatOpensABlock: a closer that opens the next block ("} else {",
// Python's ") -> int:" after a multi-line signature) ends its header's block and heads one of
// its own that runs past it. The best line of that later block is no part of the header's
// block and must not become its peak: it had been, and the distance from it overran the
// decay table (a panic; the engine failed open and kept the whole log).
func TestSpreadBlocksCloserThatOpensABlock(t *testing.T) {
	lines := []string{"def handler(", "    request,", ") -> int:"}
	for i := 0; i < 200; i++ {
		lines = append(lines, "    step()")
	}
	lines = append(lines, "    raise RuntimeError('fatal: build failed')")
	raw := make([]float64, len(lines))
	raw[len(lines)-1] = 1
	s := make([]float64, len(lines))
	copy(s, raw)
	require.NotPanics(t, func() { spreadBlocks(lines, raw, s) })
	assert.Zero(t, s[1], "the signature's lines take nothing from the body's last line")
	assert.Equal(t, 1.0, s[len(lines)-1])
}
