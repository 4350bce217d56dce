package structural

import (
	"index/suffixarray"
	"strings"
	"sync"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
)

// An issue often quotes the message the program printed, and the code builds that message
// from a format string: the goal says `TimeSeries object is invalid - expected 'time' as the
// first columns but found 'time'`, the code `raise ValueError("{} object is invalid -
// expected '{}' " "as the first column{} but found '{}'".format(...))`. The quoted-literal
// lift (literals.go) matches whole whitespace tokens only, and the message's words are
// common ones. Cut at its placeholders, the literal's pieces are in the goal verbatim.
//
// Counted before the rule (pieces of 12+ characters and 2+ words found in the goal): swe-bench
// 25 cases, 54 lines, 13 gold and 18 within 3 lines of gold; commits.dev 8 cases, 14 lines, 1
// gold; Debian's 4,111 fixes 10 cases, 19 lines, 1 gold. Most of those swe-bench cases were at
// recall 1 already. Two-word pieces are mostly prose ("data variables", "unconditional skip",
// "configuration option") and lost cases on dev and Debian; three words keep the messages.
// A file often holds near copies of a message (the same head, another ending) that score
// alike on words, and the first wins the tie; so a statement whose literal text is in the goal
// whole ranks first. Structural recall at 10 / 20 / 30% of tokens: swe-bench +0.009 / +0.004
// / 0 (xarray-5131 and astropy-13033 up, none down), commits.dev unchanged, Debian +0.0002 at
// each budget (cyrus-sasl's "DIGEST-MD5 common mech free", none down). A small rule for a rare
// goal, kept because it loses nothing (RESULTS.md, thirty-sixth round).
const (
	// minMessage is the shortest literal piece taken for part of a message, and messageWords
	// the fewest words (two letters or more) it must hold.
	minMessage   = 12
	messageWords = 3
	// messageTop scales every other line when a statement's literal text is in the goal
	// whole: that statement printed the message, and it must rank before the near copies a
	// file often holds (the same message with another ending) that score as high on words.
	messageTop = 0.99
	// minPiece is the shortest piece counted when comparing a statement's literal text with
	// the goal (shorter ones, "'" or ": ", are punctuation).
	minPiece = 3
	// maxStatementLines bounds a statement found by bracket depth (an unbalanced bracket
	// must not make the rest of the file one statement).
	maxStatementLines = 12
	// maxMessageLine: longer lines are data, not code that formats a message.
	maxMessageLine = 2000
	// maxMessageGoal is how much of the goal is searched, as much as the heuristic reads
	// (heuristic.ParseGoal clips there too).
	maxMessageGoal = 64 << 10
	// maxWholeChecks bounds the statements compared whole with the goal (each comparison
	// searches the goal for each of its pieces); a goal quoting more is quoting the file.
	maxWholeChecks = 8
)

// goalText is the goal as liftMessagesIn reads it: its length, and its lowered text with a
// suffix array built on first need. It is the same for every file read with that goal
// (goalTextOf).
type goalText struct {
	n    int // the goal's length
	g    string
	once sync.Once
	idx  *suffixarray.Index
}

func newGoalText(goal string) *goalText {
	return &goalText{n: len(goal), g: strings.ToLower(goal[:min(len(goal), maxMessageGoal)])}
}

// index returns the suffix array of the lowered goal; it is safe for concurrent use.
func (t *goalText) index() *suffixarray.Index {
	t.once.Do(func() { t.idx = suffixarray.New([]byte(t.g)) })
	return t.idx
}

// goalTextKey is the Query.Memo key of a goal's goalText.
type goalTextKey struct{}

// goalTextOf is the goalText of the goal q was parsed from, made once a goal.
func goalTextOf(q *heuristic.Query, goal string) *goalText {
	return q.Memo(goalTextKey{}, func() any { return newGoalText(goal) }).(*goalText)
}

// liftMessagesIn raises, in place, the code lines (not comment[i]) holding a piece of a
// string literal the goal gt reads quotes, split at format placeholders, to literalFloor of
// the best score, when the piece is in at most literalLines statements. A statement whose
// literal pieces are all in the goal ranks first.
func liftMessagesIn(gt *goalText, lines []string, s []float64, comment []bool) {
	if gt.n < minMessage {
		return
	}
	var msgs []piece
	for i, l := range lines {
		if (comment != nil && comment[i]) || len(l) > maxMessageLine {
			continue
		}
		msgs = literalPieces(l, i, msgs, minMessage, messageWords)
	}
	if len(msgs) == 0 {
		return
	}
	g := gt.g
	msgs = inGoal(gt, msgs)
	if len(msgs) == 0 {
		return
	}
	stmt := statementStarts(lines, comment)
	in := map[string][]int{} // piece -> the statements holding it
	for _, p := range msgs {
		st := stmt[p.line]
		if at := in[p.text]; len(at) == 0 || at[len(at)-1] != st {
			in[p.text] = append(at, st)
		}
	}
	best := 0.0
	for _, v := range s {
		best = max(best, v)
	}
	whole := map[int]bool{} // statement -> its literal text is in the goal whole
	var top []int           // lines of such statements
	for _, p := range msgs {
		if len(in[p.text]) > literalLines {
			continue
		}
		s[p.line] = max(s[p.line], literalFloor*best)
		st := stmt[p.line]
		w, ok := whole[st]
		if !ok && len(whole) < maxWholeChecks {
			w = quotedWhole(g, lines, comment, stmt, st)
			whole[st] = w
		}
		if w {
			top = append(top, p.line)
		}
	}
	if len(top) == 0 {
		return
	}
	for i := range s {
		s[i] *= messageTop
	}
	for _, i := range top {
		s[i] = best
	}
}

