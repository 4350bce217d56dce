package heuristic

import (
	"strings"
	"testing"
)

// FuzzCloserAtIndentEnd: buildTree asks closesAt at the end of the indentation that
// indentEnd found, when that indentation is plain; it must answer as isCloser does reading
// the line itself, and indentEnd must call a line blank exactly when nothing but blank bytes
// and colour codes is on it.
func FuzzCloserAtIndentEnd(f *testing.F) {
	for _, s := range []string{"  }", "\t) else {", "end", "  endpoint", "\f}", "\x1b[31m}", " \r ]", "", "   ", "\x1b[0m", "e", "en"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		_, first, plain := indentEnd(l)
		if plain && first < len(l) && closesAt(l, first) != isCloser(l) {
			t.Fatalf("%q: closesAt(%d) = %v, isCloser = %v", l, first, closesAt(l, first), isCloser(l))
		}
		if plain && strings.Trim(l[:first], " \t\r") != "" {
			t.Fatalf("%q: indentation %q is not plain", l, l[:first])
		}
		if first < len(l) && strings.ContainsRune(" \t\r\f\v", rune(l[first])) {
			t.Fatalf("%q: the first non-blank byte %q is blank", l, l[first])
		}
	})
}
