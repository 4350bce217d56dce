package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Requests carry one large string (the text) inside three levels of objects (envelope,
// params, arguments). Decoding each level with encoding/json would scan that string again at
// every level; these helpers split an already validated JSON value into its members with one
// cheap pass, so the text is scanned by encoding/json only when the body is validated and
// when the arguments are finally decoded into their typed struct.

// objectFields splits raw, which must be valid JSON, into its members when it is an object.
// Later duplicates win, as in encoding/json. ok is false when raw is not an object.
func objectFields(raw []byte) (map[string][]byte, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	out := map[string][]byte{}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return out, true
	}
	for i < len(raw) {
		if raw[i] != '"' {
			return nil, false
		}
		end := skipString(raw, i)
		if end < 0 {
			return nil, false
		}
		name, ok := unquoteKey(raw[i:end])
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		vend := skipValue(raw, i)
		if vend < 0 {
			return nil, false
		}
		out[name] = raw[i:vend]
		i = skipSpace(raw, vend)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return out, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// arrayItems splits raw, which must be valid JSON, into its items when it is an array.
func arrayItems(raw []byte) ([][]byte, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	var out [][]byte
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return out, true
	}
	for i < len(raw) {
		end := skipValue(raw, i)
		if end < 0 {
			return nil, false
		}
		out = append(out, raw[i:end])
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return out, true
		default:
			return nil, false
		}
	}
	return nil, false
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
	out := make([]byte, 0, len(inner))
	for len(inner) > 0 {
		i := bytes.IndexByte(inner, '\\')
		if i < 0 {
			out = append(out, inner...)
			break
		}
		out = append(out, inner[:i]...)
		if i+1 >= len(inner) {
			return "", errors.New("bad escape")
		}
		switch inner[i+1] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case '"', '\\', '/':
			out = append(out, inner[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return "", errors.New("bad escape")
		}
		inner = inner[i+2:]
	}
	return string(out), nil
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
