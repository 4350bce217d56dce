package engine

import (
	"regexp"
	"strings"
)

// Protection levels of a line.
const (
	protNone uint8 = iota
	// protRule marks the seed's non-prunable lines (§7.4): always kept without a token
	// budget; under a budget they compete on score and a cut one is reported.
	protRule
	// protHard marks ⟦NO_PRUNE⟧ regions: kept whatever the budget.
	protHard
)

// Directive lines that protect the region between them, both included.
const (
	NoPruneBegin = "⟦NO_PRUNE_BEGIN⟧"
	NoPruneEnd   = "⟦NO_PRUNE_END⟧"
)

var (
	reImport     = regexp.MustCompile(`^\s*(import\b|from\s+[\w.]+\s+import\b|#\s*include\b|using\s+[\w.]+\s*;|use\s+[\w:{}, ]+;|require\s*\(|(const|let|var)\s+[\w{}, ]+\s*=\s*require\s*\(|package\s+[\w.]+|module\s+[\w.]+|namespace\s+[\w.\\]+|extern\s+crate\b|library\s*\()`)
	reDecl       = regexp.MustCompile(`^\s*(@\w|(export\s+)?(default\s+)?(async\s+)?(def|class|func|fn|function|interface|struct|enum|trait|impl|type|module|object)\b|(pub(\([\w:]+\))?\s+)(async\s+)?(fn|struct|enum|trait|mod|type|const)\b|(public|private|protected|internal)\s+(static\s+)?(final\s+)?(abstract\s+)?(class|interface|enum|record|struct)\b)`)
	reHeaderLine = regexp.MustCompile(`^\s*(#!|#|//|/\*|\*|--|;|"""|'''|<\?php|"use strict"|'use strict')`)
	reLogFailure = regexp.MustCompile(`(?i:\berror|\bexception|traceback|\bfatal|\bpanic|\bfailed\b|\bfailure\b|\bFAIL\b)|[A-Za-z](Error|Exception)`)
	reMDHeading  = regexp.MustCompile(`^\s{0,3}#{1,6}(\s|$)`)
	reFence      = regexp.MustCompile("^\\s{0,3}(```+|~~~+)")
)

// protection is protect's answer for one text.
type protection struct {
	prot     []uint8
	joinPrev []bool
}

// protect returns each line's protection level and the atomic units (spans kept or cut
// whole) for a source type: joinPrev[i] means line i belongs to the same unit as line i-1.
func protect(lines []string, st SourceType) protection {
	n := len(lines)
	if n > 0 && strings.HasPrefix(lines[0], "\ufeff") {
		// A byte-order mark is no part of the first line: read with it, \ufeffimport, a
		// licence header and a first heading lost their rules.
		lines = append([]string{lines[0][len("\ufeff"):]}, lines[1:]...)
	}
	prot := make([]uint8, n)
	joinPrev := make([]bool, n)
	unit := joinPrev
	switch {
	case UnifiedDiff(lines):
		// A diff's lines are not the file's: " import (" is context, "-class X" is gone, and
		// the source type's rules would keep them wherever they stand. Its scorers keep each
		// kept line's file and hunk headers with it instead.
		st = ""
	case st == SourceLogs && GitLog(lines):
		// A git log's "fix the error in …" is a commit's subject, not a failure.
		st = ""
	}
	switch st {
	case SourceCode:
		protectCode(lines, prot)
	case SourceLogs:
		protectLogs(lines, prot)
	case SourceDocs:
		protectDocs(lines, prot, unit)
	}
	protectDirectives(lines, prot, unit)
	return protection{prot: prot, joinPrev: joinPrev}
}

func protectCode(lines []string, prot []uint8) {
	// File header: the leading run of comments, shebang and blank lines (bounded).
	for i := 0; i < len(lines) && i < 40; i++ {
		t := strings.TrimSpace(lines[i])
		if t != "" && !reHeaderLine.MatchString(t) {
			break
		}
		if t != "" {
			prot[i] = protRule
		}
	}
	inImportBlock := false
	for i, l := range lines {
		w := leadingWord(l)
		switch {
		case inImportBlock:
			prot[i] = protRule
			if strings.HasPrefix(strings.TrimSpace(l), ")") {
				inImportBlock = false
			}
		case leadingKinds(w)&startsImport != 0 && isImport(w, l):
			prot[i] = protRule
			t := strings.TrimSpace(l)
			// Go "import (" blocks and Python "from x import (" continue to the ")".
			if strings.HasSuffix(t, "(") {
				inImportBlock = true
			}
		case leadingKinds(w)&startsDecl != 0 && isDecl(w, l):
			prot[i] = protRule
		}
	}
}

