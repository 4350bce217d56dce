package tokenizer

// Hand-written equivalents of the two split patterns, as tiktoken-go v0.1.8 runs them
// with a backtracking engine (leftmost alternative wins, greedy quantifiers give
// back one rune at a time):
//
//	cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	             ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//	o200k_base:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	             [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	             \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Every rune is matched by some alternative and no alternative matches the empty
// string, so the pieces tile the text. Each function returns the end (byte offset)
// of the piece starting at i < len(s).

// nextCL100K returns the end of the cl100k_base piece that starts at i.
func (sc *scanner) nextCL100K(i int) int {
	s := sc.s
	if s[i] == '\'' {
		if k := sc.contraction(i + 1); k > 0 {
			return i + 1 + k
		}
	}
	r, n, c := sc.at(i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c&clsL != 0 {
		return sc.run(i+n, clsL)
	}
	if isP(r, c) {
		if c2, n2 := sc.class(i + n); c2&clsL != 0 {
			return sc.run(i+n+n2, clsL)
		}
	}
	// \p{N}{1,3}
	if c&clsN != 0 {
		return sc.digits(i + n)
	}
	// ' '?[^\s\p{L}\p{N}]+[\r\n]*
	if e := sc.punct(i, r, n, c, false); e > 0 {
		return e
	}
	return sc.space(i)
}

// nextO200K returns the end of the o200k_base piece that starts at i.
func (sc *scanner) nextO200K(i int) int {
	r, n, c := sc.at(i)
	p := isP(r, c) && i+n < len(sc.s)
	if p {
		if e := sc.upperThenLower(i + n); e > 0 {
			return e
		}
	}
	if e := sc.upperThenLower(i); e > 0 {
		return e
	}
	if p {
		if e := sc.upperRun(i + n); e > 0 {
			return e
		}
	}
	if e := sc.upperRun(i); e > 0 {
		return e
	}
	if c&clsN != 0 {
		return sc.digits(i + n)
	}
	if e := sc.punct(i, r, n, c, true); e > 0 {
		return e
	}
	return sc.space(i)
}

// run returns the end of the run of runes having any of the bits in cls from i.
func (sc *scanner) run(i int, cls uint8) int {
	s := sc.s
	for i < len(s) {
		if b := s[i]; b < 0x80 { // the common case, without a call
			if sc.tab[b]&cls == 0 {
				break
			}
			i++
			continue
		}
		c, n := sc.classSlow(i)
		if c&cls == 0 {
			break
		}
		i += n
	}
	return i
}

// digits ends \p{N}{1,3} whose first rune ends at i.
func (sc *scanner) digits(i int) int {
	for k := 1; k < 3 && i < len(sc.s); k++ {
		c, n := sc.class(i)
		if c&clsN == 0 {
			break
		}
		i += n
	}
	return i
}

// punct matches ' '?[^\s\p{L}\p{N}]+[\r\n]* (with '/' in the tail when slash) at i,
// where r, n, c are the rune at i, its size and its classes; 0 when it does not match.
func (sc *scanner) punct(i int, r rune, n int, c uint8, slash bool) int {
	s := sc.s
	j := i
	if r == ' ' {
		j = i + 1
		if j >= len(s) {
			return 0
		}
		cj, nj := sc.class(j)
		if !isQ(cj) {
			return 0
		}
		j += nj
	} else {
		if !isQ(c) {
			return 0
		}
		j = i + n
	}
	for j < len(s) {
		cj, nj := sc.class(j)
		if !isQ(cj) {
			break
		}
		j += nj
	}
	for j < len(s) && (s[j] == '\r' || s[j] == '\n' || slash && s[j] == '/') {
		j++
	}
	return j
}

// space matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, where the rune at i is whitespace.
func (sc *scanner) space(i int) int {
	s := sc.s
	j, last, nl := i, i, -1
	// Blanks first, without the class lookup: indentation is most of the whitespace there is.
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j > i {
		last = j - 1
	}
	for j < len(s) {
		c, n := sc.class(j)
		if c&clsSp == 0 {
			break
		}
		if s[j] == '\r' || s[j] == '\n' {
			nl = j + 1
		}
		last = j
		j += n
	}
	switch {
	case nl > 0: // \s*[\r\n]+ backtracks to the last line break
		return nl
	case j == len(s) || last == i: // \s+(?!\S) at the end, or the single-rune \s+
		return j
	default: // \s+(?!\S) gives back the rune before the non-space
		return last
	}
}

// upperThenLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// followed by an optional contraction at j; 0 when it does not match.
func (sc *scanner) upperThenLower(j int) int {
	k, lastBoth := j, 0
	for k < len(sc.s) {
		c, n := sc.class(k)
		if c&clsUp == 0 {
			break
		}
		k += n
		if c&clsLow != 0 {
			lastBoth = k
		}
	}
	if c, n := sc.class(k); c&clsLow != 0 {
		return sc.suffix(sc.run(k+n, clsLow))
	}
	// The upper run gives back runes until the lower class can match one: the
	// last rune of the run that is in both classes ends the match.
	if lastBoth > 0 {
		return sc.suffix(lastBoth)
	}
	return 0
}

// upperRun matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// followed by an optional contraction at j; 0 when it does not match.
func (sc *scanner) upperRun(j int) int {
	k := sc.run(j, clsUp)
	if k == j {
		return 0
	}
	return sc.suffix(sc.run(k, clsLow))
}

// suffix extends a letter match ending at e by an optional contraction.
func (sc *scanner) suffix(e int) int {
	if e < len(sc.s) && sc.s[e] == '\'' {
		if k := sc.contraction(e + 1); k > 0 {
			return e + 1 + k
		}
	}
	return e
}
