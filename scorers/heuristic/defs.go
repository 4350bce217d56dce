package heuristic

import (
	"regexp"
	"strings"
)

// reDefHeader recognises the header of a definition in the mainstream languages (Python,
// Go, JS/TS, Rust, Ruby, PHP, shell, C-family methods with a body opening on the line).
var reDefHeader = regexp.MustCompile(`^\s*(?:@\w+|(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|func|function|fn|sub|proc|class|interface|struct|enum|trait|impl|module|object)\b|(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?fn\b|(?:public|private|protected|internal|static|override|virtual|final|abstract|\s)*[\w<>\[\],.?]+\s+\w+\s*\([^;]*\)\s*(?:throws\s+[\w.,\s]+)?\{?\s*$|[\w$.]+\s*[:=]\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>))`)

// reMethodHeader is a JS/TS/Java-style method without a return type: "name(args) {" or
// "async name(args): T {"; control-flow keywords are excluded by notMethod.
var reMethodHeader = regexp.MustCompile(`^\s*(?:(?:async|static|get|set|public|private|protected|readonly)\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^;]*\)\s*(?::\s*[^={;]+)?\{\s*$`)

var notMethod = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true, "return": true, "function": true, "else": true, "do": true, "try": true}

// defKeywords start a definition header; only lines starting with one (or shaped like an
// assignment of a function, or a method opening a brace) reach the regexps, which keeps
// scoring linear and fast on control-flow-heavy code.
var defKeywords = map[string]bool{
	"def": true, "async": true, "func": true, "function": true, "fn": true, "class": true, "interface": true,
	"struct": true, "enum": true, "trait": true, "impl": true, "module": true, "object": true, "pub": true,
	"public": true, "private": true, "protected": true, "internal": true, "static": true, "export": true,
	"sub": true, "proc": true, "override": true, "virtual": true, "final": true, "abstract": true, "default": true,
}

// defStarts are the keywords that make a line a definition header on their own: reDefHeader
// matches a line that opens with one of them followed by a word boundary, which firstWord
// guarantees.
var defStarts = map[string]bool{
	"def": true, "func": true, "function": true, "fn": true, "sub": true, "proc": true, "class": true,
	"interface": true, "struct": true, "enum": true, "trait": true, "impl": true, "module": true, "object": true,
}

func firstWord(l string) string {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	j := i
	for j < len(l) && isWordByte(l[j]) {
		j++
	}
	return l[i:j]
}

// maxHeaderRegexp is the longest line the header regexps read. Longer lines (minified code,
// data) cost 70–320 ms a 2 MB line in the regexps, past any deadline, and no written header is
// this long; a line that opens with a definition keyword is still a header at any length.
const maxHeaderRegexp = 4096

func isDefHeader(l string) bool {
	w := firstWord(l)
	// A line opening with a definition keyword is a header: reDefHeader's keyword alternative,
	// without running it. This comes before notMethod, which lists "function" for the method
	// pattern's sake and had kept every JavaScript "function name() {" from being a header.
	if defStarts[w] {
		return true
	}
	if notMethod[w] || w == "" && !strings.Contains(l, "@") || len(l) > maxHeaderRegexp {
		return false
	}
	if defKeywords[w] || strings.HasPrefix(strings.TrimLeft(l, " \t"), "@") {
		return reDefHeader.MatchString(l)
	}
	if !strings.Contains(l, "(") {
		return false
	}
	if strings.Contains(l, "=") && (strings.Contains(l, "function") || strings.Contains(l, "=>")) {
		return reDefHeader.MatchString(l)
	}
	if strings.HasSuffix(strings.TrimRight(l, " \t\r"), "{") {
		if reDefHeader.MatchString(l) {
			return true
		}
		m := reMethodHeader.FindStringSubmatch(l)
		return m != nil && !notMethod[m[1]]
	}
	return false
}

// defKeywordList is the keyword alternation of the definition-name pattern, in its order:
//
//	(?:def|func|function|fn|class|interface|struct|enum|trait|type|sub|module)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)
//	|([A-Za-z_$][\w$]*)\s*(?:[:=]\s*(?:async\s+)?(?:function|\()|<[^>]*>\s*\(|\()
//
// defName matches that pattern by hand (it was a sixth of the heuristic's time on code as a
// regexp); TestDefNameMatchesItsPattern checks it against the regexp.
var defKeywordList = []string{"def", "func", "function", "fn", "class", "interface", "struct", "enum", "trait", "type", "sub", "module"}