// Kinds of a line's leading word (leadingKinds).
const (
	startsImport = 1 << iota // a word an import can start with
	startsDecl               // a word a declaration can start with
)

// leadingKinds says whether w can start an import or a declaration; only such lines reach
// the rules' regexps, which keeps them cheap on long files. A switch, not a map: every
// line of a text is asked, and most words are neither.
func leadingKinds(w string) uint8 {
	switch w {
	case "import", "from", "#", "using", "use", "require", "const", "let", "var", "package", "namespace", "extern", "library":
		return startsImport
	case "module":
		return startsImport | startsDecl
	case "@", "export", "default", "async", "def", "class", "func", "fn", "function", "interface", "struct",
		"enum", "trait", "impl", "type", "object", "pub", "public", "private", "protected", "internal":
		return startsDecl
	}
	return 0
}

// isImport is reImport.MatchString(l) for a line whose leadingWord w can start an import,
// answered without the regexp where the word decides: the regexp's backtracker clears state
// in proportion to the line's length, and Go's var and const lines, C's and Python's '#'
// lines are many and long (a tenth of a 10,000-line prune went to these two regexps).
func isImport(w, l string) bool {
	switch w {
	case "import":
		return keywordEnds(l, w) // import\b
	case "const", "let", "var":
		// Only (const|let|var) … = require( starts with these words.
		return strings.Contains(l, "require") && reImport.MatchString(l)
	case "#":
		return strings.Contains(l, "include") && reImport.MatchString(l)
	}
	return reImport.MatchString(l)
}

// isDecl is reDecl.MatchString(l) for a line whose leadingWord w can start a declaration, in
// the same way: a line that starts with one of declKeywords is a declaration when the word
// ends there (\b), whatever follows.
func isDecl(w, l string) bool {
	if declKeywords[w] {
		return keywordEnds(l, w) && !keyOrAssignment(l, w)
	}
	return reDecl.MatchString(l)
}

// keyOrAssignment reports whether the leading word w of l is followed (past spaces) by ':'
// or '=': a YAML or TOML key ("type: ClusterIP", "object = 1") or a variable named like
// the keyword ("type = kind"), not a declaration.
func keyOrAssignment(l, w string) bool {
	i := strings.Index(l, w) + len(w)
	rest := strings.TrimLeft(l[i:], " \t")
	return rest != "" && (rest[0] == ':' && !strings.HasPrefix(rest, "::") || rest[0] == '=' && !strings.HasPrefix(rest, "=="))
}

// declKeywords are the declaration words that reDecl accepts alone, followed by a word
// boundary.
var declKeywords = setOf("def", "class", "func", "fn", "function", "interface", "struct", "enum", "trait", "impl", "type", "module", "object")

// keywordEnds reports whether l's leading word w (leadingWord: letters and '_' after the
// indentation) ends at a word boundary as regular expressions' \b reads it: the byte after
// it is not an ASCII digit (leadingWord stopped at a byte that is no letter or '_').
func keywordEnds(l, w string) bool {
	i := strings.Index(l, w) + len(w) // the first occurrence: only indentation is before it
	return i >= len(l) || l[i] < '0' || l[i] > '9'
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// leadingWord is the first word of l after indentation; a line starting with '#' or '@'
// gives that character, so "#include" and decorators are recognised.
func leadingWord(l string) string {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\f' || l[i] == '\r') { // the rules' \s
		i++
	}
	if i < len(l) && (l[i] == '#' || l[i] == '@') {
		return l[i : i+1]
	}
	j := i
	for j < len(l) && (l[j] == '_' || l[j]|0x20 >= 'a' && l[j]|0x20 <= 'z') {
		j++
	}
	return l[i:j]
}

func protectLogs(lines []string, prot []uint8) {
	passing := PassingTestMessages(lines)
	for i, l := range lines {
		if len(l) > 4096 || !hasFailureWord(l) && !TestFailureMessage(l) || passing != nil && passing[i] {
			continue
		}
		for j := max(0, i-1); j <= min(len(lines)-1, i+1); j++ {
			prot[j] = protRule
		}
	}
}

