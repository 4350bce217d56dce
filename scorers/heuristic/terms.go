package heuristic

import (
	"strings"
	"unicode"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// A term is a lowercased word: an identifier part (camelCase and snake_case split) or a whole
// identifier. Terms are compared by a 64-bit FNV-1a hash so lines are scanned without
// allocating.
type termHash uint64

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashString(s string) termHash {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return termHash(h)
}

// splitBefore reports whether a new identifier part starts at id[k] (id[k-1] being in the
// current part): lower→upper ("getName"), the last capital of an acronym ("HTTPServer"),
// and letter↔digit boundaries ("utf8Decode"). Table-driven: it runs on every byte of
// every identifier.
func splitBefore(id string, k int) bool {
	c, p := byteClass[id[k]], byteClass[id[k-1]]
	switch c {
	case clsUpper:
		return p == clsLower || p == clsDigit || (p == clsUpper && k+1 < len(id) && byteClass[id[k+1]] == clsLower)
	case clsDigit:
		return p != clsDigit
	}
	return p == clsDigit
}

const (
	clsOther = iota
	clsLower
	clsUpper
	clsDigit
)

var byteClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clsLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clsUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clsDigit
	}
	return t
}()

// wordBytes marks the bytes identifiers are made of (ASCII letters, digits, '_' and every
// byte of a multi-byte UTF-8 character).
var wordBytes = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		t[c] = b == '_' || b >= 0x80 || (b|0x20 >= 'a' && b|0x20 <= 'z') || (b >= '0' && b <= '9')
	}
	return t
}()

// separators are the bytes skipNonWord steps over one at a time: not word bytes, not ESC.
var separators = func() (t [256]bool) {
	for c := range t {
		t[c] = !wordBytes[c] && c != 0x1b
	}
	return t
}()

func isWordByte(c byte) bool { return wordBytes[c] }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

// appendTerms appends the hashes of s's terms to dst: every identifier part (lowercased,
// 2+ bytes) and, for identifiers of several parts (counting one-byte parts, which are not
// terms themselves: handler4, utf8, x86), the whole identifier lowercased without '_'. One
// pass over the bytes, no allocation beyond dst: it runs on every byte of input.
func appendTerms(dst []termHash, s string) []termHash {
	n := len(s)
	for i := 0; ; {
		// Step to the next word: plain separators here (this loop runs on every byte), the
		// rare terminal control sequence through skipNonWord.
		for i < n && separators[s[i]] {
			i++
		}
		if i < n && s[i] == 0x1b {
			i = skipNonWord(s, i)
		}
		if i >= n {
			break
		}
		// Most words start with a run of lower-case letters, and most are nothing else: hash
		// that run alone first, with no part boundary to look for inside it.
		start := i
		part := uint64(fnvOffset)
		for i < n && byteClass[s[i]] == clsLower {
			part = (part ^ uint64(s[i])) * fnvPrime
			i++
		}
		if i >= n || !wordBytes[s[i]] {
			if i-start >= 2 {
				dst = append(dst, termHash(part))
			}
			continue
		}
		// Otherwise part hashes the current part, whole the identifier without '_' (a term
		// when the identifier has several parts), both in the same pass; the run so far is
		// the first part of both.
		whole := part
		partLen, parts := i-start, 0
		for ; i < n && wordBytes[s[i]]; i++ {
			c := s[i]
			if c == '_' {
				if partLen >= 2 {
					dst = append(dst, termHash(part))
				}
				if partLen > 0 {
					parts++
				}
				part, partLen = fnvOffset, 0
				continue
			}
			if partLen > 0 && splitBefore(s, i) {
				if partLen >= 2 {
					dst = append(dst, termHash(part))
				}
				parts++
				part, partLen = fnvOffset, 0
			}
			lc := uint64(lowerBytes[c])
			part = (part ^ lc) * fnvPrime
			whole = (whole ^ lc) * fnvPrime
			partLen++
			// Lower-case letters after anything but a digit never start a part (splitBefore):
			// hash their run here, without the checks above.
			if byteClass[c] != clsDigit {
				for i+1 < n && byteClass[s[i+1]] == clsLower {
					i++
					lc := uint64(s[i])
					part = (part ^ lc) * fnvPrime
					whole = (whole ^ lc) * fnvPrime
					partLen++
				}
			}
		}
		if partLen >= 2 {
			dst = append(dst, termHash(part))
		}
		if partLen > 0 {
			parts++
		}
		if parts > 1 {
			dst = append(dst, termHash(whole))
		}
	}
	return dst
}

// appendTermsFlagged is appendTerms that also appends to emb whether each term is
// embedded: a part followed by another part of the same identifier ("error" in
// onErrorThrown), as opposed to a whole word, an identifier's last part or its whole form.
// Every term of a compound name is embedded too (see compoundName): a config key, a package
// or a file named after errors is no error.
// It reads identifier by identifier, so it is for the few lines that need it, and stops
// after the identifier that brings the terms it appended to upto or more (upto < 0: all).
func appendTermsFlagged(dst []termHash, emb []bool, s string, upto int) ([]termHash, []bool) {
	base := len(dst)
	for i := skipNonWord(s, 0); i < len(s); i = skipNonWord(s, i) {
		if upto >= 0 && len(dst)-base >= upto {
			break
		}
		start := i
		for i < len(s) && wordBytes[s[i]] {
			i++
		}
		from := len(dst)
		dst = appendTerms(dst, s[start:i])
		// An identifier of one part gives at most one term; one of several parts gives its
		// parts of 2+ bytes and then its whole form. So with two terms or more, the last is
		// the whole form and the one before it the last part.
		k := len(dst) - from
		last := k - 1
		if k >= 2 {
			last = k - 2
		}
		compound := compoundName(s, start, i)
		for j := range k {
			emb = append(emb, j < last || compound)
		}
	}
	return dst, emb
}