// definitions finds, for every line, the innermost enclosing definition header (-1 if none),
// using the indentation tree. Decorators belong to the definition they precede.
func definitions(lines []string, t tree) (def []int32, isHeader []bool) {
	n := len(lines)
	def = make([]int32, n)
	isHeader = make([]bool, n)
	for i, l := range lines {
		isHeader[i] = t.end[i] > int32(i+1) && isDefHeader(l)
	}
	// A parent comes before its children, so its answer is known: a line's innermost
	// definition is itself if it heads one, else its parent's.
	for i := 0; i < n; i++ {
		switch p := t.parent[i]; {
		case isHeader[i]:
			def[i] = int32(i)
		case p >= 0:
			def[i] = def[p]
		default:
			def[i] = -1
		}
	}
	return def, isHeader
}

// defName returns the name a definition header defines, or "": the first (leftmost) position
// where either a keyword followed by a name or a name followed by a call or a function
// assignment starts, the keyword form first at the same position. Linear in the line (a
// minified header can be megabytes long).
func defName(l string) string {
	m := defMatcher{l: l}
	skipTo := 0 // a name failed up to here; later starts inside it end the same way
	for p := 0; p < len(l); p++ {
		if name, ok := m.keywordName(p); ok {
			return name
		}
		if p < skipTo {
			continue
		}
		name, end, ok := m.calledName(p)
		if ok {
			return name
		}
		skipTo = end
	}
	return ""
}

// defMatcher holds one line and the next ')' and '>' found so far, so repeated searches
// from increasing positions stay linear.
type defMatcher struct {
	l                  string
	closeAt, angleAt   int // index of the next ')' / '>' at or after the last query; len(l) if none
	closeFor, angleFor int // the position those were searched from, +1 (0: not yet)
}

// next returns the index of the first c at or after i (len(l) if none), reusing the last
// answer when it is still ahead of i.
func (m *defMatcher) next(c byte, i int, at, from *int) int {
	if *from == 0 || i > *at || i < *from-1 {
		k := strings.IndexByte(m.l[i:], c)
		if k < 0 {
			*at = len(m.l)
		} else {
			*at = i + k
		}
		*from = i + 1
	}
	return *at
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || isASCIILetter(c)
}

func isIdentCont(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func skipSpaces(l string, i int) int {
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	return i
}

// identAt returns the end of the identifier starting at i, or -1 if none starts there.
func identAt(l string, i int) int {
	if i >= len(l) || !isIdentStart(l[i]) {
		return -1
	}
	j := i + 1
	for j < len(l) && isIdentCont(l[j]) {
		j++
	}
	return j
}

// keywordName matches keyword \s+ (receiver)? name at p.
func (m *defMatcher) keywordName(p int) (string, bool) {
	l := m.l
	for _, kw := range defKeywordList {
		if !strings.HasPrefix(l[p:], kw) {
			continue
		}
		i := p + len(kw)
		j := skipSpaces(l, i)
		if j == i {
			continue
		}
		if j < len(l) && l[j] == '(' {
			if k := m.next(')', j, &m.closeAt, &m.closeFor); k < len(l) {
				s := skipSpaces(l, k+1)
				if e := identAt(l, s); e >= 0 {
					return l[s:e], true
				}
			}
			continue
		}
		if e := identAt(l, j); e >= 0 {
			return l[j:e], true
		}
	}
	return "", false
}

// calledName matches name \s* followed by a call, a generic call or a function assignment
// at p. When it fails, end is where the name starting at p ends (p+1 if none starts there).
func (m *defMatcher) calledName(p int) (name string, end int, ok bool) {
	l := m.l
	e := identAt(l, p)
	if e < 0 {
		return "", p + 1, false
	}
	i := skipSpaces(l, e)
	if i >= len(l) {
		return "", e, false
	}
	switch l[i] {
	case '(':
		return l[p:e], e, true
	case '<':
		if k := m.next('>', i, &m.angleAt, &m.angleFor); k < len(l) {
			if j := skipSpaces(l, k+1); j < len(l) && l[j] == '(' {
				return l[p:e], e, true
			}
		}
	case ':', '=':
		j := skipSpaces(l, i+1)
		rest := l[j:]
		if strings.HasPrefix(rest, "async") {
			if k := skipSpaces(l, j+5); k > j+5 && (strings.HasPrefix(l[k:], "function") || strings.HasPrefix(l[k:], "(")) {
				return l[p:e], e, true
			}
		}
		if strings.HasPrefix(rest, "function") || strings.HasPrefix(rest, "(") {
			return l[p:e], e, true
		}
	}
	return "", e, false
}