// quotedWhole reports whether every literal piece of the statement starting at line st is
// in the lowered goal g.
func quotedWhole(g string, lines []string, comment []bool, stmt []int, st int) bool {
	var ps []piece
	for i := st; i < len(lines) && stmt[i] == st; i++ {
		if (comment != nil && comment[i]) || len(lines[i]) > maxMessageLine {
			continue
		}
		ps = literalPieces(lines[i], i, ps, minPiece, 0)
	}
	for _, p := range ps {
		if !strings.Contains(g, p.text) {
			return false
		}
	}
	return len(ps) > 0
}

// piece is a part of a string literal between format placeholders, trimmed and lowered.
type piece struct {
	text string
	line int
}

// literalPieces appends the pieces of at least minLen bytes and minWords words of the string
// literals of line i (quoted with ", ' or `, ended by the same quote or the line's end).
func literalPieces(l string, i int, out []piece, minLen, minWords int) []piece {
	for p := 0; p < len(l); p++ {
		q := l[p]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		e := heuristic.LiteralEnd(l, p)
		out = splitFormat(l[p+1:e], i, out, minLen, minWords)
		p = e
	}
	return out
}

// splitFormat appends the pieces of a literal's content c between placeholders (%s, %(x)s,
// %-10d, {…}, ${…}) and escapes (\n, \").
func splitFormat(c string, i int, out []piece, minLen, minWords int) []piece {
	start := 0
	emit := func(end int) {
		if t := strings.TrimSpace(c[start:end]); len(t) >= minLen && (minWords == 0 || words(t) >= minWords) {
			out = append(out, piece{text: strings.ToLower(t), line: i})
		}
	}
	for p := 0; p < len(c); {
		switch {
		case c[p] == '%':
			emit(p)
			p++
			if p < len(c) && c[p] == '(' {
				for p < len(c) && c[p] != ')' {
					p++
				}
				p++
			}
			for p < len(c) && strings.IndexByte("-+ #0123456789.*lhzjtqL", c[p]) >= 0 {
				p++
			}
			p++ // the verb
			start = min(p, len(c))
		case c[p] == '{' || (c[p] == '$' && p+1 < len(c) && c[p+1] == '{'):
			emit(p)
			for p < len(c) && c[p] != '}' {
				p++
			}
			p++
			start = min(p, len(c))
		case c[p] == '\\':
			emit(p)
			p += 2
			start = min(p, len(c))
		default:
			p++
		}
	}
	if start < len(c) {
		emit(len(c))
	}
	return out
}

// inGoal returns the pieces found in the lowered goal t.g, in order, reusing ps. The first
// fewDistinct distinct pieces are searched for directly; past them, each is looked up in the
// goal's suffix array: linear in the goal and in the pieces whatever they hold. (A one-pass
// scan of the goal keyed by the pieces' first bytes, as codeLinesHolding reads lines, compares
// every piece sharing a head at every position holding it: 10,000 lines `die("could not open
// file %d …")` against a goal quoting them took 50 ms.) Most files hold a few messages, and
// building the array for them cost more than the searches; the array, once built, serves
// every file read with the goal.
func inGoal(t *goalText, ps []piece) []piece {
	found := make(map[string]bool, len(ps))
	out := ps[:0]
	for _, p := range ps {
		f, ok := found[p.text]
		if !ok {
			if len(found) < fewDistinct {
				f = strings.Contains(t.g, p.text)
			} else {
				f = len(t.index().Lookup([]byte(p.text), 1)) > 0
			}
			found[p.text] = f
		}
		if f {
			out = append(out, p)
		}
	}
	return out
}

// fewDistinct is how many distinct pieces inGoal searches the goal for directly.
const fewDistinct = 8

// words counts the space-separated words of t holding two letters or more.
func words(t string) int {
	n := 0
	for f := range strings.FieldsSeq(t) {
		letters := 0
		for i := 0; i < len(f) && letters < 2; i++ {
			if c := f[i] | 0x20; c >= 'a' && c <= 'z' {
				letters++
			}
		}
		if letters >= 2 {
			n++
		}
	}
	return n
}

// statementStarts returns, for each line, the first line of its statement: lines are joined
// while a ( or [ opened outside string literals and comments is not yet closed, up to
// maxStatementLines.
func statementStarts(lines []string, comment []bool) []int {
	start := make([]int, len(lines))
	depth, first := 0, 0
	for i, l := range lines {
		if depth == 0 || i-first >= maxStatementLines {
			first, depth = i, 0
		}
		start[i] = first
		if (comment == nil || !comment[i]) && len(l) <= maxMessageLine {
			depth = max(0, depth+bracketDelta(l))
		}
	}
	return start
}

// bracketDelta is the change of ( and [ depth over l, outside string literals and a
// trailing # or // comment.
func bracketDelta(l string) int {
	d := 0
	for p := 0; p < len(l); p++ {
		switch c := l[p]; c {
		case '"', '\'', '`':
			p = heuristic.LiteralEnd(l, p)
		case '(', '[':
			d++
		case ')', ']':
			d--
		case '#':
			return d
		case '/':
			if p+1 < len(l) && l[p+1] == '/' {
				return d
			}
		}
	}
	return d
}
