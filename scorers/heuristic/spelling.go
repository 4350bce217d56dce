package heuristic

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"regexp"
	"strings"
	"sync"
)

// A goal that asks to fix spelling ("docs: fix typo in jsdoc comment", "Fix spelling errors
// in user visible strings", "fix some typos (#1625)") names nothing the fix touches: the
// misspelt word is the only mark on the line, and the goal's own words (fix, typo, docs)
// reach every comment alike. A spell checker finds such lines: a word that is not English
// but one edit away from an English word, and rare in its file (a misspelling is written
// once or twice; a name the code uses is written often). Such lines rank first under a
// spelling goal (Query.AboutSpelling), comments and strings and code alike: lintian's
// "spelling error in binary" fixes edit string literals.
//
// The word list is SCOWL's large American and British lists (scripts/build-words.sh,
// words/README.md for its licence), embedded and loaded once, on the first spelling goal.

//go:embed words/en.txt.gz
var wordsGz []byte

var reSpellingIntent = regexp.MustCompile(`(?i)\b(typos?|misspell\w*|misspelt|spelling|spelt)\b`)

// AboutSpelling reports whether the goal's first line asks to fix spelling.
func AboutSpelling(goal string) bool {
	return titleMatches(reSpellingIntent, goal)
}

const (
	// minMisspelt is the shortest word checked: shorter ones are one edit away from too
	// many words ("teh" aside, four-letter slips are rare in fixes and common in names).
	minMisspelt = 5
	// maxMisspeltUses is how often a word may appear in its file and still be taken for a
	// misspelling rather than a name the code uses (utils, compat, pflag).
	maxMisspeltUses = 3
	// maxSpellSearches bounds the words searched for a one-edit neighbour (about 300 lookups,
	// 25 µs, each): 2 MB of distinct non-words took 7.8 s unbounded. A real 10,000-line file
	// holds a few hundred unknown words; a text with thousands is not prose with slips.
	maxSpellSearches = 2000
)

// span is a byte range [start, end) of a line.
type span struct{ start, end int }

// proseSpans appends to out the parts of code line l that are prose: string literals
// (between matching ", ' or ` quotes, escapes skipped) and a trailing comment (from //, /* or
// a # after a space, outside literals, to the line's end).
func proseSpans(l string, out []span) []span {
	for p := 0; p < len(l); p++ {
		switch c := l[p]; {
		case c == '"' || c == '\'' || c == '`':
			e := LiteralEnd(l, p)
			out = append(out, span{p + 1, e})
			p = e
		case c == '/' && p+1 < len(l) && (l[p+1] == '/' || l[p+1] == '*'),
			c == '#' && p > 0 && (l[p-1] == ' ' || l[p-1] == '\t'):
			return append(out, span{p, len(l)})
		}
	}
	return out
}

// LiteralEnd returns the index of the quote that closes the string literal opened by the
// quote at l[p] (a backslash escapes the byte after it), or len(l) if the line ends first.
func LiteralEnd(l string, p int) int {
	q, e := l[p], p+1
	for e < len(l) && l[e] != q {
		if l[e] == '\\' {
			e++
		}
		e++
	}
	return min(e, len(l))
}

// inSpans reports whether byte offset p of a line lies in one of spans.
func inSpans(spans []span, p int) bool {
	for _, s := range spans {
		if p >= s.start && p < s.end {
			return true
		}
	}
	return false
}

// MisspeltLines returns the indices of the lines of prose (docs) holding a likely
// misspelling, in order: a word (lower case, capitalised or all capitals; not part of an
// identifier, a member, a call or a contraction) of at least minMisspelt letters, used at
// most maxMisspeltUses times in the text, that is not an English word (nor one with an
// inflection's suffix) but is one edit (a letter added, dropped, changed, or two swapped)
// from an English word of four letters or more. At most maxSpellSearches distinct words are
// searched.
func MisspeltLines(lines []string) []int { return misspeltLines(lines, false) }

// misspeltLines is MisspeltLines for code when code is set: only comment lines, string
// literals and trailing comments are read, since a name in code is not English and renaming
// one touches every use (the Debian fixes' second package half at 10 / 20% of tokens,
// structural +0.005 / +0.002 over reading every word, 12 and 11 cases up, 1 and 3 down).
func misspeltLines(lines []string, code bool) []int {
	var comment []bool
	if code {
		comment = CommentLines(lines)
	}
	uses := map[string]int{}
	for _, l := range lines {
		forEachToken(l, func(tok string, _, _ int) {
			if len(tok) >= minMisspelt {
				uses[strings.ToLower(tok)]++
			}
		})
	}
	d := dictionary()
	verdict := map[string]bool{}
	var out []int
	var buf []byte
	searches := 0
	var spans []span
	for i, l := range lines {
		hit := false
		spans = spans[:0]
		if code && !comment[i] {
			spans = proseSpans(l, spans)
			if len(spans) == 0 {
				continue
			}
		}
		forEachToken(l, func(tok string, s, e int) {
			if hit || len(tok) < minMisspelt || !proseWord(l, tok, s, e) || (len(spans) > 0 && !inSpans(spans, s)) {
				return
			}
			w := strings.ToLower(tok)
			if uses[w] > maxMisspeltUses {
				return
			}
			v, ok := verdict[w]
			if !ok {
				if searches == maxSpellSearches {
					return
				}
				var searched bool
				v, searched, buf = d.misspelt(w, buf)
				if searched {
					searches++
				}
				verdict[w] = v
			}
			hit = v
		})
		if hit {
			out = append(out, i)
		}
	}
	return out
}

