package hftok

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

type (
	normalizer   func(string) string
	preTokenizer func(string) []string
)

type typed struct {
	Type string `json:"type"`
}

// parseComponent reads one tokenizer.json component: null is none, a "Sequence" is its
// parts (the list under key) flattened in order, any other type goes to one.
func parseComponent[T any](raw json.RawMessage, key string, one func(typ string, raw json.RawMessage) ([]T, error)) ([]T, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var t typed
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	if t.Type != "Sequence" {
		return one(t.Type, raw)
	}
	var seq map[string]json.RawMessage
	if err := json.Unmarshal(raw, &seq); err != nil {
		return nil, err
	}
	var parts []json.RawMessage
	if list := seq[key]; len(list) > 0 {
		if err := json.Unmarshal(list, &parts); err != nil {
			return nil, err
		}
	}
	var out []T
	for _, r := range parts {
		xs, err := parseComponent(r, key, one)
		if err != nil {
			return nil, err
		}
		out = append(out, xs...)
	}
	return out, nil
}

func parseNormalizer(raw json.RawMessage) ([]normalizer, error) {
	return parseComponent(raw, "normalizers", normalizerOf)
}

// normalizerOf builds a normalizer of type typ (not "Sequence") from its JSON.
func normalizerOf(typ string, raw json.RawMessage) ([]normalizer, error) {
	switch typ {
	case "BertNormalizer":
		var c struct {
			CleanText          bool  `json:"clean_text"`
			HandleChineseChars bool  `json:"handle_chinese_chars"`
			StripAccents       *bool `json:"strip_accents"`
			Lowercase          bool  `json:"lowercase"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		strip := c.Lowercase // HF: strip_accents null follows lowercase
		if c.StripAccents != nil {
			strip = *c.StripAccents
		}
		return []normalizer{func(s string) string {
			if c.CleanText {
				s = cleanText(s)
			}
			if c.HandleChineseChars {
				s = spaceCJK(s)
			}
			if strip {
				s = stripAccents(s)
			}
			if c.Lowercase {
				s = lowercase(s)
			}
			return s
		}}, nil
	case "Lowercase":
		return []normalizer{lowercase}, nil
	case "StripAccents":
		return []normalizer{dropMarks}, nil
	case "NFD":
		return []normalizer{norm.NFD.String}, nil
	case "NFC":
		return []normalizer{norm.NFC.String}, nil
	case "NFKC":
		return []normalizer{norm.NFKC.String}, nil
	case "NFKD":
		return []normalizer{norm.NFKD.String}, nil
	}
	return nil, fmt.Errorf("%w: normalizer %q", ErrUnsupported, typ)
}

// cleanText drops NUL, U+FFFD and control characters and turns every other whitespace into a
// space, as BERT's clean_text does. Tab, newline and carriage return count as whitespace; any
// other control character is dropped even when it is whitespace too (vertical tab, form feed,
// U+0085), since the crate tests for control first (normalizers/bert.rs).
func cleanText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r == 0 || r == 0xFFFD || unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lowercase lowercases s char by char with Unicode's full mapping, as the crate does
// (NormalizedString::lowercase, Rust's char::to_lowercase): that differs from the simple
// mapping strings.ToLower uses only for U+0130, whose lowercase is i and a combining dot above
// (U+0307), two chars; and, char by char, a final capital sigma is σ, not ς.
func lowercase(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// isCJK is the crate's is_chinese_char (normalizers/bert.rs). Its range for extension E
// starts at U+2B920, not at U+2B820 as Google's BERT and the Python tokenizer have it; the
// crate is what a fast tokenizer runs, so U+2B820-U+2B91F are not isolated here either.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

func spaceCJK(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isCJK(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stripAccents is BertNormalizer's: NFD, then every nonspacing mark (Mn) dropped.
func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// dropMarks is the StripAccents normalizer: every combining mark (Mn, Mc and Me) dropped and
// nothing decomposed, as the crate's does (normalizers/strip.rs); a tokenizer.json puts NFD or
// NFKD before it. So unlike BertNormalizer's stripAccents it also drops the vowel signs of
// Indic scripts (Mc) and enclosing marks, and leaves a precomposed é as it is.
func dropMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.M, r) {
			return -1
		}
		return r
	}, s)
}

func parsePreTokenizer(raw json.RawMessage) ([]preTokenizer, error) {
	return parseComponent(raw, "pretokenizers", preTokenizerOf)
}

// preTokenizerOf builds a pre-tokenizer of type typ (not "Sequence") from its JSON.
func preTokenizerOf(typ string, raw json.RawMessage) ([]preTokenizer, error) {
	switch typ {
	case "BertPreTokenizer":
		return []preTokenizer{bertSplit}, nil
	case "WhitespaceSplit":
		return []preTokenizer{strings.Fields}, nil
	case "Whitespace":
		return []preTokenizer{whitespaceSplit}, nil
	case "ByteLevel":
		var c struct {
			AddPrefixSpace bool  `json:"add_prefix_space"`
			UseRegex       *bool `json:"use_regex"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		useRegex := c.UseRegex == nil || *c.UseRegex
		return []preTokenizer{func(s string) []string {
			if c.AddPrefixSpace && !strings.HasPrefix(s, " ") {
				s = " " + s
			}
			words := []string{s}
			if useRegex {
				words = gpt2Split(s)
			}
			for i, w := range words {
				words[i] = byteLevel(w)
			}
			return words
		}}, nil
	}
	return nil, fmt.Errorf("%w: pre_tokenizer %q", ErrUnsupported, typ)
}

func isBertPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

// bertSplit splits on whitespace and isolates every punctuation character.
func bertSplit(s string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			flush()
		case isBertPunct(r):
			flush()
			out = append(out, string(r))
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// whitespaceSplit is HF's Whitespace pre-tokenizer: runs of \w, or runs of [^\w\s].
func whitespaceSplit(s string) []string {
	var out []string
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		if unicode.IsSpace(r) {
			i++
			continue
		}
		j := i + 1
		w := isWord(r)
		for j < len(rs) && !unicode.IsSpace(rs[j]) && isWord(rs[j]) == w {
			j++
		}
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}

// gpt2Split is the GPT-2 pre-tokenization regex
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// written as a scanner, since RE2 has no look-ahead.
func gpt2Split(s string) []string {
	rs := []rune(s)
	n := len(rs)
	var out []string
	class := func(r rune) int {
		switch {
		case unicode.IsLetter(r):
			return 1
		case unicode.IsNumber(r):
			return 2
		case unicode.IsSpace(r):
			return 0
		}
		return 3
	}
	for i := 0; i < n; {
		r := rs[i]
		if r == '\'' {
			rest := string(rs[i+1 : min(n, i+3)])
			matched := false
			for _, c := range []string{"re", "ve", "ll", "s", "t", "m", "d"} {
				if strings.HasPrefix(rest, c) {
					out = append(out, "'"+c)
					i += 1 + len(c)
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		start := i
		if r == ' ' && i+1 < n && class(rs[i+1]) != 0 {
			i++
			r = rs[i]
		}
		c := class(r)
		if c != 0 {
			for i < n && class(rs[i]) == c {
				i++
			}
			out = append(out, string(rs[start:i]))
			continue
		}
		j := i
		for j < n && class(rs[j]) == 0 {
			j++
		}
		switch {
		case j == n:
			out = append(out, string(rs[i:j]))
			i = j
		case j-i >= 2:
			out = append(out, string(rs[i:j-1]))
			i = j - 1
		default:
			out = append(out, string(rs[i:j]))
			i = j
		}
	}
	return out
}

// byteToRune is GPT-2's reversible map from bytes to printable runes.
var byteToRune = func() [256]rune {
	var m [256]rune
	next := rune(256)
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[b] = rune(b)
		} else {
			m[b] = next
			next++
		}
	}
	return m
}()

func byteLevel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(byteToRune[s[i]])
	}
	return b.String()
}
