package engine

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHasFailureWordMatchesTheRegexp checks the hand-written scan against the regexp it
// replaces, on chosen lines and on random ones built from the words' pieces.
func TestHasFailureWordMatchesTheRegexp(t *testing.T) {
	lines := []string{
		"", "ERROR: x", "xerror", "error_code", "Errors: 0", "some Exception here", "Traceback (most", "mytraceback",
		"FATAL", "nonfatal", "panic: boom", "unpanic", "failed", "FAILED.", "failedx", "failure", "failures", "FAIL",
		"fail_fast", "FAIL:", "_fail", "1fail", "é failed", "tests fail", "faile", "Ｅrror", "\x00error", "ﬁle fail",
		"ValueError: bad", "java.lang.IllegalStateException", "IOException", "onError", "_Error", "1Error", "xERROR", "Errors",
	}
	pieces := []string{"err", "or", "ERR", "OR", "fail", "ed", "ure", "FA", "IL", "trace", "back", "fatal", "panic", "exception", "Error", "Exception", "Value", "E",
		" ", "_", ".", "x", "1", ":", "é", "\t", "ı", "K"}
	r := rand.New(rand.NewPCG(7, 9))
	for i := 0; i < 20000; i++ {
		var b []byte
		for j := r.IntN(6); j >= 0; j-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		lines = append(lines, string(b))
	}
	for _, l := range lines {
		if got, want := hasFailureWord(l), reLogFailure.MatchString(l); got != want {
			t.Fatalf("hasFailureWord(%q) = %v, regexp says %v", l, got, want)
		}
	}
}

func TestDocFences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want [][2]int
	}{
		{"backticks with an info string", "a\n```go\nx := 1\n```\nb", [][2]int{{1, 3}}},
		{"tildes, closed by a longer run", "~~~\ncode\n~~~~~\nb", [][2]int{{0, 2}}},
		{"a shorter run or other character does not close", "````\n```\n~~~~\n````", [][2]int{{0, 3}}},
		{"a closer has nothing else on its line", "```\n``` not yet\n```", [][2]int{{0, 2}}},
		{"an opener never closed opens nothing", "intro\n```\nthe rest\nof the text", nil},
		{"an unclosed opener leaves the fences after it", "````\na\n```\nb\n```", [][2]int{{2, 4}}},
		{"reStructuredText subsections underlined with tildes", "Title one\n~~~~~~~~~\ntext\n\nTitle two\n~~~~~~~~~\nmore", nil},
		{"a tilde fence after a blank line is a fence", "Title\n\n~~~\ncode\n~~~", [][2]int{{2, 4}}},
		{"a backtick fence right under a short line is a fence", "Run:\n```\nmake\n```", [][2]int{{1, 3}}},
		{"an indented line above is not a title", "  code()\n~~~\nx\n~~~", [][2]int{{1, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, docFences(strings.Split(tt.text, "\n")))
		})
	}
}

// FuzzDocFences checks the linear docFences against the direct reading: from each opener,
// look for its closer; none found, it opens nothing.
func FuzzDocFences(f *testing.F) {
	f.Add("a\n```go\nx\n```\n~~~\nT\n~~~~\n````\n```")
	f.Add("Title\n~~~~~\n```\n~~~\n~~~\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Split(text, "\n")
		var want [][2]int
		for i := 0; i < len(lines); i++ {
			m := reFence.FindStringSubmatch(lines[i])
			if m == nil || m[1][0] == '~' && isRSTTitleRule(lines, i) {
				continue
			}
			for j := i + 1; j < len(lines); j++ {
				c := reFence.FindStringSubmatch(lines[j])
				if c != nil && strings.HasPrefix(c[1], m[1]) && strings.TrimSpace(lines[j]) == strings.TrimSpace(c[0]) {
					want = append(want, [2]int{i, j})
					i = j
					break
				}
			}
		}
		assert.Equal(t, want, docFences(lines))
	})
}