// compoundName reports whether the identifier s[start:end] is part of a longer name: snake
// case (TRAVIS_ALLOW_FAILURE, connect_failure), joined to another word by '-' or '/'
// (quick-error, symfony/error-handler) or followed by '.' and a letter (error.o,
// Pandoc/Error.hs). A dotted name's last part is not (java.lang.AssertionError: is an
// exception). In logs.dev, failure words so placed ranked build chatter (Compiling
// quick-error, TRAVIS_ALLOW_FAILURE => false, CXX util/libbitcoin_util_a-error.o) above the
// failure; read as embedded, recall at 10 / 20 / 30% rose 0.0033 / 0.0007 / 0.0022 (half A
// 0.0016 / 0.0000 / 0.0004, half B 0.0052 / 0.0015 / 0.0043; logchunks 0.0034 / 0.0006 /
// 0.0022, cidiff 0.0016 / 0.0039 / 0.0030).
func compoundName(s string, start, end int) bool {
	if strings.IndexByte(s[start:end], '_') >= 0 {
		return true
	}
	if start >= 2 && (s[start-1] == '-' || s[start-1] == '/') && wordBytes[s[start-2]] {
		return true
	}
	if end+1 < len(s) && (s[end] == '-' || s[end] == '/') && wordBytes[s[end+1]] {
		return true
	}
	return end+1 < len(s) && s[end] == '.' && s[end+1]|0x20 >= 'a' && s[end+1]|0x20 <= 'z'
}

// skipNonWord returns the index of the first word byte at or after i (len(s) if none),
// stepping over terminal control sequences whole.
func skipNonWord(s string, i int) int {
	for i < len(s) && !wordBytes[s[i]] {
		if s[i] == 0x1b {
			i = engine.SkipEscape(s, i)
		} else {
			i++
		}
	}
	return i
}

// lowerBytes maps ASCII upper-case letters to lower case and every other byte to itself.
var lowerBytes = func() (t [256]byte) {
	for c := range t {
		t[c] = lower(byte(c))
	}
	return t
}()

// identParts returns the lowercase parts (2+ bytes) of an identifier, its joined form, and
// whether it has several parts counting one-byte ones (then the joined form is a term, as
// appendTerms makes it), for goal analysis (which may allocate: goals are short).
func identParts(id string) (parts []string, joined string, multi bool) {
	var cur strings.Builder
	var all strings.Builder
	segs := 0
	flush := func() {
		if cur.Len() >= 2 {
			parts = append(parts, cur.String())
		}
		if cur.Len() > 0 {
			segs++
		}
		cur.Reset()
	}
	for k := 0; k < len(id); k++ {
		c := id[k]
		if c == '_' {
			flush()
			continue
		}
		if cur.Len() > 0 && splitBefore(id, k) {
			flush()
		}
		cur.WriteByte(lower(c))
		all.WriteByte(lower(c))
	}
	flush()
	return parts, all.String(), segs > 1
}

// IsCodeLike reports whether a word is written as an identifier: an underscore, or a capital
// after a lowercase letter (camelCase; not an acronym such as "JSON").
func IsCodeLike(w string) bool {
	if strings.ContainsAny(w, "_") {
		return true
	}
	hasLower, hasUpperAfter := false, false
	for i, r := range w {
		if unicode.IsLower(r) {
			hasLower = true
		}
		if i > 0 && unicode.IsUpper(r) && hasLower {
			hasUpperAfter = true
		}
	}
	return hasUpperAfter
}

// variants returns simple inflections of an English word so "directories" in a page matches
// "directory" in a goal without stemming every line.
func variants(w string) []string {
	out := []string{w}
	if len(w) < 4 || !isASCIIAlpha(w) {
		return out
	}
	add := func(s string) {
		if len(s) >= 3 {
			out = append(out, s)
		}
	}
	switch {
	case strings.HasSuffix(w, "ies"):
		add(w[:len(w)-3] + "y")
	case strings.HasSuffix(w, "ses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		add(w[:len(w)-2])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		add(w[:len(w)-1])
	case strings.HasSuffix(w, "y"):
		add(w[:len(w)-1] + "ies")
		add(w + "s")
	default:
		add(w + "s")
	}
	if strings.HasSuffix(w, "ing") {
		add(w[:len(w)-3])
		add(w[:len(w)-3] + "e")
	} else if strings.HasSuffix(w, "ed") {
		add(w[:len(w)-2])
		add(w[:len(w)-1])
	} else if !strings.HasSuffix(w, "s") {
		base := strings.TrimSuffix(w, "e")
		add(base + "ing")
		add(base + "ed")
	}
	return out
}

func isASCIIAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