func protectDocs(lines []string, prot []uint8, joinPrev []bool) {
	for _, f := range docFences(lines) {
		for j := f[0] + 1; j <= f[1]; j++ {
			joinPrev[j] = true
		}
	}
	for i, l := range lines {
		if joinPrev[i] {
			continue // inside a fence, its closer included
		}
		if reMDHeading.MatchString(l) {
			prot[i] = protRule
			continue
		}
		if i+1 < len(lines) && underlines(l, lines[i+1]) {
			prot[i], prot[i+1] = protRule, protRule
			if i > 0 && isRSTRule(lines[i-1]) {
				prot[i-1] = protRule
			}
		}
	}
}

// docFences returns the fenced code blocks of a Markdown text as [opener, closer] line
// indexes. A closer is a line of only the opener's character, at least as many of them.
// Two readings differ from CommonMark's, because a fence is one unit, kept or cut whole:
//   - an opener that is never closed opens no fence (CommonMark runs it to the end of the
//     text, so a text cut short, or a stray rule, would make everything after it one unit
//     that no budget can pay for);
//   - a rule of tildes that underlines a title is a reStructuredText section rule, not an
//     opener (Python's documentation underlines subsections with ~~~~).
//     Backtick rules are left to Markdown: "Run:" above a bare ``` is common there and
//     a backtick section rule is not.
//
// It is linear: a backward pass over the fence lines gives, for each, the longest closer
// after it.
func docFences(lines []string) [][2]int {
	type fenceLine struct {
		line int
		mark string // the character run
		bare int    // the run's length if the line is nothing else (a possible closer), else 0
	}
	var fl []fenceLine
	for i, l := range lines {
		if m := reFence.FindStringSubmatch(l); m != nil {
			f := fenceLine{line: i, mark: m[1]}
			if strings.TrimSpace(l) == strings.TrimSpace(m[0]) {
				f.bare = len(m[1])
			}
			fl = append(fl, f)
		}
	}
	if len(fl) < 2 {
		return nil
	}
	// after[k][c]: the longest bare run of character c (0: backtick, 1: tilde) on the fence
	// lines after fl[k].
	after := make([][2]int, len(fl))
	for k := len(fl) - 2; k >= 0; k-- {
		after[k] = after[k+1]
		if next := fl[k+1]; next.bare > 0 {
			c := fenceChar(next.mark)
			after[k][c] = max(after[k][c], next.bare)
		}
	}
	var out [][2]int
	for k := 0; k < len(fl); k++ {
		f := fl[k]
		if after[k][fenceChar(f.mark)] < len(f.mark) || f.mark[0] == '~' && isRSTTitleRule(lines, f.line) {
			continue
		}
		for j := k + 1; j < len(fl); j++ {
			if fl[j].bare >= len(f.mark) && fl[j].mark[0] == f.mark[0] {
				out = append(out, [2]int{f.line, fl[j].line})
				k = j
				break
			}
		}
	}
	return out
}

// fenceChar is the index of a fence's character in docFences' tables.
func fenceChar(mark string) int {
	if mark[0] == '`' {
		return 0
	}
	return 1
}

// isRSTTitleRule reports whether line i is a reStructuredText section rule under a title
// at the margin. (An overline is not looked for: "~~~", a short line, "~~~" is as likely a
// fence holding one line, and is a small unit either way.)
func isRSTTitleRule(lines []string, i int) bool {
	if i == 0 {
		return false
	}
	t := lines[i-1]
	return t != "" && t[0] != ' ' && t[0] != '\t' && underlines(t, lines[i])
}

// underlines reports whether rule is a reStructuredText section rule under the title line:
// a rule at least as long as the title's text, which is not a rule itself.
func underlines(title, rule string) bool {
	t := strings.TrimSpace(title)
	return t != "" && isRSTRule(rule) && !isRSTRule(title) && len(strings.TrimSpace(rule)) >= len([]rune(t))
}

