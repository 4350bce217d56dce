package tokenizer

import (
	"runtime"
	"strings"
	"unicode/utf8"
)

// Segments. Position p just after a '\n' is a hard split point when the line that
// starts at p begins, after any ' ' and '\t', with a rune c that is not whitespace
// (and, for o200k_base, not '/'). Why: no pre-token starts
// before p and ends after it. A pre-token containing the '\n' is either
// \s*[\r\n]+, which stops after the last line break of its whitespace run and that
// run holds none after p, or the [\r\n]* ([\r\n/]* for o200k) tail of a punctuation
// run, which stops at the blank or at c. No other alternative accepts '\n' (the
// optional leading [^\r\n\p{L}\p{N}] excludes it), and the patterns have no
// look-behind, so the pre-tokens from p on are those of the text from p. Hence
// Count(text) is the sum of the counts of its segments, and each segment's count is
// cached: re-counting known text costs a hash lookup per line.
//
// A segment ends with its '\n' (except at the end of the text). The cache key is
// the segment without that '\n' and an entry holds both counts, with and without
// it, so a line counted alone (as the engine prices lines) and the same line met
// inside a text share one entry. split_test.go checks all of this against
// tiktoken-go.

// Count returns the exact number of tokens of s, special tokens treated as ordinary
// text and invalid UTF-8 bytes as U+FFFD (as tiktoken-go's EncodeOrdinary counts).
func (e *Encoder) Count(s string) int {
	if s == "" {
		return 0
	}
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // what tiktoken-go's regexp2 matching sees
	}
	if !e.cachedWhole(s) {
		return e.countHalves(s)
	}
	// Whole texts come back (an original re-read, the same pruned output): one hash
	// of the text replaces a lookup per line.
	h := e.texts.hash(s)
	if ce, ok := e.texts.get(h, s); ok {
		return int(ce.n)
	}
	n := e.countHalves(s)
	e.texts.put(h, s, n, -1)
	return n
}

// cachedWhole reports whether the whole-text cache keeps s (minCachedText bytes or more, and
// not too large for it).
func (e *Encoder) cachedWhole(s string) bool {
	return len(s) >= minCachedText && e.texts.fits(len(s))
}

// parallelText is the shortest text whose halves are counted at once, on two cores: a
// text never seen costs about 17 ns a byte (6.5 ms for 10,000 lines of code, 0.55 ms for
// 32 KiB, against a few microseconds to start the second goroutine), and it is on the path
// of a prune's answer (a fresh 1,000-line prune's median: 2.1 → 1.8 ms from 128 KiB down).
const parallelText = 32 << 10

// countHalves is countSegments, with the two halves of a long text counted at once when
// there is a second core. The halves meet at a split point, so the sum is exact.
func (e *Encoder) countHalves(s string) int {
	return e.inHalves(s, func(lo, hi int) int { return e.countSegments(s[lo:hi]) })
}

// inHalves returns count(0, len(s)) for a count of s[lo:hi] that adds up over split points:
// for a long text with a second core, as count(0, p) + count(p, len(s)) run at once, p being
// a split point near the middle. A panic in the second half's goroutine is re-raised here.
func (e *Encoder) inHalves(s string, count func(lo, hi int) int) int {
	if len(s) < parallelText || runtime.GOMAXPROCS(0) < 2 {
		return count(0, len(s))
	}
	p := e.splitNear(s, len(s)/2)
	if p <= 0 {
		return count(0, len(s))
	}
	type half struct {
		n     int
		panic any
	}
	done := make(chan half, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- half{panic: v}
			}
		}()
		done <- half{n: count(p, len(s))}
	}()
	n := count(0, p)
	h := <-done
	if h.panic != nil {
		panic(h.panic) // the caller's, as if counted here
	}
	return n + h.n
}

// CountLines returns Count(text) and the CountLine of each of text's lines (text split at
// '\n', without the empty string after a final '\n'; none for ""). On text never seen, a
// line that is a segment of its own (most are) is priced by the same cache entry that
// counts it in the text, so the prices cost no second lookup. A text cached whole keeps its
// lines' prices (lineprices.go): read again, it costs no lookup per line.
func (e *Encoder) CountLines(text string) (int, []int) {
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	costs := make([]int, lines)
	if text == "" {
		return 0, costs
	}
	if !utf8.ValidString(text) {
		e.priceLines(text, costs)
		return e.Count(text), costs
	}
	if !e.cachedWhole(text) {
		return e.countLinesHalves(text, costs), costs
	}
	h := e.texts.hash(text)
	priced := false
	n, ok := e.texts.getExtra(h, text, func(extra []byte) { priced = readLinePrices(extra, costs) })
	switch {
	case ok && priced:
		return n, costs
	case ok: // counted whole by Count: its lines were never priced together
		e.priceLines(text, costs)
	default:
		n = e.countLinesHalves(text, costs)
	}
	e.texts.putExtra(h, text, n, appendLinePrices(nil, costs))
	return n, costs
}

// priceLines fills costs with the CountLine of each of text's lines.
func (e *Encoder) priceLines(text string, costs []int) {
	for i, l := 0, text; i < len(costs); i++ {
		line, rest, _ := strings.Cut(l, "\n")
		costs[i] = e.CountLine(line)
		l = rest
	}
}

// countLinesHalves is countHalves that also fills costs with the CountLine of valid s's lines.
func (e *Encoder) countLinesHalves(s string, costs []int) int {
	return e.inHalves(s, func(lo, hi int) int {
		first := 0
		if lo > 0 {
			first = strings.Count(s[:lo], "\n")
		}
		return e.countLineSegments(s[lo:hi], costs[first:])
	})
}

