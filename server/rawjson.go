package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// Requests carry one large string (the text) inside three levels of objects (envelope,
// params, arguments). Decoding each level with encoding/json would scan that string again at
// every level; these helpers split an already validated JSON value into its members with one
// cheap pass, so the text is scanned once when the body is validated (validJSON) and once
// by encoding/json when the arguments are finally decoded into their typed struct.

// objectFields splits raw, which must be valid JSON, into its members when it is an object.
// Later duplicates win, as in encoding/json. ok is false when raw is not an object.
func objectFields(raw []byte) (map[string][]byte, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	out := map[string][]byte{}
	skipKey := func(i int) (int, bool) {
		end := skipString(raw, i)
		return end, end >= 0
	}
	_, ok := walkObject(raw, i, skipKey, func(key []byte, i int) (int, bool) {
		name, ok := unquoteKey(key)
		vend := skipValue(raw, i)
		if !ok || vend < 0 {
			return i, false
		}
		out[name] = raw[i:vend]
		return vend, true
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// arrayItems splits raw, which must be valid JSON, into its items when it is an array.
func arrayItems(raw []byte) ([][]byte, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	var out [][]byte
	_, ok := walkItems(raw, i, ']', func(i int) (int, bool) {
		end := skipValue(raw, i)
		if end < 0 {
			return i, false
		}
		out = append(out, raw[i:end])
		return end, true
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// walkItems steps through the items of the array or object whose opening bracket is b[open]
// (close is its closing one), calling item at the first byte of each; item returns the index
// just past it. The result is the index just past the closing bracket, and whether the
// separators and brackets were where JSON wants them and every item said ok.
func walkItems(b []byte, open int, close byte, item func(i int) (int, bool)) (int, bool) {
	i := skipSpace(b, open+1)
	if i < len(b) && b[i] == close {
		return i + 1, true
	}
	for {
		if i >= len(b) {
			return i, false
		}
		end, ok := item(i)
		if !ok {
			return end, false
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case close:
			return i + 1, true
		default:
			return i, false
		}
	}
}

// walkObject is walkItems over an object's members: skipKey steps over a member's name (at
// its opening quote), and value is called with the raw name, quotes included, and the index
// of the value after the ':'.
func walkObject(b []byte, open int, skipKey func(i int) (int, bool), value func(key []byte, i int) (int, bool)) (int, bool) {
	return walkItems(b, open, '}', func(i int) (int, bool) {
		if b[i] != '"' {
			return i, false
		}
		end, ok := skipKey(i)
		if !ok {
			return end, false
		}
		j := skipSpace(b, end)
		if j >= len(b) || b[j] != ':' {
			return j, false
		}
		return value(b[i:end], skipSpace(b, j+1))
	})
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"', or -1.
// It jumps from quote to quote with bytes.IndexByte (the request's text is one long string,
// scanned several times per request) and counts the backslashes before each: an odd run
// escapes the quote.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		bs := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return -1
}

// skipValue returns the index just past the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// unquoteKey decodes a quoted member name; names without escapes (all real ones) are sliced.
func unquoteKey(q []byte) (string, bool) {
	if len(q) < 2 {
		return "", false
	}
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	// Escapes, or invalid UTF-8 that encoding/json turns into U+FFFD (as the typed decode
	// that follows will): let it decide.
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return "", false
	}
	return s, true
}

// unquoteString decodes a JSON string literal as encoding/json does. The common escapes are
// decoded in one pass; literals with \u escapes or invalid UTF-8 (rare, and where
// encoding/json's replacement rules matter) are handed to encoding/json.
func unquoteString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", errors.New("not a JSON string")
	}
	inner := raw[1 : len(raw)-1]
	esc := bytes.IndexByte(inner, '\\')
	if esc < 0 {
		if utf8.Valid(inner) {
			return string(inner), nil
		}
		return unquoteSlow(raw)
	}
	if bytes.Contains(inner, []byte(`\u`)) || !utf8.Valid(inner) {
		return unquoteSlow(raw)
	}
	// A Builder hands its bytes over as the string: one copy of the text, not two.
	var out strings.Builder
	out.Grow(len(inner))
	for len(inner) > 0 {
		i := bytes.IndexByte(inner, '\\')
		if i < 0 {
			out.Write(inner)
			break
		}
		out.Write(inner[:i])
		if i+1 >= len(inner) {
			return "", errors.New("bad escape")
		}
		switch c := inner[i+1]; c {
		case 'n':
			out.WriteByte('\n')
		case 't':
			out.WriteByte('\t')
		case 'r':
			out.WriteByte('\r')
		case '"', '\\', '/':
			out.WriteByte(c)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		default:
			return "", errors.New("bad escape")
		}
		inner = inner[i+2:]
	}
	return out.String(), nil
}

func unquoteSlow(raw []byte) (string, error) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// appendString appends s as a JSON string literal, escaping only what JSON requires (no HTML
// or non-ASCII escaping, like an Encoder with SetEscapeHTML(false)). s must be valid UTF-8.
func appendString(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				// U+2028 and U+2029, escaped as encoding/json does (JavaScript line terminators).
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\u202`...)
				dst = append(dst, "89"[s[i+2]-0xA8])
				i += 2
				start = i + 1
			}
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// WarnUnicodeReplaced is the warning of a prune whose arguments held what JSON cannot carry
// as text: bytes that are not UTF-8, or a lone UTF-16 surrogate escape ("\ud800", which
// Python writes for a file read with errors="surrogateescape"). encoding/json reads each as
// U+FFFD, so the text pruned, stored and recovered is not byte for byte the one sent.
const WarnUnicodeReplaced = "invalid_unicode_replaced"

// unicodeJSON reports whether the JSON text raw (valid JSON) decodes without a replacement:
// it is UTF-8 and every \u escape of a surrogate is half of a pair.
func unicodeJSON(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	for i := 0; ; {
		k := bytes.IndexByte(raw[i:], '\\')
		if k < 0 {
			return true
		}
		i += k
		if i+1 >= len(raw) {
			return true
		}
		if raw[i+1] != 'u' {
			i += 2 // \n, \", \\ …: never the start of a \u
			continue
		}
		r, ok := hex4(raw, i+2)
		switch {
		case !ok:
			i += 2
		case r >= 0xDC00 && r <= 0xDFFF:
			return false // a low half with no high half before it
		case r >= 0xD800 && r <= 0xDBFF:
			if lo, ok := hex4(raw, i+8); !ok || raw[i+6] != '\\' || raw[i+7] != 'u' || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 12
		default:
			i += 6
		}
	}
}

// hex4 reads the four hexadecimal digits at raw[at:].
func hex4(raw []byte, at int) (rune, bool) {
	if at+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
