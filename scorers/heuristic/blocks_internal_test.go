package heuristic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzCloserAtIndentEnd: buildTree asks closesAt at the end of the indentation that
// indentEnd found, and only when that indentation is plain; it must answer as isCloser does
// reading the line itself (stepping over spaces, tabs and carriage returns), which never
// calls a line with other bytes in its indentation a closer. indentEnd must call a line
// blank exactly when nothing but blank bytes and colour codes is on it.
func FuzzCloserAtIndentEnd(f *testing.F) {
	for _, s := range []string{"  }", "\t) else {", "end", "  endpoint", "\f}", "\x1b[31m}", " \r ]", "", "   ", "\x1b[0m", "e", "en"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		_, first, plain := indentEnd(l)
		if plain && first < len(l) && closesAt(l, first) != isCloser(l) {
			t.Fatalf("%q: closesAt(%d) = %v, isCloser = %v", l, first, closesAt(l, first), isCloser(l))
		}
		if !plain && isCloser(l) {
			t.Fatalf("%q: a closer behind indentation that is not plain", l)
		}
		if plain && strings.Trim(l[:first], " \t\r") != "" {
			t.Fatalf("%q: indentation %q is not plain", l, l[:first])
		}
		if first < len(l) && strings.ContainsRune(" \t\r\f\v", rune(l[first])) {
			t.Fatalf("%q: the first non-blank byte %q is blank", l, l[first])
		}
	})
}

// isCloser is what a closer is, reading the line: after spaces, tabs and carriage returns,
// "}", ")", "]" or the word "end".
func isCloser(l string) bool {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r') {
		i++
	}
	return closesAt(l, i)
}

// TestGutterIsIndentation: a compiler's excerpt line whose number starts the line ("88 | …")
// is indented to its '|', as the excerpt's other lines are, so the excerpt stays inside its
// diagnostic's block; a number that is the line's text, or an excerpt indented as a whole,
// keeps its place.
func TestGutterIsIndentation(t *testing.T) {
	lines := []string{
		"error[E0308]: mismatched types",
		"  --> src/orders.rs:88:24",
		"   |",
		"88 |     let total: u64 = order.amount * qty;",
		"   |                ---   ^^^ expected `u64`, found `u32`",
		"",
		"warning: unused import",
	}
	tr := buildTree(lines)
	assert.Equal(t, int32(1), tr.parent[3], "the code line is in the location's block")
	assert.Equal(t, int32(1), tr.parent[4], "and so is the line under it")
	assert.Equal(t, int32(5), tr.end[0], "the diagnostic's block runs to its last line")
	assert.Equal(t, int32(-1), tr.parent[6])
	for l, want := range map[string]int{
		"88 |     let x":     3,
		"123 | x":            4,
		"88|x":               0, // no space: not how a gutter is printed
		"2024 release notes": 0,
		"42":                 0,
		"7 ||":               2,
	} {
		assert.Equal(t, want, gutterWidth(l, 0), "%q", l)
	}
	tr = buildTree([]string{"  ● renders", "      88 |   expect(x)", "         |   ^"})
	assert.Equal(t, int32(1), tr.parent[2], "an indented excerpt keeps its number's indentation")
}