// countLineSegments is countSegments that also writes the CountLine of s's lines to costs.
func (e *Encoder) countLineSegments(s string, costs []int) int {
	total, line := 0, 0
	e.eachSegment(s, func(key string, nl bool) {
		ce := e.segmentEntry(key)
		total += ce.count(nl)
		line = e.segmentLines(key, ce, costs, line)
	})
	return total
}

// segmentLines writes the CountLine of segment key's lines (ce being key's entry) to
// costs from index line on, and returns the index after them.
func (e *Encoder) segmentLines(key string, ce cacheEntry, costs []int, line int) int {
	if strings.IndexByte(key, '\n') < 0 {
		costs[line] = int(ce.nl)
		return line + 1
	}
	for {
		l, rest, more := strings.Cut(key, "\n")
		costs[line] = e.segment(l, true)
		line++
		if !more {
			return line
		}
		key = rest
	}
}

// splitNear returns the first split point at or after from, within 64 KiB, or 0.
func (e *Encoder) splitNear(s string, from int) int {
	end := min(len(s), from+64<<10)
	for i := from; i < end; {
		q := strings.IndexByte(s[i:end], '\n')
		if q < 0 {
			return 0
		}
		p := i + q + 1
		if p < len(s) && e.splitsAt(s, p) {
			return p
		}
		i = p
	}
	return 0
}

// CountLine returns Count(line + "\n") without building that string: the cost of a
// line with its line break. It shares its cache entry with Count(line). When every
// line of a text but the first starts, after ' ' and '\t', with a rune that is not
// whitespace (for o200k_base, not '/' either), the CountLine of its lines add up to
// Count(text) exactly (Count for a last line without its line break).
func (e *Encoder) CountLine(line string) int {
	if strings.IndexByte(line, '\n') >= 0 || !utf8.ValidString(line) {
		return e.Count(line + "\n")
	}
	return e.segment(line, true)
}

// countSegments returns the count of valid UTF-8 s as the sum of its segments'.
func (e *Encoder) countSegments(s string) int {
	total := 0
	e.eachSegment(s, func(key string, nl bool) { total += e.segment(key, nl) })
	return total
}

// eachSegment calls f with each segment of valid UTF-8 s, in order, without its '\n', and
// whether a '\n' follows it (all but a last one that ends the text without one).
func (e *Encoder) eachSegment(s string, f func(key string, nl bool)) {
	start := 0
	for from := 0; ; {
		q := strings.IndexByte(s[from:], '\n')
		if q < 0 {
			break
		}
		p := from + q + 1
		from = p
		if p < len(s) && !e.splitsAt(s, p) {
			continue
		}
		f(s[start:p-1], true)
		start = p
		if p == len(s) {
			return
		}
	}
	f(s[start:], false)
}

// splitsAt reports whether p (just after a '\n', p < len(s)) is a split point.
func (e *Encoder) splitsAt(s string, p int) bool {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	if p == len(s) {
		return false
	}
	c := s[p]
	if c < utf8.RuneSelf {
		return e.tab[c]&clsSp == 0 && !(e.o200k && c == '/')
	}
	_, _, cls := (&scanner{s: s, tab: e.tab}).at(p)
	return cls&clsSp == 0
}

// segment returns the count of key, followed by "\n" when nl, through the cache.
func (e *Encoder) segment(key string, nl bool) int {
	return e.segmentEntry(key).count(nl)
}

// segmentEntry returns key's counts without and with a "\n", through the cache.
func (e *Encoder) segmentEntry(key string) cacheEntry {
	h := e.segs.hash(key)
	ce, ok := e.segs.get(h, key)
	if !ok {
		n, withNL, fast := e.countNumbered(key)
		if !fast {
			n, withNL = e.countPair(key)
		}
		ce = cacheEntry{n: int32(n), nl: int32(withNL)}
		e.segs.put(h, key, n, withNL)
	}
	return ce
}

// countPair returns the counts of x and of x+"\n" in about one pass. Appending a
// '\n' can only change the pre-tokens from the one holding x's trailing whitespace
// run (or its last rune when there is none): those runs are the only ones that a
// '\n' extends, and the look-ahead (?!\S) sees the end of text and the '\n' alike
// everywhere else. So x+"\n" is x's pre-tokens up to that one, then the
// re-tokenised tail.
func (e *Encoder) countPair(x string) (n, nl int) {
	if x == "" {
		return 0, e.countPlain("\n")
	}
	target := e.newlineReach(x)
	sc := scanner{s: x, tab: e.tab}
	b, before := 0, 0
	for i := 0; i < len(x); {
		j := e.next(&sc, i)
		if i <= target && target < j {
			b, before = i, n
		}
		n += e.countPiece(x[i:j])
		i = j
	}
	return n, before + e.countPlain(x[b:]+"\n")
}

// newlineReach returns the first byte of non-empty x whose pre-token a '\n' appended to x
// can change: the start of x's trailing whitespace run, or x's last byte when it has none.
func (e *Encoder) newlineReach(x string) int {
	t := len(x)
	for t > 0 {
		r, size := utf8.DecodeLastRuneInString(x[:t])
		var cls uint8
		if r < 0x10000 {
			cls = e.tab[r]
		} else {
			cls = classOfSlow(r)
		}
		if cls&clsSp == 0 {
			break
		}
		t -= size
	}
	if t == len(x) {
		return len(x) - 1
	}
	return t
}