// protectCodeCases are lines whose first word reaches the import and declaration rules.
var protectCodeCases = []string{
	"import os", "import", "import2 = 1", "  import (", "importx", "import\tfoo", "import_x",
	"from a.b import c", "from . import x", "from x importy",
	"#include <stdio.h>", "# include \"a.h\"", "#includes", "# see the include list", "#", "# comment",
	"using System.Text;", "using x", "use std::io;", "use strict", "require('x')", "require (x)",
	"const x = require('y')", "const { a, b } = require(\"c\")", "var x = 1", "let y=require(z)", "const x = requirex()",
	"var require = 1", "const x = 'require('", "package main", "package", "module Foo", "module.exports = x",
	"namespace App\\Http;", "extern crate serde;", "library(dplyr)", "library",
	"def f(x):", "def", "def2 = 1", "class Foo:", "class_ = 1", "func (r *T) Close() error {", "func", "func9", "funcé",
	"fn main() {", "function f() {", "interface I {", "struct S {", "enum E {", "trait T {", "impl X for Y {",
	"type T struct {", "type", "typeé", "module M", "object O {", "@decorator", "@", "@ x", "@1",
	"export default async function f() {", "export const x = 1", "export class A", "default function", "async def f():",
	"async x", "pub fn f()", "pub(crate) struct S", "pub(crate)x", "pub const X", "public static final class A",
	"public void f()", "private interface I", "protected", "internal enum E", "internal x",
	"\tfunc f() {", "    class A:", " \tdef g():", "func\x80", "type\f", "\fimport os", "\r\tdef f():",
}

// TestImportAndDeclRulesAgreeWithTheRegexps: isImport and isDecl answer for the regexps
// without running them where a line's first word decides; they must agree on every line
// that reaches them.
func TestImportAndDeclRulesAgreeWithTheRegexps(t *testing.T) {
	for _, l := range protectCodeCases {
		checkImportAndDeclRules(t, l)
	}
	assert.True(t, isImport("import", "import os"))
	assert.True(t, isDecl("func", "func main() {"))
	assert.False(t, isImport("var", "var x = 1"))
	for _, l := range []string{"type: ClusterIP", "  type: object", "object = 1", "class := 2", "type = kind"} {
		assert.False(t, isDecl(leadingWord(l), l), l)
	}
	for _, l := range []string{"type Server struct {", "type A = B", "func (s *S) f()", "impl<T> X for Y", "class A:", "type::X"} {
		assert.True(t, isDecl(leadingWord(l), l), l)
	}
}

func checkImportAndDeclRules(t *testing.T, l string) {
	t.Helper()
	w := leadingWord(l)
	if leadingKinds(w)&startsImport != 0 {
		if got, want := isImport(w, l), reImport.MatchString(l); got != want {
			t.Fatalf("isImport(%q) = %v, the regexp says %v", l, got, want)
		}
	}
	if leadingKinds(w)&startsDecl != 0 {
		// A keyword that is a key or a variable ("type: ClusterIP") is no declaration, which
		// the regexp does not know.
		if got, want := isDecl(w, l), reDecl.MatchString(l) && !(declKeywords[w] && keyOrAssignment(l, w)); got != want {
			t.Fatalf("isDecl(%q) = %v, the regexp says %v", l, got, want)
		}
	}
	// The prefilter must let through every line the regexps take (their \s is wider than
	// spaces and tabs: "\fimport os" lost its protection when the prefilter came).
	if leadingKinds(w)&startsImport == 0 && reImport.MatchString(l) {
		t.Fatalf("%q: the regexp takes it for an import, but its leading word %q never reaches the rule", l, w)
	}
	if leadingKinds(w)&startsDecl == 0 && reDecl.MatchString(l) {
		t.Fatalf("%q: the regexp takes it for a declaration, but its leading word %q never reaches the rule", l, w)
	}
}

func FuzzImportAndDeclRules(f *testing.F) {
	for _, l := range protectCodeCases {
		f.Add(l)
	}
	f.Fuzz(checkImportAndDeclRules)
}