// protectDirectives protects ⟦NO_PRUNE_BEGIN⟧ … ⟦NO_PRUNE_END⟧ regions, both directive lines
// included, as single units. The directives are read in order wherever they sit in a line, and
// they nest: an END closes the innermost open BEGIN, so a line that names both (prose about the
// directives) is a region of its own line, and a region inside another does not end the outer
// one. An END with no open BEGIN does nothing; a region never closed runs to the end of the
// text (protecting too much loses nothing). A directive counts where it stands as a word of its
// own (directive): in a comment or on a line alone, not quoted or inside a string literal
// ("…\n⟦NO_PRUNE_BEGIN⟧\n…" in a test, or a diff of one), which opened a region that never
// closed and put the rest of the text out of any budget's reach.
func protectDirectives(lines []string, prot []uint8, joinPrev []bool) {
	depth := 0
	for i, l := range lines {
		if depth > 0 {
			prot[i] = protHard
			joinPrev[i] = true
		}
		if !strings.Contains(l, "⟦NO_PRUNE_") {
			continue
		}
		for at := 0; ; {
			b, e := indexFrom(l, NoPruneBegin, at), indexFrom(l, NoPruneEnd, at)
			switch {
			case b >= 0 && (e < 0 || b < e):
				if directive(l, b, len(NoPruneBegin)) {
					depth++
					prot[i] = protHard
				}
				at = b + len(NoPruneBegin)
				continue
			case e >= 0:
				if directive(l, e, len(NoPruneEnd)) {
					depth = max(0, depth-1)
				}
				at = e + len(NoPruneEnd)
				continue
			}
			break
		}
	}
}

// indexFrom is strings.Index(s[from:], sub) as an index into s, or -1.
func indexFrom(s, sub string, from int) int {
	if k := strings.Index(s[from:], sub); k >= 0 {
		return from + k
	}
	return -1
}

// directive reports whether the directive at l[at:at+n] stands as a word of its own: after
// the line's start, white space or comment punctuation (// # /* -- ; <!-- %), and before its
// end, white space or such punctuation (*/ -->). Quotes, backticks, letters and escapes on
// either side make it a mention, not a directive.
func directive(l string, at, n int) bool {
	const punct = "/#*;-!<>%|"
	if at > 0 {
		if c := l[at-1]; c != ' ' && c != '\t' && !strings.ContainsRune(punct, rune(c)) {
			return false
		}
	}
	if end := at + n; end < len(l) {
		if c := l[end]; c != ' ' && c != '\t' && c != '\r' && !strings.ContainsRune(punct, rune(c)) {
			return false
		}
	}
	return true
}

// isRSTRule reports whether l is a reStructuredText section rule: 3+ copies of one
// punctuation character.
func isRSTRule(l string) bool {
	t := strings.TrimRight(l, " \t")
	if len(t) < 3 || !strings.ContainsRune("=-~^\"'`#*+:.", rune(t[0])) {
		return false
	}
	return strings.Count(t, t[:1]) == len(t)
}

// hasFailureWord is reLogFailure without the regexp engine: a case-insensitive scan for
// error, exception, traceback, fatal, panic (each after a word boundary), failed, failure
// and fail (whole words), and Error or Exception ending a longer name (ValueError,
// IOException: seed 7.4 keeps lines "containing" error and exception, and these are the
// lines that say what failed). Logs are long and this runs on every line, so it matters.
func hasFailureWord(l string) bool {
	for i := 0; i < len(l); i++ {
		c := l[i] | 0x20
		if c != 'e' && c != 't' && c != 'f' && c != 'p' {
			continue
		}
		boundaryBefore := i == 0 || !isASCIIWord(l[i-1])
		rest := l[i:]
		switch c {
		case 'e':
			if boundaryBefore && (hasPrefixFold(rest, "error") || hasPrefixFold(rest, "exception")) {
				return true
			}
			if l[i] == 'E' && i > 0 && isASCIILetter(l[i-1]) && (strings.HasPrefix(rest, "Error") || strings.HasPrefix(rest, "Exception")) {
				return true
			}
		case 't':
			if hasPrefixFold(rest, "traceback") {
				return true
			}
		case 'p':
			if boundaryBefore && hasPrefixFold(rest, "panic") {
				return true
			}
		case 'f':
			if !boundaryBefore {
				continue
			}
			if hasPrefixFold(rest, "fatal") {
				return true
			}
			for _, w := range [...]string{"failed", "failure", "fail"} {
				if hasPrefixFold(rest, w) && (len(rest) == len(w) || !isASCIIWord(rest[len(w)])) {
					return true
				}
			}
		}
	}
	return false
}

