package server

// validJSON reports what json.Valid reports, faster on what requests are made of: one long
// string (the text). encoding/json's scanner calls a state function per byte; here a string's
// plain bytes are stepped over with a table lookup each. The grammar is encoding/json's: RFC
// 8259 values with ' ', '\t', '\n', '\r' as whitespace, strings holding no byte below 0x20 and
// only the escapes \" \\ \/ \b \f \n \r \t \uXXXX (any other bytes, invalid UTF-8 included,
// are accepted, as encoding/json accepts them), and at most maxNestingDepth levels of
// arrays and objects. FuzzValidJSON holds it to json.Valid.
func validJSON(b []byte) bool {
	return validJSONDepth(b, maxNestingDepth)
}

// validJSONDepth is validJSON with at most maxDepth levels of arrays and objects.
func validJSONDepth(b []byte, maxDepth int) bool {
	v := validator{b: b, maxDepth: maxDepth}
	i, ok := v.value(skipSpace(b, 0), 0)
	return ok && skipSpace(b, i) == len(b)
}

// maxNestingDepth is encoding/json's limit on nested arrays and objects.
const maxNestingDepth = 10000

type validator struct {
	b        []byte
	maxDepth int
}

// value checks the value at b[i] and returns the index after it.
func (v validator) value(i, depth int) (int, bool) {
	b := v.b
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return v.str(i)
	case c == '{' || c == '[':
		if depth+1 > v.maxDepth {
			return i, false
		}
		inner := func(i int) (int, bool) { return v.value(i, depth+1) }
		if c == '{' {
			return walkObject(b, i, v.str, func(_ []byte, i int) (int, bool) { return inner(i) })
		}
		return walkItems(b, i, ']', inner)
	case c == '-' || (c >= '0' && c <= '9'):
		return v.number(i)
	case c == 't':
		return v.literal(i, "true")
	case c == 'f':
		return v.literal(i, "false")
	case c == 'n':
		return v.literal(i, "null")
	}
	return i, false
}

func (v validator) literal(i int, lit string) (int, bool) {
	if len(v.b)-i < len(lit) || string(v.b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// strPlain marks the bytes a string holds as they are: not '"', not '\\', not a control byte.
var strPlain = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// str checks the string starting at b[i] == '"'.
func (v validator) str(i int) (int, bool) {
	b := v.b
	for i++; i < len(b); {
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default: // a control byte
			return i, false
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at b[i].
func (v validator) number(i int) (int, bool) {
	b := v.b
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, true
}