// containsFoldByWindow is containsFold as it was: every start whose byte matches sub's first
// ASCII-case-insensitively, the window compared with strings.EqualFold.
func containsFoldByWindow(s, sub string) bool {
	if sub == "" {
		return true
	}
	for i := 0; i < len(sub); i++ {
		if sub[i] >= 0x80 {
			return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
		}
	}
	first := sub[0] | 0x20
	isLetter := first >= 'a' && first <= 'z'
	for i := 0; i+len(sub) <= len(s); i++ {
		if c := s[i]; c != sub[0] && !(isLetter && c|0x20 == first) {
			continue
		}
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func checkContainsFold(t *testing.T, s, sub string) {
	t.Helper()
	if got, want := containsFold(s, sub), containsFoldByWindow(s, sub); got != want {
		t.Fatalf("containsFold(%q, %q) = %v, the window search says %v", s, sub, got, want)
	}
}

// TestContainsFold checks the IndexByte search against the window-by-window one it
// replaced, on chosen cases (Unicode folds of ASCII letters, '@' and '`', which differ from
// letters by 0x20 too) and on random strings of a few pieces.
func TestContainsFold(t *testing.T) {
	cases := [][2]string{{"", ""}, {"abc", ""}, {"", "a"}, {"Hello", "hello"}, {"xKy", "k"}, {"xKy", "ky"},
		{"ſ", "s"}, {"@x", "`x"}, {"`X", "`x"}, {"aaaaAAAAb", "ab"}, {"AAAAaaaaB", "ab"}, {"closeIdleConns()", "closeidleconns"},
		{"a", "ab"}, {"ba", "ab"}, {"[x]", "[X]"}, {"é", "é"}, {"É", "é"}}
	for _, c := range cases {
		checkContainsFold(t, c[0], c[1])
	}
	pieces := []string{"a", "A", "b", "B", "k", "K", "s", "ſ", "@", "`", "[", "{", " ", "é", "\xff", "z", "Z", "1"}
	r := rand.New(rand.NewPCG(5, 39))
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 100000 {
		checkContainsFold(t, word(r.IntN(12)), word(1+r.IntN(3)))
	}
}

func FuzzContainsFold(f *testing.F) {
	f.Add("closeIdleConns()", "closeidle")
	f.Add("xKy", "k")
	f.Fuzz(checkContainsFold)
}

// TestProtectDirectives checks which lines the ⟦NO_PRUNE⟧ directives protect and which join
// the line above into one unit. Prose naming both directives on one line once protected the
// rest of the text (README.md's own mention did), and a region nested in another ended both.
func TestProtectDirectives(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		protected string // one character a line: p protected, . not
		joined    string // one character a line: j joined to the line above, . not
	}{
		{"a region, both directive lines included", "a\n⟦NO_PRUNE_BEGIN⟧\nb\n⟦NO_PRUNE_END⟧\nc", ".ppp.", "..jj."},
		{"prose naming both directives is a region of its own line", "a\nwrap it in ⟦NO_PRUNE_BEGIN⟧ and ⟦NO_PRUNE_END⟧ lines\nb\nc", ".p..", "...."},
		{"quoted directives are mentions", "a\nwrap it in `⟦NO_PRUNE_BEGIN⟧` lines\nb\nc", "....", "...."},
		{"a directive in a string literal is a mention", "f.Add(\"a\\n⟦NO_PRUNE_BEGIN⟧\\nx\\n\")\nb\nc", "...", "..."},
		{"a diff of a directive is a mention", "+⟦NO_PRUNE_BEGIN⟧\nb\nc", "...", "..."},
		{"directives in comments of every kind", "/*⟦NO_PRUNE_BEGIN⟧*/\nb\n<!-- ⟦NO_PRUNE_END⟧ -->\n-- ⟦NO_PRUNE_BEGIN⟧\nc\n;⟦NO_PRUNE_END⟧\r\nd", "pppppp.", ".jj.jj."},
		{"nested regions end with the outer END", "⟦NO_PRUNE_BEGIN⟧\nx\n⟦NO_PRUNE_BEGIN⟧\ny\n⟦NO_PRUNE_END⟧\nouter\n⟦NO_PRUNE_END⟧\nz", "ppppppp.", ".jjjjjj."},
		{"an END with no BEGIN does nothing", "a\n⟦NO_PRUNE_END⟧\n⟦NO_PRUNE_BEGIN⟧\nb\n⟦NO_PRUNE_END⟧\nc", "..ppp.", "...jj."},
		{"END then BEGIN on one line inside a region keeps it open", "⟦NO_PRUNE_BEGIN⟧\n⟦NO_PRUNE_END⟧ ⟦NO_PRUNE_BEGIN⟧\nx\n⟦NO_PRUNE_END⟧\ny", "pppp.", ".jjj."},
		{"a region never closed runs to the end", "a\n⟦NO_PRUNE_BEGIN⟧\nb\nc", ".ppp", "..jj"},
		{"directives inside other text still count", "a\n// ⟦NO_PRUNE_BEGIN⟧ keep\nb\n# ⟦NO_PRUNE_END⟧\nc", ".ppp.", "..jj."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(tt.text, "\n")
			prot := make([]uint8, len(lines))
			joined := make([]bool, len(lines))
			protectDirectives(lines, prot, joined)
			var gotProt, gotJoined strings.Builder
			for i := range lines {
				gotProt.WriteByte(mark(prot[i] == protHard, 'p'))
				gotJoined.WriteByte(mark(joined[i], 'j'))
			}
			assert.Equal(t, tt.protected, gotProt.String())
			assert.Equal(t, tt.joined, gotJoined.String())
		})
	}
}