func isASCIIWord(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// hasPrefixFold reports whether s starts with the lowercase ASCII word w, ignoring case.
func hasPrefixFold(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if s[i]|0x20 != w[i] {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// TestFailureMessage reports whether l is the message of a failing test as its runner prints
// it, which says what went wrong in the test's own words and often holds no failure word:
// go test's "    calc_test.go:52: Sum([1 2 3]) = 5, want 6" (t.Errorf, indented under its
// "=== RUN", often several lines above the "--- FAIL" that names the test) and pytest's
// "E       assert 5 == 6". A log's failure lines are non-prunable (seed 7.4), and the
// heuristic counts these as failure evidence. In logs.dev, 64 of the 71 go test messages
// and all 62 pytest "E" lines are gold.
func TestFailureMessage(l string) bool {
	i, indented := 0, false
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r' || l[i] == 0x1b) {
		if l[i] == 0x1b {
			i = SkipEscape(l, i)
		} else {
			i, indented = i+1, true
		}
	}
	rest := l[i:]
	if !indented {
		// pytest: "E" at the margin (colour codes aside), then two or more spaces.
		return len(rest) >= 4 && rest[0] == 'E' && rest[1] == ' ' && rest[2] == ' '
	}
	// go test: an indented "name_test.go:NN: ".
	k := strings.Index(rest, "_test.go:")
	if k <= 0 || strings.IndexByte(rest[:k], ' ') >= 0 {
		return false
	}
	j := k + len("_test.go:")
	d := j
	for d < len(rest) && rest[d] >= '0' && rest[d] <= '9' {
		d++
	}
	return d > j && strings.HasPrefix(rest[d:], ": ")
}

// GitLog reports whether lines are the output of git log or git show: in the default formats
// the first non-blank line is a commit header, "commit " and 7 to 64 hexadecimal digits,
// alone or before " (" (decorations) or a space (--parents' other hashes); in --oneline the
// first five non-blank lines (or all, if fewer, at least two) each start with an abbreviated
// hash and a space, one of them at least with a letter (not all numbers).
func GitLog(lines []string) bool {
	seen, letters := 0, false // letters: a hash with a-f, not only a number
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if seen == 0 {
			if rest, ok := strings.CutPrefix(l, "commit "); ok {
				h := hexRun(rest)
				return h >= 7 && h <= 64 && (h == len(rest) || rest[h] == ' ')
			}
		}
		h := hexRun(l)
		if h < 7 || h > 40 || h >= len(l) || l[h] != ' ' {
			return false
		}
		letters = letters || strings.Trim(l[:h], "0123456789") != ""
		if seen++; seen == 5 {
			return letters
		}
	}
	return seen >= 2 && letters
}

// hexRun is the length of the run of lower-case hexadecimal digits s starts with.
func hexRun(s string) int {
	h := 0
	for h < len(s) && (s[h] >= '0' && s[h] <= '9' || s[h] >= 'a' && s[h] <= 'f') {
		h++
	}
	return h
}

// UnifiedDiff reports whether lines are a unified diff, as git diff, git show, git log -p and
// diff -u print it: the first non-blank line starts a file's header ("diff ", "--- ",
// "Index: ") or a commit's ("commit <hash>", followed by a diff), and a hunk header
// "@@ -a,b +c,d @@" follows within the first 200 lines.
func UnifiedDiff(lines []string) bool {
	first := -1
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			first = i
			break
		}
	}
	if first < 0 {
		return false
	}
	l := lines[first]
	if !strings.HasPrefix(l, "diff ") && !strings.HasPrefix(l, "--- ") && !strings.HasPrefix(l, "Index: ") && !strings.HasPrefix(l, "commit ") {
		return false
	}
	for _, l := range lines[first:min(len(lines), first+200)] {
		if HunkHeader(l) {
			return true
		}
	}
	return false
}

// HunkHeader reports whether l is a unified diff's hunk header, "@@ -a[,b] +c[,d] @@".
func HunkHeader(l string) bool {
	rest, ok := strings.CutPrefix(l, "@@ -")
	if !ok {
		return false
	}
	k := strings.Index(rest, " @@")
	return k > 0 && strings.Contains(rest[:k], " +") && strings.Trim(rest[:k], "0123456789,+ ") == ""
}