// forEachToken calls f with each maximal run of word bytes of l (isWordByte: letters,
// digits, underscores, UTF-8) and its bounds.
func forEachToken(l string, f func(tok string, start, end int)) {
	for p := 0; p < len(l); {
		if !isWordByte(l[p]) {
			p++
			continue
		}
		s := p
		for p < len(l) && isWordByte(l[p]) {
			p++
		}
		f(l[s:p], s, p)
	}
}

// proseWord reports whether token tok = l[s:e] reads as a word of prose: letters only, in
// one of prose's shapes (word, Word, WORD: not camelCase), not a call or a contraction's
// head (followed by "(" or "'"), not a member or a variable or an escape (after ".", "$",
// "@" or "\"), and not an object whose member follows ("utils.merge").
func proseWord(l, tok string, s, e int) bool {
	upper := 0
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
		default:
			return false
		}
	}
	if upper != 0 && upper != len(tok) && (upper != 1 || tok[0] > 'Z') {
		return false
	}
	if s > 0 && strings.IndexByte(".$@\\", l[s-1]) >= 0 {
		return false
	}
	if e < len(l) {
		switch l[e] {
		case '(':
			return false
		case '\'':
			if e+1 < len(l) && l[e+1] >= 'a' && l[e+1] <= 'z' { // doesn't, that's
				return false
			}
		case '.':
			if e+1 < len(l) && isWordByte(l[e+1]) {
				return false
			}
		}
	}
	return true
}

// words is the embedded English word list, as a set.
type words map[string]struct{}

var (
	dictOnce sync.Once
	dict     words
)

// dictionary loads the embedded word list on first use (about 134,000 words).
func dictionary() words {
	dictOnce.Do(func() { dict = loadWords() })
	return dict
}

func loadWords() words {
	r, err := gzip.NewReader(bytes.NewReader(wordsGz))
	if err != nil {
		panic("heuristic: embedded word list: " + err.Error()) // a build defect
	}
	b, err := io.ReadAll(r)
	if err != nil {
		panic("heuristic: embedded word list: " + err.Error())
	}
	all := string(b) // one backing string; the set's keys are slices of it
	d := make(words, strings.Count(all, "\n"))
	for w := range strings.SplitSeq(all, "\n") {
		if w != "" {
			d[w] = struct{}{}
		}
	}
	return d
}

// inflections are the suffixes a known word may carry and still be known: word lists hold
// most inflected forms, not all (completions, initializers).
var inflections = [...]string{"s", "es", "ed", "d", "ing", "er", "ers", "ly"}

// known reports whether lower-case w is a word or an inflection of one. An inflection whose
// stem's last letter the list doubles before that suffix is not one: "occured" and
// "begining" are the classic slips for "occurred" and "beginning".
func (d words) known(w string) bool {
	if _, ok := d[w]; ok {
		return true
	}
	for _, suf := range inflections {
		stem, ok := strings.CutSuffix(w, suf)
		if !ok || len(stem) < 3 {
			continue
		}
		if _, ok := d[stem]; !ok {
			continue
		}
		if _, doubled := d[stem+stem[len(stem)-1:]+suf]; !doubled {
			return true
		}
	}
	return false
}

// misspelt reports whether lower-case w is not a word but one edit from a word of four
// letters or more, and whether it searched the edits (w is not a word). buf is scratch
// space, returned for reuse.
func (d words) misspelt(w string, buf []byte) (bool, bool, []byte) {
	if d.known(w) {
		return false, false, buf
	}
	n := len(w)
	try := func(b []byte) bool {
		if len(b) < 4 {
			return false
		}
		_, ok := d[string(b)] // no allocation: the compiler reads the map with the bytes
		return ok
	}
	// Dropped letters and swapped neighbours.
	for i := 0; i < n; i++ {
		buf = append(append(buf[:0], w[:i]...), w[i+1:]...)
		if try(buf) {
			return true, true, buf
		}
		if i+1 < n && w[i] != w[i+1] {
			buf = append(append(append(append(buf[:0], w[:i]...), w[i+1]), w[i]), w[i+2:]...)
			if try(buf) {
				return true, true, buf
			}
		}
	}
	// Changed and added letters.
	for i := 0; i <= n; i++ {
		for c := byte('a'); c <= 'z'; c++ {
			if i < n && c != w[i] {
				buf = append(append(append(buf[:0], w[:i]...), c), w[i+1:]...)
				if try(buf) {
					return true, true, buf
				}
			}
			buf = append(append(append(buf[:0], w[:i]...), c), w[i:]...)
			if try(buf) {
				return true, true, buf
			}
		}
	}
	return false, true, buf
}