func mark(set bool, c byte) byte {
	if set {
		return c
	}
	return '.'
}

func TestTestFailureMessage(t *testing.T) {
	for l, want := range map[string]bool{
		"    calc_test.go:52: Sum([1 2 3]) = 5, want 6": true,
		"\tpkg/parse_test.go:7: got nil":                true,
		"\x1b[31m    calc_test.go:52: bad\x1b[0m":       true,
		"E       assert 3 == 4":                         true,
		"\x1b[1m\x1b[31mE       AssertionError\x1b[0m":  true,
		"calc_test.go:52: at the margin":                false, // go test indents them
		"    calc_test.go: no line":                     false,
		"    calc_test.go:52 no colon":                  false,
		"    see my calc_test.go:52: in prose":          false,
		"  E       indented":                            false,
		"Error: something":                              false,
		"E":                                             false,
		"    calc.go:10: adding 1":                      false,
	} {
		assert.Equal(t, want, TestFailureMessage(l), "%q", l)
	}
}

// TestPassingTestMessages: go test -v prints every test's messages; those of a test that
// passed or was skipped are no failure, those of a failing test are, with or without -v.
func TestPassingTestMessages(t *testing.T) {
	verbose := []string{
		"=== RUN   TestClamp",
		"    clamp_test.go:12: clamp(5, 0, 3) = 3",
		"--- PASS: TestClamp (0.00s)",
		"=== RUN   TestSum",
		"    sum_test.go:20: Sum([1 2 3]) = 5, want 6",
		"--- FAIL: TestSum (0.00s)",
		"=== RUN   TestSkip",
		"    skip_test.go:8: needs network",
		"--- SKIP: TestSkip (0.00s)",
		"=== RUN   TestOuter",
		"=== RUN   TestOuter/inner",
		"    outer_test.go:30: got 1",
		"--- FAIL: TestOuter (0.00s)",
		"    --- FAIL: TestOuter/inner (0.00s)",
		"FAIL",
	}
	assert.Equal(t, []bool{false, true, false, false, false, false, false, true, false, false, false, false, false, false, false}, PassingTestMessages(verbose))
	quiet := []string{"--- FAIL: TestSum (0.00s)", "    sum_test.go:20: Sum([1 2 3]) = 5, want 6", "FAIL", "FAIL\texample.com/sum\t0.01s"}
	assert.Nil(t, PassingTestMessages(quiet), "without -v only failing tests print messages")
	_, failedAt := TestMessages(quiet)
	assert.Nil(t, failedAt, "without -v a failing test's messages follow its verdict")
	prot := make([]uint8, len(verbose))
	protectLogs(verbose, prot)
	assert.Zero(t, prot[1], "a passing test's message is not protected")
	assert.Equal(t, protRule, prot[4], "a failing test's message is")
}

