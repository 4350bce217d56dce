package engine

import (
	"math/rand/v2"
	"testing"
)

// TestHasFailureWordMatchesTheRegexp checks the hand-written scan against the regexp it
// replaces, on chosen lines and on random ones built from the words' pieces.
func TestHasFailureWordMatchesTheRegexp(t *testing.T) {
	lines := []string{
		"", "ERROR: x", "xerror", "error_code", "Errors: 0", "some Exception here", "Traceback (most", "mytraceback",
		"FATAL", "nonfatal", "panic: boom", "unpanic", "failed", "FAILED.", "failedx", "failure", "failures", "FAIL",
		"fail_fast", "FAIL:", "_fail", "1fail", "é failed", "tests fail", "faile", "Ｅrror", "\x00error", "ﬁle fail",
	}
	pieces := []string{"err", "or", "ERR", "OR", "fail", "ed", "ure", "FA", "IL", "trace", "back", "fatal", "panic", "exception",
		" ", "_", ".", "x", "1", ":", "é", "\t", "ı", "K"}
	r := rand.New(rand.NewPCG(7, 9))
	for i := 0; i < 20000; i++ {
		var b []byte
		for j := r.IntN(6); j >= 0; j-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		lines = append(lines, string(b))
	}
	for _, l := range lines {
		if got, want := hasFailureWord(l), reLogFailure.MatchString(l); got != want {
			t.Fatalf("hasFailureWord(%q) = %v, regexp says %v", l, got, want)
		}
	}
}
