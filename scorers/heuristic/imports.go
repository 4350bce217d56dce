package heuristic

import (
	"regexp"
	"strings"
)

// A goal that reports a name the compiler cannot see ("Fix FTBFS with
// -Werror=implicit-function-declaration", "missing include", "'memcpy' was not declared in
// this scope", "cannot find symbol") is fixed where the file declares what it uses: an
// #include, an import, a prototype at the top. The name itself, if the goal gives one, is
// used all over the file; the imports are not named at all. Runtime errors (NameError,
// ImportError, "is not defined") are left out: they report a module or a path at least as
// often as a missing import (pytest-5840's "ImportError while loading conftest" lost 0.2).
var reDeclIntent = regexp.MustCompile(`(?i)implicit[- ](function[- ])?declaration|missing (#?include|import|header|prototype)s?|undeclared|not declared|undefined reference|unresolved import|cannot find symbol`)

// AboutDeclarations reports whether the goal's first line reports an undeclared or
// unimported name.
func AboutDeclarations(goal string) bool {
	return titleMatches(reDeclIntent, goal)
}

// reImportLine matches a line that brings names into a file: C's #include, import and
// from-import (Python, Java, JS, Go's one-line form), C#'s using, Rust's use, CommonJS's
// require at a statement's start.
var reImportLine = regexp.MustCompile(`^\s*(#\s*include\b|import\b|from\s+\S+\s+import\b|using\s+[\w.]+\s*;|use\s+[\w:]+|(const|let|var)\s+[\w{}, ]+=\s*require\(|require\()`)

// importLines returns the lines that import or include names, and the lines of a Go
// import block, in order.
func importLines(lines []string) []int {
	var out []int
	block := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case block:
			if strings.HasPrefix(t, ")") {
				block = false
			}
		case strings.HasPrefix(t, "import (") || t == "import(":
			block = true
		case !reImportLine.MatchString(l):
			continue
		}
		out = append(out, i)
	}
	return out
}
