package heuristic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
)

// TestGoalAndLineSplitAgree: a goal identifier and the same identifier in a line must yield
// the same terms, or matches are silently lost.
func TestGoalAndLineSplitAgree(t *testing.T) {
	for _, id := range []string{"getHTTPServer", "parse_header", "utf8Decode", "XMLHttpRequest", "__init__", "a_b", "ID", "v2Beta3", "snake_case_and_camelCase", "handler4", "utf8", "x86", "_private", "trailing_"} {
		parts, joined, multi := identParts(id)
		var want []termHash
		for _, p := range parts {
			want = append(want, hashString(p))
		}
		if multi {
			want = append(want, hashString(joined))
		}
		assert.Equal(t, want, appendTerms(nil, id), id)
	}
	parts, _, _ := identParts("getHTTPServerV2")
	assert.Equal(t, []string{"get", "http", "server"}, parts, "one-letter parts are dropped")
}

// TestDigitSuffixIdentifiersStayWhole: handler4, utf8 and x86 have a one-byte part that is no
// term, but the whole identifier is: a goal naming handler4 must not match handler5 as well.
func TestDigitSuffixIdentifiersStayWhole(t *testing.T) {
	for _, c := range []struct{ id, whole string }{{"handler4", "handler4"}, {"utf8", "utf8"}, {"X86", "x86"}, {"get_v2", "getv2"}} {
		_, joined, multi := identParts(c.id)
		assert.True(t, multi, c.id)
		assert.Equal(t, c.whole, joined)
		assert.Contains(t, appendTerms(nil, c.id), hashString(c.whole), c.id)
	}
	for _, id := range []string{"handler", "_private", "trailing_", "x"} {
		_, _, multi := identParts(id)
		assert.False(t, multi, id)
	}
	q := ParseGoal("handler4 returns the wrong page")
	a := Analyze([]string{"func handler4(w http.ResponseWriter) error {", "func handler5(w http.ResponseWriter) error {"}, q)
	assert.Greater(t, a.Lex[0], 2*a.Lex[1], "the named handler outranks its sibling")
	assert.True(t, a.Exact[0])
	assert.False(t, a.Exact[1])
}

// FuzzLineSplitAgreesWithGoalSplit: appendTerms (the line side, tuned for speed) yields, for
// every word of any input, the terms identParts (the goal side, plain) makes of it.
func FuzzLineSplitAgreesWithGoalSplit(f *testing.F) {
	for _, s := range []string{"getHTTPServer(parse_header) utf8Decode", "x86 __init__ a_b v2Beta3", "\x1b[31mFAIL\x1b[0m TestFoo_bar", "naïveÉtat_x9Y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []termHash
		for i := 0; ; {
			i = skipNonWord(s, i)
			if i >= len(s) {
				break
			}
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			parts, joined, multi := identParts(s[i:j])
			for _, p := range parts {
				want = append(want, hashString(p))
			}
			if multi {
				want = append(want, hashString(joined))
			}
			i = j
		}
		got := appendTerms(nil, s)
		if len(want) == 0 {
			want = nil
		}
		assert.Equal(t, want, got, "%q", s)
	})
}

// BenchmarkAppendTerms is the term scan alone, on real Go source (net/http/server.go of the
// toolchain): the part of scoring that reads every byte.
func BenchmarkAppendTerms(b *testing.B) {
	src, err := benchmarks.GoSource()
	if err != nil {
		b.Skipf("no Go source to benchmark on: %v", err)
	}
	lines := strings.Split(string(src), "\n")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var dst []termHash
	for b.Loop() {
		for _, l := range lines {
			dst = appendTerms(dst[:0], l)
		}
	}
}
