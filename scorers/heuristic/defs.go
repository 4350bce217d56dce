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

func isDefHeader(l string) bool {
	w := firstWord(l)
	if notMethod[w] || w == "" && !strings.Contains(l, "@") {
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

// reDefName extracts the defined name from a header.
var reDefName = regexp.MustCompile(`(?:def|func|function|fn|class|interface|struct|enum|trait|type|sub|module)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*(?:[:=]\s*(?:async\s+)?(?:function|\()|<[^>]*>\s*\(|\()`)

// definitions finds, for every line, the innermost enclosing definition header (-1 if none),
// using the indentation tree. Decorators belong to the definition they precede.
func definitions(lines []string, t tree) (def []int32, isHeader []bool) {
	n := len(lines)
	def = make([]int32, n)
	isHeader = make([]bool, n)
	for i, l := range lines {
		isHeader[i] = t.end[i] > int32(i+1) && isDefHeader(l)
	}
	for i := 0; i < n; i++ {
		def[i] = -1
		if isHeader[i] {
			def[i] = int32(i)
			continue
		}
		for p := t.parent[i]; p >= 0; p = t.parent[p] {
			if isHeader[p] {
				def[i] = p
				break
			}
		}
	}
	return def, isHeader
}

// defName returns the name a definition header defines, or "".
func defName(l string) string {
	m := reDefName.FindStringSubmatch(l)
	if m == nil {
		return ""
	}
	if m[1] != "" {
		return m[1]
	}
	return m[2]
}