// PassingTestMessages marks the lines of a go test log that are messages (t.Log, t.Errorf:
// "    x_test.go:NN: …") of a test that passed or was skipped: with -v, go test prints every
// test's messages, a passing test's too, which are no failure, whatever words they hold. A
// message belongs to the test of the nearest "=== RUN" (CONT, NAME, PAUSE) above it, whose
// verdict is the next "--- PASS", "--- FAIL" or "--- SKIP" below; without -v a failing
// test's messages follow its "--- FAIL" line. It returns nil when no test passed.
func PassingTestMessages(lines []string) []bool {
	passing, _ := TestMessages(lines)
	return passing
}

// TestMessages reads a go test log's messages as PassingTestMessages does, and also returns,
// for a failing test's messages that -v printed above its verdict, where that verdict is:
// failedAt[i] is the index of the "--- FAIL" line that reports the test whose message line i
// is, or of a line that continues such a message (indented deeper than it: a multi-line
// t.Errorf), and -1 elsewhere. failedAt is nil when there is none. Without -v, or for a
// subtest's messages reported on completion, a failing test's messages follow its "--- FAIL"
// line, and the scorers' block rules already read them with it.
func TestMessages(lines []string) (passing []bool, failedAt []int32) {
	const (
		none = iota
		run
		pass
		fail
	)
	kind := func(l string) int {
		i := 0
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		// Most lines are neither: one byte rules them out (this runs on every line of a log).
		if i+8 > len(l) || l[i] != '=' && l[i] != '-' {
			return none
		}
		t := l[i:]
		switch {
		case strings.HasPrefix(t, "=== RUN") || strings.HasPrefix(t, "=== CONT") || strings.HasPrefix(t, "=== NAME") || strings.HasPrefix(t, "=== PAUSE"):
			return run
		case strings.HasPrefix(t, "--- PASS:") || strings.HasPrefix(t, "--- SKIP:"):
			return pass
		case strings.HasPrefix(t, "--- FAIL:"):
			return fail
		}
		return none
	}
	// One pass: a message under a RUN waits for the next verdict (pending); one after a
	// verdict takes it at once. Lines that continue a pending message wait with it.
	var pending []int
	var continued []int // pending's continuation lines, for failedAt only
	mark := func(i int) {
		if passing == nil {
			passing = make([]bool, len(lines))
		}
		passing[i] = true
	}
	above := none   // the nearest marker above
	msgIndent := -1 // the indentation of the pending message just above, while lines continue it
	for i, l := range lines {
		switch k := kind(l); k {
		case none:
			if (above == run || above == pass) && strings.Contains(l, "_test.go:") && TestFailureMessage(l) {
				if above == pass {
					mark(i)
					msgIndent = -1
				} else {
					pending = append(pending, i)
					msgIndent = indentWidth(l)
				}
				continue
			}
			if msgIndent >= 0 && strings.TrimSpace(l) != "" && indentWidth(l) > msgIndent {
				continued = append(continued, i)
				continue
			}
			msgIndent = -1
		case pass, fail:
			if k == pass {
				for _, m := range pending {
					mark(m)
				}
			} else if len(pending) > 0 {
				if failedAt == nil {
					failedAt = make([]int32, len(lines))
					for j := range failedAt {
						failedAt[j] = -1
					}
				}
				for _, m := range pending {
					failedAt[m] = int32(i)
				}
				for _, m := range continued {
					failedAt[m] = int32(i)
				}
			}
			pending, continued = pending[:0], continued[:0]
			above, msgIndent = k, -1
		default:
			above, msgIndent = k, -1
		}
	}
	return passing, failedAt
}

// indentWidth is the number of leading spaces and tabs of l.
func indentWidth(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}

// SkipEscape returns the index after the terminal control sequence (ESC [ parameters final
// byte) starting at l[i] == ESC, or i+1 for a lone ESC. CI logs colour words: without it
// "\x1b[31merror" reads as the word "31merror" and hides "error". Scorers reading logs call
// it too.
func SkipEscape(l string, i int) int {
	if i+1 >= len(l) || l[i+1] != '[' {
		return i + 1
	}
	j := i + 2
	for j < len(l) && (l[j] < 0x40 || l[j] > 0x7e) {
		j++
	}
	return min(j+1, len(l))
}