// TestGitLogIsRecognised: git log's and git show's default formats, decorated, with
// parents or CRLF, are a git log; prose about a commit, a one-line log and a CI log are not.
func TestGitLogIsRecognised(t *testing.T) {
	for _, first := range []string{
		"commit 951dcae85fac64bc705ac0c14f5c96c9eccfb7bd",
		"commit 951dcae85fac64bc705ac0c14f5c96c9eccfb7bd (HEAD -> main, origin/main)",
		"commit 951dcae85fac64bc705ac0c14f5c96c9eccfb7bd 508ef06218fe15d8544668a2c3355156943def04",
		"commit 951dcae\r",
	} {
		assert.True(t, GitLog([]string{"", first, "Author: A <a@example.org>"}), first)
	}
	for _, first := range []string{
		"commit message too long",
		"commit 951dca",
		"commit 951dcae85fac64bc705ac0c14f5c96c9eccfb7bd:",
		"951dcae /prune: query is required",
		"Run actions/checkout@v4",
		"  commit 951dcae85fac64bc705ac0c14f5c96c9eccfb7bd",
	} {
		assert.False(t, GitLog([]string{first, "commit 951dcae85fac64bc705ac0c14f5c96c9eccfb7bd"}), first)
	}
	assert.False(t, GitLog([]string{"", "  "}))
	oneline := []string{"4c29230 heuristic: a goal's identifiers may hold letters of any script", "2b4be85 (HEAD -> main) engine: markers", "18187b9 logs: passing tests"}
	assert.True(t, GitLog(oneline), "--oneline")
	assert.False(t, GitLog(oneline[:1]), "one line is not enough to tell")
	assert.False(t, GitLog([]string{"deadbeef1 step one", "Run make test", "ok"}), "a CI log that prints one hash")
	assert.False(t, GitLog([]string{"1234567 apples", "7654321 pears"}), "numbers are not hashes")
}

// TestUnifiedDiffIsRecognised: git diff, git show and diff -u output is a diff; a CI log
// that prints one further down, or text that only starts like one, is not.
func TestUnifiedDiffIsRecognised(t *testing.T) {
	assert.True(t, UnifiedDiff([]string{"diff --git a/x.go b/x.go", "index 1..2 100644", "--- a/x.go", "+++ b/x.go", "@@ -1,3 +1,4 @@ func f() {", " a", "+b"}))
	assert.True(t, UnifiedDiff([]string{"--- x.py\t2026-01-01", "+++ x.py\t2026-01-02", "@@ -1 +1 @@", "-a", "+b"}))
	assert.True(t, UnifiedDiff([]string{"commit 951dcae85fac64bc705ac0c14f5c96c9eccfb7bd", "Author: A", "", "    msg", "", "diff --git a/x b/x", "@@ -0,0 +1 @@", "+x"}))
	assert.False(t, UnifiedDiff([]string{"Run gofmt -d .", "diff --git a/x.go b/x.go", "@@ -1 +1 @@"}), "a CI log holding a diff")
	assert.False(t, UnifiedDiff([]string{"--- FAIL: TestX (0.00s)", "    x_test.go:3: @@ -1 +1 @@"}))
	assert.False(t, UnifiedDiff([]string{"diff --git a/x b/x", "Binary files differ"}))
	for l, want := range map[string]bool{"@@ -1,3 +1,4 @@": true, "@@ -1 +1 @@ func f() {": true, "@@ -0,0 +1 @@": true, "@@ here @@": false, "@@ -1,3 @@": false} {
		assert.Equal(t, want, HunkHeader(l), l)
	}
}

