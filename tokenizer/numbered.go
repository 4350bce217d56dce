package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// Numbered lines. A pruned text with line numbers is made of lines "N│ R" where R is a line
// of the original, whose counts the segment cache already holds (the engine prices every
// original line before it renders the output). Counting such a line again from scratch was
// the largest cost of a prune of a text never seen: its BPE merges are R's, shifted by the
// prefix. countNumbered reuses R's counts instead, exactly:
//
//   - No pre-token crosses the end of "N│": one starting at a digit holds only digits
//     (\p{N}{1,3}), and "│" is a symbol run that stops at the blank after it. When every
//     digit group is one token (prefixBarTokens, checked at load) the prefix's count
//     follows without a scan; otherwise the scanner must find a piece boundary there.
//   - The rest, " "+R, differs from R only in its first pre-tokens: both are scanned side by
//     side until they reach a common piece boundary q. The patterns have no look-behind, so
//     from q on the pre-tokens of " "+R and of R are the same, and
//     count(" "+R) = count(its pieces before q) + count(R) − count(R's pieces before q).
//   - The same holds with a '\n' appended, as long as q comes no later than the start of
//     R's trailing whitespace run (or its last byte): appending a '\n' changes only the
//     pre-token holding that position (see countPair), which then starts at or after q.
//
// Anything else (no cached R, no common boundary within a few pieces, a line break inside
// R) falls back to counting the segment whole. TestCountNumbered and FuzzCountNumbered
// check the result against tiktoken-go.

// linePrefixSep is what follows the line number: "│ " (U+2502 and a blank).
const linePrefixSep = "\u2502 "

// minNumberedRest is the shortest R worth the detour: shorter lines count fast anyway.
const minNumberedRest = 16

// maxSyncPieces bounds the pre-tokens scanned looking for a common boundary.
const maxSyncPieces = 8

// countNumbered returns the counts of key and key+"\n" from the cached counts of R when
// key is "N│ R" (N decimal digits) and R's counts are cached; ok is false otherwise.
func (e *Encoder) countNumbered(key string) (n, nl int, ok bool) {
	p0 := numberedRest(key)
	if p0 < 0 || len(key)-p0-1 < minNumberedRest {
		return 0, 0, false
	}
	r := key[p0+1:]
	ce, cached := e.segs.get(e.segs.hash(r), r)
	if !cached || ce.nl < 0 {
		return 0, 0, false
	}
	delta, ok := e.numberedDelta(key, p0)
	if !ok {
		return 0, 0, false
	}
	return delta + int(ce.n), delta + int(ce.nl), true
}

// CountNumberedLine returns CountLine(numbered) for a line "N│ R" (N decimal digits, R
// without '\n') whose R the caller has priced: restNL must be CountLine(R). It needs no
// cache lookup, so a caller that prices an original's lines (CountLines) counts their
// line-numbered rendering at the cost of scanning each line's first pieces. Any other line
// is counted by CountLine.
//
// An empty line ("N│ ", a sixth of a code file's lines) has no delta of its own (count("N│ ")
// and count("N│ \n") differ from those of "" and "\n" by different amounts), but needs no
// scan either: its pieces are N's digit groups, the bar and " \n".
func (e *Encoder) CountNumberedLine(numbered string, restNL int) int {
	if p0 := numberedRest(numbered); p0 >= 0 {
		if p0 == len(numbered)-1 && e.barTokens >= 0 {
			return e.prefixTokens(p0) + e.blankNL
		}
		if !utf8.ValidString(numbered) {
			return e.CountLine(numbered)
		}
		if delta, ok := e.numberedDelta(numbered, p0); ok {
			return delta + restNL
		}
	}
	return e.CountLine(numbered)
}

// prefixTokens is the count of "N│" for a numbered line whose " "+R starts at p0, when
// barTokens >= 0.
func (e *Encoder) prefixTokens(p0 int) int {
	return (p0-len(linePrefixSep)+1+2)/3 + e.barTokens
}

// numberedRest returns the index of the blank of linePrefixSep in key, where " "+R starts,
// when key is "N│ R" with N of 1 to 10 decimal digits and R without '\n'; else -1.
func numberedRest(key string) int {
	d := 0
	for d < len(key) && d < 10 && key[d] >= '0' && key[d] <= '9' {
		d++
	}
	if d == 0 || len(key) < d+len(linePrefixSep) || key[d:d+len(linePrefixSep)] != linePrefixSep {
		return -1
	}
	p0 := d + len(linePrefixSep) - 1
	if strings.IndexByte(key[p0+1:], '\n') >= 0 {
		return -1
	}
	return p0
}

// numberedDelta returns count(key) − count(R), which is also count(key+"\n") −
// count(R+"\n"), for key "N│ R" with " "+R starting at p0 (see numberedRest); ok is false
// when the pieces do not allow it (see the file's comment).
func (e *Encoder) numberedDelta(key string, p0 int) (delta int, ok bool) {
	r := key[p0+1:]
	if r == "" {
		return 0, false
	}

	// "N│": its pieces must end exactly at p0. They do for every N: a digit starts a run of
	// at most three digits (\p{N}{1,3}), the bar a symbol run that stops at the blank, and
	// no alternative of either pattern starts with a digit or the bar and goes on; so when
	// every digit group is one token the count is known without a scan.
	sk := scanner{s: key, tab: e.tab}
	prefix := 0
	if e.barTokens >= 0 {
		prefix = e.prefixTokens(p0)
	} else {
		for i := 0; i < p0; {
			j := e.next(&sk, i)
			if j > p0 {
				return 0, false
			}
			prefix += e.countPiece(key[i:j])
			i = j
		}
	}

	// " "+R against R, side by side, until a common boundary: k in key, k-p0-1 in r.
	target := e.newlineReach(r)
	sr := scanner{s: r, tab: e.tab}
	k, m := p0, 0 // next piece starts: in key, in r
	ck, cr := 0, 0
	for steps := 0; steps < 2*maxSyncPieces; steps++ {
		if k > p0 && k-p0-1 == m {
			if m > target {
				return 0, false
			}
			return prefix + ck - cr, true
		}
		if k-p0-1 < m {
			j := e.next(&sk, k)
			ck += e.countPiece(key[k:j])
			k = j
		} else {
			j := e.next(&sr, m)
			cr += e.countPiece(r[m:j])
			m = j
		}
		if m > target {
			return 0, false
		}
	}
	return 0, false
}
