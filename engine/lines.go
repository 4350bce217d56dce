package engine

import "strings"

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
