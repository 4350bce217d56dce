package heuristic

import (
	"regexp"
	"strings"
)

// An entry is the documentation of one object in reStructuredText: an object directive
// (".. function:: name(args)", ".. method::", ".. class::", ...) and its indented body. Its
// head is the signature (the directive with its continued signatures and options, up to the
// first blank line) and the body's first paragraph: the summary a reader decides from.
type entry struct {
	start, head, end int // directive line, end of the head, end of the body (exclusive)
}

// reObjectDirective matches the directives that describe an object, with or without a
// domain ("py:function"); admonitions and markup (note, versionchanged, index) are not
// entries.
var reObjectDirective = regexp.MustCompile(`^\s*\.\.\s+(?:\w+:)?(?:function|method|class|attribute|data|exception|classmethod|staticmethod|decorator|decoratormethod|property|coroutinefunction|coroutinemethod|abstractmethod|awaitablefunction|describe|option|cmdoption|envvar)::`)

// entries returns the object entries of lines, nested ones (a class's methods) included.
func entries(lines []string, t tree) []entry {
	var out []entry
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " \t"), "..") || !reObjectDirective.MatchString(l) {
			continue
		}
		e := int(t.end[i])
		j := i + 1
		for j < e && !isBlank(lines[j]) { // continued signatures and options
			j++
		}
		for j < e && isBlank(lines[j]) {
			j++
		}
		for j < e && !isBlank(lines[j]) { // the first paragraph
			j++
		}
		out = append(out, entry{start: i, head: j, end: e})
	}
	return out
}

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// liftEntries raises the context score of every line of an entry to w times its head's
// relevance (BM25 over the head, lengths normalised by the average head). An entry's block
// score is its whole body's relevance, which a long entry's asides (notes, version changes,
// examples) win as easily as its purpose; a reader picks the entry whose signature and
// summary answer the question and keeps it whole.
func liftEntries(es []entry, a *Analysis, w float64, ctx []float64) {
	if len(es) == 0 || w == 0 {
		return
	}
	total := 0
	for _, en := range es {
		for i := en.start; i < en.head; i++ {
			total += a.Length[i]
		}
	}
	avg := max(1, float64(total)/float64(len(es)))
	for _, en := range es {
		h := w * a.SpanScore(en.start, en.head, avg)
		if h == 0 {
			continue
		}
		for i := en.start; i < en.end; i++ {
			ctx[i] = max(ctx[i], h)
		}
	}
}
