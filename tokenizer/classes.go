package tokenizer

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Character classes used by the split patterns. The reference implementation
// (tiktoken-go, on github.com/dlclark/regexp2) resolves \p{..} with the standard
// library's unicode tables and \s with unicode.IsSpace, so the same tables are used
// here and the two agree for every rune.
const (
	clsL   uint8 = 1 << iota // \p{L}
	clsN                     // \p{N}
	clsSp                    // \s (unicode.IsSpace)
	clsUp                    // o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsLow                   // o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

// bmpClasses holds the classes of every rune below 0x10000; larger runes are looked
// up in the unicode tables directly (they are rare in source code and logs).
var bmpClasses = sync.OnceValue(func() *[0x10000]uint8 {
	t := new([0x10000]uint8)
	mark := func(tab *unicode.RangeTable, bit uint8) {
		for _, r := range tab.R16 {
			for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
				t[c] |= bit
			}
		}
		for _, r := range tab.R32 {
			for c := r.Lo; c <= r.Hi && c < 0x10000; c += r.Stride {
				t[c] |= bit
			}
		}
	}
	mark(unicode.L, clsL)
	mark(unicode.N, clsN)
	for _, tab := range []*unicode.RangeTable{unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M} {
		mark(tab, clsUp)
	}
	for _, tab := range []*unicode.RangeTable{unicode.Ll, unicode.Lm, unicode.Lo, unicode.M} {
		mark(tab, clsLow)
	}
	for c := range rune(0x10000) {
		if unicode.IsSpace(c) {
			t[c] |= clsSp
		}
	}
	return t
})

// classOfSlow computes the classes of r from the unicode tables.
func classOfSlow(r rune) uint8 {
	var c uint8
	if unicode.Is(unicode.L, r) {
		c |= clsL
	}
	if unicode.Is(unicode.N, r) {
		c |= clsN
	}
	if unicode.IsSpace(r) {
		c |= clsSp
	}
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		c |= clsUp
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		c |= clsLow
	}
	return c
}

// scanner walks a valid UTF-8 string rune by rune with class lookups.
type scanner struct {
	s   string
	tab *[0x10000]uint8
}

// at returns the rune at byte offset i, its size and its classes; i must be < len(s).
func (sc *scanner) at(i int) (rune, int, uint8) {
	b := sc.s[i]
	if b < utf8.RuneSelf {
		return rune(b), 1, sc.tab[b]
	}
	r, n := utf8.DecodeRuneInString(sc.s[i:])
	if r < 0x10000 {
		return r, n, sc.tab[r]
	}
	return r, n, classOfSlow(r)
}

// class returns the classes of the rune at i and its size, or (0, 0) at the end.
func (sc *scanner) class(i int) (uint8, int) {
	if i >= len(sc.s) {
		return 0, 0
	}
	if b := sc.s[i]; b < utf8.RuneSelf {
		return sc.tab[b], 1
	}
	return sc.classSlow(i)
}

//go:noinline
func (sc *scanner) classSlow(i int) (uint8, int) {
	_, n, c := sc.at(i)
	return c, n
}

// isP reports membership of [^\r\n\p{L}\p{N}].
func isP(r rune, c uint8) bool { return r != '\r' && r != '\n' && c&(clsL|clsN) == 0 }

// isQ reports membership of [^\s\p{L}\p{N}].
func isQ(c uint8) bool { return c&(clsSp|clsL|clsN) == 0 }

// lowerRune folds r the way regexp2 does for (?i:...): unicode.ToLower.
func lowerRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

// contraction returns the length in bytes of the (?i:s|t|re|ve|m|ll|d) that follows
// an apostrophe at i-1, or 0. Alternatives are tried in the pattern's order.
func (sc *scanner) contraction(i int) int {
	s := sc.s
	if i >= len(s) {
		return 0
	}
	r1, n1 := utf8.DecodeRuneInString(s[i:])
	r1 = lowerRune(r1)
	switch r1 {
	case 's', 't', 'm', 'd':
		return n1
	case 'r', 'v', 'l':
		if i+n1 >= len(s) {
			return 0
		}
		r2, n2 := utf8.DecodeRuneInString(s[i+n1:])
		r2 = lowerRune(r2)
		if (r1 == 'r' || r1 == 'v') && r2 == 'e' || r1 == 'l' && r2 == 'l' {
			return n1 + n2
		}
	}
	return 0
}