// TestProtectDiffsAndGitLogs: a diff's lines are not its file's, so the source type's rules
// (imports, declarations, failure words) do not hold in it; a git log's commit subjects are
// not failures. NO_PRUNE regions hold in both.
func TestProtectDiffsAndGitLogs(t *testing.T) {
	diff := []string{"diff --git a/x.go b/x.go", "--- a/x.go", "+++ b/x.go", "@@ -1,4 +1,4 @@", " import (", " \t\"errors\"", " )", "-return errors.New(\"fatal error\")", "+return nil"}
	for _, st := range []SourceType{SourceCode, SourceLogs, SourceDocs} {
		assert.Equal(t, make([]uint8, len(diff)), protect(diff, st).prot, st)
	}
	log := []string{"commit 951dcae85fac64bc705ac0c14f5c96c9eccfb7bd", "Author: A <a@example.org>", "", "    fix the error in the parser", ""}
	assert.Equal(t, make([]uint8, len(log)), protect(log, SourceLogs).prot)
	ci := []string{"Run go test ./...", "--- FAIL: TestX (0.00s)", "FAIL"}
	assert.NotEqual(t, make([]uint8, len(ci)), protect(ci, SourceLogs).prot, "a build log keeps its rules")
	withRegion := append(slices.Clone(diff), "⟦NO_PRUNE_BEGIN⟧", "kept", "⟦NO_PRUNE_END⟧")
	assert.Equal(t, protHard, protect(withRegion, SourceCode).prot[len(diff)+1])
}

// TestProtectReadsTheFirstLineWithoutItsBOM: a byte-order mark (files saved on Windows) cost
// the first line its rule and the whole leading comment header its protection.
func TestProtectReadsTheFirstLineWithoutItsBOM(t *testing.T) {
	src := []string{"// Copyright 2024 X", "// Licensed under MIT", "package x", "import \"os\"", "func f() {}"}
	bom := slices.Clone(src)
	bom[0] = "\ufeff" + bom[0]
	assert.Equal(t, protect(src, SourceCode).prot, protect(bom, SourceCode).prot)
	assert.Equal(t, protRule, protect([]string{"\ufeffimport os", "x = 1"}, SourceCode).prot[0])
	assert.Equal(t, protRule, protect([]string{"\ufeff# Title", "text"}, SourceDocs).prot[0])
	assert.Equal(t, "\ufeff// Copyright 2024 X", bom[0], "the caller's lines are left alone")
}

// TestFailedTestMessages: with -v, a failing test's messages come above the "--- FAIL" line
// that reports it, the lines continuing a multi-line message with them; TestMessages says
// which verdict each belongs to. A passing test's messages and a message printed after its
// verdict (without -v) belong to none.
func TestFailedTestMessages(t *testing.T) {
	lines := []string{
		"=== RUN   TestClamp", // 0
		"    clamp_test.go:12: clamp(5, 0, 3) = 3",
		"--- PASS: TestClamp (0.00s)",
		"=== RUN   TestOrder", // 3
		"    order_test.go:40: fetching the list",
		"    order_test.go:41: expected order is:",
		"            appointy/jaal", // 6: continues the message
		"            gqlgen",
		"starting server on :8080", // 8: the code's own output, not a message
		"    order_test.go:52: got 503",
		"--- FAIL: TestOrder (0.31s)", // 10
		"=== RUN   TestOuter",
		"=== RUN   TestOuter/inner",
		"    outer_test.go:30: got 1", // 13
		"--- FAIL: TestOuter (0.00s)", // 14
		"    --- FAIL: TestOuter/inner (0.00s)",
		"--- FAIL: TestLate (0.00s)", // 16
		"    late_test.go:9: printed after its verdict",
		"FAIL",
	}
	passing, failedAt := TestMessages(lines)
	want := make([]int32, len(lines))
	for i := range want {
		want[i] = -1
	}
	for _, i := range []int{4, 5, 6, 7, 9} {
		want[i] = 10
	}
	want[13] = 14
	assert.Equal(t, want, failedAt)
	assert.Equal(t, PassingTestMessages(lines), passing)
	assert.True(t, passing[1])
}
