package engine

import (
	"strings"
	"unicode/utf8"
)

// lineSet is a text split on "\n". A "\r" before the "\n" stays in the line's raw bytes; a
// final "\n" ends the last line rather than starting an empty one.
type lineSet struct {
	raw             []string // each line's exact bytes without its "\n"
	trailingNewline bool
}

func splitLines(text string) lineSet {
	if text == "" {
		return lineSet{}
	}
	trailing := strings.HasSuffix(text, "\n")
	body := text
	if trailing {
		body = text[:len(text)-1]
	}
	return lineSet{raw: strings.Split(body, "\n"), trailingNewline: trailing}
}

// content returns the lines as scorers see them: without a trailing "\r".
func (ls lineSet) content() []string {
	out := make([]string, len(ls.raw))
	for i, l := range ls.raw {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out
}

// SplitLines splits text the way the engine numbers lines, for callers that need the same
// numbering (benchmarks, recovery clients). Lines keep a "\r" before their "\n".
func SplitLines(text string) []string { return splitLines(text).raw }

// PyLineStarts are the byte offsets where the lines of Python's code.splitlines() start,
// SWE-Pruner's numbering: besides "\n" it breaks at \r, \v, \f, \x1c-\x1e, U+0085, U+2028
// and U+2029, and "\r\n" is one break. A break that ends the text starts no line.
func PyLineStarts(code string) []int {
	if code == "" {
		return nil
	}
	starts := []int{0}
	for i := 0; i < len(code); {
		r, size := utf8.DecodeRuneInString(code[i:])
		next := i + size
		if !PyBreak(r) {
			i = next
			continue
		}
		if r == '\r' && next < len(code) && code[next] == '\n' {
			next++
		}
		if next < len(code) {
			starts = append(starts, next)
		}
		i = next
	}
	return starts
}

// PyBreak reports whether Python's str.splitlines() breaks a line at r.
func PyBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}
