package heuristic

import (
	"math"
	"strings"
)

// An entry is the documentation of one object in reStructuredText: an object directive
// (".. function:: name(args)", ".. method::", ".. class::", ...) and its indented body. Its
// head is the signature (the directive with its continued signatures and options, up to the
// first blank line) and the body's first paragraph: the summary a reader decides from.
type entry struct {
	start, head, end int    // directive line, end of the head, end of the body (exclusive)
	name             string // the object's name, lower case, without its module or class
}

// objectDirectives are the directives that describe an object, with or without a domain
// ("py:function"); admonitions and markup (note, versionchanged, index) are not entries.
var objectDirectives = map[string]bool{
	"function": true, "method": true, "class": true, "attribute": true, "data": true, "exception": true,
	"classmethod": true, "staticmethod": true, "decorator": true, "decoratormethod": true, "property": true,
	"coroutinefunction": true, "coroutinemethod": true, "abstractmethod": true, "awaitablefunction": true,
	"describe": true, "option": true, "cmdoption": true, "envvar": true,
}

// objectDirective reads a line as an object directive: white space, "..", white space, an
// optional domain ("py:"), one of objectDirectives, "::", and the object's name (an
// identifier with dots; "" if none follows); white space is isSpace's, the regexp's \s. It
// is the regular expression
//
//	^\s*\.\.\s+(?:\w+:)?(?:function|method|...)::\s*([A-Za-z_][\w.]*)?
//
// written out: docs pages start thousands of lines with "..", and the expression's
// backtracking was most of scoring a page.
func objectDirective(l string) (name string, ok bool) {
	i := skipSpaces(l, 0)
	if !strings.HasPrefix(l[i:], "..") {
		return "", false
	}
	j := skipSpaces(l, i+2)
	if j == i+2 {
		return "", false
	}
	w := wordEnd(l, j)
	if w > j && w < len(l) && l[w] == ':' && (w+1 >= len(l) || l[w+1] != ':') { // a domain
		j = w + 1
		w = wordEnd(l, j)
	}
	if !objectDirectives[l[j:w]] || !strings.HasPrefix(l[w:], "::") {
		return "", false
	}
	k := skipSpaces(l, w+2)
	if k >= len(l) || !(l[k] == '_' || isASCIILetter(l[k])) {
		return "", true
	}
	e := k + 1
	for e < len(l) && (isASCIIWordByte(l[e]) || l[e] == '.') {
		e++
	}
	return l[k:e], true
}

// wordEnd returns the index after the run of ASCII word bytes ([0-9A-Za-z_], the regexp's
// \w) starting at i.
func wordEnd(l string, i int) int {
	for i < len(l) && isASCIIWordByte(l[i]) {
		i++
	}
	return i
}

// entries returns the object entries of lines, nested ones (a class's methods) included.
func entries(lines []string, t tree) []entry {
	var out []entry
	// Blank lines are found once: entries nested without blank lines each scan their whole
	// block for the end of their head, and a line read again per enclosing entry made 2,000
	// nested one-line entries (2 MB) cost 1.7 s.
	var blank []bool
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " \t"), "..") {
			continue
		}
		obj, ok := objectDirective(l)
		if !ok {
			continue
		}
		name := strings.ToLower(obj[strings.LastIndex(obj, ".")+1:])
		if blank == nil {
			blank = make([]bool, len(lines))
			for k, l := range lines {
				blank[k] = isBlank(l)
			}
		}
		e := int(t.end[i])
		j := i + 1
		for j < e && !blank[j] { // continued signatures and options
			j++
		}
		for j < e && blank[j] {
			j++
		}
		for j < e && !blank[j] { // the first paragraph
			j++
		}
		out = append(out, entry{start: i, head: j, end: e, name: name})
	}
	return out
}

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// liftEntries raises the context score of every line of an entry to w times its head's
// relevance (BM25 over the head, lengths normalised by the average head). An entry's block
// score is its whole body's relevance, which a long entry's asides (notes, version changes,
// examples) win as easily as its purpose; a reader picks the entry whose signature and
// summary answer the question and keeps it whole.
//
// An entry named by a goal word ("sum" for "Summing across rows", "iter" for "Iterate over
// a dictionary") adds entryNameWeight times that word's weight and rarity: the name is what
// the entry is about, where a summary's words are often those of every other summary.
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
	typical := typicalRarity(a)
	spans := a.SpanScorer()
	for _, en := range es {
		h := w * (spans.Score(en.start, en.head, avg) + entryNameWeight*a.nameRelevance(en.name, typical))
		if h == 0 {
			continue
		}
		for i := en.start; i < en.end; i++ {
			ctx[i] = max(ctx[i], h)
		}
	}
}

// entryNameWeight scales an entry's name match against its head's relevance. Measured on
// docs.dev with its pages split in halves (scorers/structural/RESULTS.md, docs round two),
// structural at 10 / 20 / 30% of tokens: 0.25 gave half A +0.029 / +0.012 / +0.009, 0.5
// +0.040 / +0.014 / +0.010 (half B +0.006 / +0.011 / −0.004), 0.75 and 1 no more at 20%;
// the name as written alone, without the longer goal words, +0.001 at 20%.
const entryNameWeight = 0.5

// nameRelevance is the weight times the rarity of the goal word that names an object
// (name), 0 if none does. A word names it when it is the name, as written or inflected, or
// a longer prose word that begins with a name of three letters or more: code shortens
// ("iterate" to iter, "summing" to sum, "dictionary" to dict). A goal word the page does not
// hold ("summing") counts as rare as a word on √N of the page's N lines (typical); as rare as
// a word on one line, structural's gain on the confirming half went (−0.001 at 20%).
func (a *Analysis) nameRelevance(name string, typical float64) float64 {
	if len(name) < 3 {
		return 0
	}
	best := 0.0
	for t, term := range a.Query.Terms {
		named := !term.short && !term.Code && strings.HasPrefix(term.Text, name)
		for _, v := range variants(term.Text) {
			named = named || v == name
		}
		if !named {
			continue
		}
		idf := a.IDF[t]
		if idf == 0 {
			idf = typical
		}
		best = max(best, term.Weight*idf)
	}
	return best
}

// typicalRarity is the inverse document frequency of a word on √N of a's N non-blank lines.
func typicalRarity(a *Analysis) float64 {
	n := 0
	for _, l := range a.Length {
		if l > 0 {
			n++
		}
	}
	df := math.Sqrt(float64(n))
	return math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
}
