package heuristic

import (
	"strings"
	"testing"
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
