package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
	h, emb := appendTermsFlagged(nil, nil, "onErrorFailed x AssertionError error_log")
	want := []termHash{hashString("on"), hashString("error"), hashString("failed"), hashString("onerrorfailed"),
		hashString("assertion"), hashString("error"), hashString("assertionerror"), hashString("error"), hashString("log"), hashString("errorlog")}
	assert.Equal(t, want, h)
	assert.Equal(t, []bool{true, true, false, false, true, false, false, true, false, false}, emb)
	assert.Equal(t, appendTerms(nil, "onErrorFailed x AssertionError error_log"), h, "the same terms as appendTerms")
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
