package heuristic

import (
	"regexp"
	"strings"
)

// A goal that reports a build failure ("Fix FTBFS with GCC-10", "fix build with gcc 13",
// "Fix compilation with clang 16", "fails to build from source", "-Werror=…") names a
// compiler, a library or a platform, none of which the file says. The fix sits where the
// file declares things: an #include GCC no longer pulls in transitively, `extern` on a
// header's global (GCC 10's -fno-common), a prototype (implicit declarations, C23), a global
// definition. On the Debian fixes' first package half (225 C/C++ files under such a goal),
// the #include lines were 1.2% of the lines and held 11% of the gold (4.0% of them gold, in
// 63 files), the lines isFileScopeDecl finds 1.7% and 17% (4.7% of them gold; the base rate
// is 0.45%); function bodies held 43% of the gold at 0.31% per line. A
// compiler version alone ("gcc-10", "clang 16") counts, since the goals that give one report
// a build failure in all but a few cases; "Fix compiler warnings" does not, its fix being at
// the warned line (structural RESULTS.md, fifty-second round).
var reBuildIntent = regexp.MustCompile(`(?i)ftbfs|fails? to (build|compile)|build (failures?|fix|errors?|issues?|problems?)\b|fix(es|ed)? (the )?(build|compilation\b|compiling\b|compile\b)|compil(e|ation|ing) (error|fail|fix|with|under|on|against)|\b(gcc|clang|g\+\+)[- ]?\d|-Werror\b`)

// AboutBuilds reports whether the goal's first line reports a build failure.
func AboutBuilds(goal string) bool {
	return titleMatches(reBuildIntent, goal)
}

// buildLift is the floor the lines a build goal points at are lifted to, with their own score
// filling the rest. It is below goalKindLift: such a line is gold 4 to 5 times in a hundred,
// while the lines the other kinds find are gold far more often, so a line the goal's words
// match well stays above them. Chosen on the Debian fixes' first half among 0.45, 0.5, 0.6,
// 0.75 and 0.9 (structural at 20% of tokens: +0.0061, +0.0065, +0.0074, +0.0064, +0.0053).
const buildLift = 0.6

// buildLines returns the lines a build goal points at, in order: the import lines
// (reImportLine) and the file-scope declarations (isFileScopeDecl).
func buildLines(lines []string) []int {
	var out []int
	for i, l := range lines {
		if isFileScopeDecl(l) || reImportLine.MatchString(l) {
			out = append(out, i)
		}
	}
	return out
}

// isFileScopeDecl reports whether l declares at file scope in C and C++: it starts at the
// margin with a name and ends in a semicolon (a prototype, a global, a typedef, a `using`),
// a trailing comment allowed, or it starts with extern. Statements in a function body are
// indented in all but odd code; the statement words that are not are left out. It is
// written by hand: the regular expression it replaced took 150 ms over a 2 MB line of
// semicolons (this, 0.1 ms).
func isFileScopeDecl(l string) bool {
	if l == "" || !(l[0] == '_' || isASCIILetter(l[0])) {
		return false
	}
	if hasWord(l, "extern") {
		return true
	}
	for _, w := range statementWords {
		if hasWord(l, w) {
			return false
		}
	}
	if strings.HasSuffix(strings.TrimRight(l, " \t\r"), ";") {
		return true
	}
	// A trailing comment: some comment opener right after a semicolon and blanks.
	for i := 0; ; {
		j := strings.IndexByte(l[i:], '/')
		if j < 0 || i+j+1 >= len(l) {
			return false
		}
		i += j + 1
		if (l[i] == '/' || l[i] == '*') && strings.HasSuffix(strings.TrimRight(l[:i-1], " \t\r"), ";") {
			return true
		}
	}
}

// statementWords start the statements that may stand at the margin in a function body.
var statementWords = [...]string{"return", "case", "default", "break"}

// hasWord reports whether l starts with the word w.
func hasWord(l, w string) bool {
	if !strings.HasPrefix(l, w) {
		return false
	}
	if len(l) == len(w) {
		return true
	}
	c := l[len(w)]
	return !(c == '_' || isASCIILetter(c) || isDigit(c))
}
