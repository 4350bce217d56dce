package scorertest

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/require"
)

// fuzzPaths are the file names a fuzzed request may carry, so a scorer that reads the
// language from the path meets each of its grammars and none.
var fuzzPaths = []string{"", "x.go", "x.py", "x.js", "x.ts", "x.rs", "x.c", "x.java", "x.rb", "x.sh", "x.md", "x.rst", "x.yaml", "x.toml", "x.json"}

// Fuzz checks a scorer on arbitrary texts, goals, source types and file names: it never
// panics or errors, returns one finite score in [0, 1] per line, and scores the same request
// the same way twice (caches included). Seeds are Requests(). Scorer authors call it from a
// fuzz test:
//
//	func FuzzScore(f *testing.F) { scorertest.Fuzz(f, func() engine.Scorer { return mine.New() }) }
func Fuzz(f *testing.F, newScorer func() engine.Scorer) {
	for _, r := range Requests() {
		f.Add(strings.Join(r.Lines, "\n"), r.Goal, uint8(sourceIndex(r.SourceType)), uint8(0))
	}
	f.Add("Error: boom\n    at a (x.js:1:1)\n\n\n", "why", uint8(1), uint8(3))
	f.Add("func handler4() {}\nfunc handler5() {}\n", "handler4 utf8 x86", uint8(0), uint8(1))
	// A traceback through the request's own file (x.py): cited lines are lifted.
	f.Add("def f():\n    return g()\n\n", "boom\n  File \"/a/x.py\", line 2, in f\nx.py:1: E1\nx.py:99: E2", uint8(0), uint8(2))
	// reStructuredText entries (a nested method, a signature on two lines) and a goal word
	// naming one: the heuristic's docs entries.
	f.Add(".. function:: sum(iterable, /, start=0)\n              sum(x)\n\n   Sums *start* and the items.\n\n.. class:: dict(**kwargs)\n\n   .. method:: get(key)\n\n      Return the value.\n", "Summing the values of a dict", uint8(2), uint8(11))
	// A goal with a number, a permalink to the request's own lines, a quoted path and a
	// conventional commit prefix: goal numbers, cites and the literal lift.
	f.Add("func tz() string {\n\tif x > 500 {\n\t\treturn \"/usr/share/zoneinfo\"\n\t}\n\treturn \"\"\n}\n", "fix(tz): 500 -> 200, look in `/usr/share/zoneinfo` https://github.com/o/r/blob/main/x.go#L2-L3", uint8(0), uint8(1))
	// A CI log's tallies, npm's epilogue and a Travis report of a command that succeeded.
	f.Add("npm ERR! code ELIFECYCLE\nnpm ERR! errno 1\n1 failed, 2 passed\nThe command \"make test\" exited with 0.\nERROR: boom_error.o\n", "why did it fail", uint8(1), uint8(0))
	// A log of test reports: Go's race report and timeout dump, pytest's and cargo test's
	// sections with pytest's summary, PHPUnit's numbered list: the heuristic's report rules.
	f.Add("==================\nWARNING: DATA RACE\nWrite at 0x1 by goroutine 8:\n  a.(*L).Put()\n      /a/l.go:5 +0x1\nGoroutine 8 (running) created at:\n  testing.tRunner()\n==================\n--- FAIL: TestA (0.00s)\n"+
		"panic: test timed out after 1m0s\nrunning tests:\n\tTestB/x (1m0s)\n\ngoroutine 7 [chan send]:\na.TestB.func1()\n\t/a/b_test.go:9 +0x1\ncreated by testing.(*T).Run in goroutine 1\n\n"+
		"____ TestC.test_d[1.5] ____\n>   assert x\nE   AssertionError\n---- Captured stdout call ----\n==== short test summary info ====\n\x1b[31mFAILED\x1b[0m t.py::TestC::test_d[1.5] - AssertionError\n"+
		"---- tests::e stdout ----\nthread 'tests::e' panicked\nfailures:\nThere were 2 errors:\n1) F::g\nboom\n2) F::h\n--\nFAILURES!\n", "which test fails", uint8(1), uint8(0))
	// A spelling goal over misspelt prose in a comment, a string and capitals, next to names
	// that only look misspelt (a call, a member, camelCase): the heuristic's spelling rule.
	f.Add("// the buffer has ocurred twice\nrecieve(conn.recieve)\nprintf(\"Recieved %d\\n\", n); // WARNIING\nrecieveAll := 1\n", "docs: fix typos", uint8(0), uint8(6))
	// Goals about undeclared names and format strings over includes and printf-family calls
	// (one cut off at the line's end): the heuristic's import and format-call lifts.
	f.Add("#include <stdio.h>\nimport (\n\t\"fmt\"\n)\nprintf(msg);\nfmt.Printf(s)\nsprintf(buf, (x\n", "Fix FTBFS: implicit declaration and -Werror=format-security", uint8(0), uint8(6))
	// A build goal over file-scope declarations (an extern, a prototype, a global with a
	// trailing comment, one cut off, a statement at the margin) and nothing else the goal
	// says: the heuristic's build lift, and structural's head that it must not take away.
	f.Add("#include <stdint.h>\nextern int debug;\nint parse(const char *);\nchar *progname; /* argv[0] */\nstatic int x = \nreturn 0;\nint main(void)\n{\n\treturn parse(progname);\n}\n", "Fix FTBFS with GCC-10", uint8(0), uint8(1))
	// Prose slips under a comment goal, URLs under a dead-link goal, Go's unchecked type
	// assertions and errors under panic and error goals (one assertion cut off), and a small
	// import block the structural floor lifts.
	f.Add("package p\n\nimport \"os\"\n\n// returns a the hasher, it doesnt matter\n// see https://example.com/old\nv := ctx.Value(k).(*R)\nerr = f()\n_ = g()\nx, _ := h()\nw := y.(\n", "fix comment, dead link; panic: nil deref; handle error", uint8(0), uint8(1))
	// Extra seeds (fuzz campaign): line endings, BOM, invalid UTF-8, NUL, deep nesting,
	// unterminated constructs, preprocessor branches, every grammar's awkward corners.
	f.Add("package p\r\n\r\nimport \"os\"\r\n\r\n// Open opens.\r\nfunc Open() error {\r\n\treturn os.ErrNotExist\r\n}\r\n", "Open returns ErrNotExist", uint8(0), uint8(1))
	f.Add("def f():\r    return 1\rclass A:\r    pass\r", "class A", uint8(0), uint8(2))
	f.Add("\ufeff#!/usr/bin/env python3\n\"\"\"never closed\ndef g(x):\n\treturn x\n        \treturn y\n", "g returns", uint8(0), uint8(2))
	f.Add("fn m\xff() {\n    let s = r#\"raw \" str\"#;\n    /* unclosed\n}\nimpl X for Y { fn a(&self) {} }\n", "raw str impl", uint8(0), uint8(5))
	f.Add("#include <a.h>\n#if defined(X)\nint f(void) {\n#else\nint f(int a) {\n#endif\n  return 0;\n}\n#ifdef Y\n#elif Z\n#endif\n", "f returns 0", uint8(0), uint8(6))
	f.Add(strings.Repeat("{", 300)+"\n"+strings.Repeat("}", 300)+"\n", "brace", uint8(0), uint8(3))
	f.Add(strings.Repeat("(", 200)+"x\n", "x", uint8(0), uint8(2))
	f.Add("const t = `a ${b + `c ${d}`} e\nline2`;\nfunction h() { return /re[/]x/g; }\n", "h regex", uint8(0), uint8(4))
	f.Add("x\x00y := 1\nfunc \x00() {}\n\t\x00\n", "\x00", uint8(0), uint8(1))
	f.Add("cat <<EOF\nfunc a() {\nEOF\nfunction b() { echo \"$(c)\"; }\n", "b echo", uint8(0), uint8(9))
	f.Add("# Title\r\n\r\n```go\r\nfunc a() {}\r\n```\r\n\r\n## Sub\r\n~~~\r\nunclosed\r\n", "Sub a", uint8(2), uint8(10))
	f.Add("Title\n=====\n\n.. code-block:: python\n\n   def a(): pass\n\n.. note::\n   x\n\nSub\n---\n", "note", uint8(2), uint8(11))
	f.Add("a: &x\n  b: [1, {c: d}]\n---\n- *x\n? complex\n: value\n", "b c", uint8(0), uint8(12))
	f.Add("[a.b]\nc = \"\"\"\nmulti\n\"\"\"\n[[d]]\ne = 1979-05-27T07:32:00Z\n", "multi", uint8(0), uint8(13))
	f.Add("class A {\n  public static void main(String[] a) {\n    System.out.println(\"x\");\n  }\n}\n", "Traceback\n  File \"x.java\", line 99999999999999999999, in main\nhttps://github.com/o/r/blob/main/x.java#L0-L-1\nx.java:0:0", uint8(0), uint8(7))
	f.Add("module M\n  def self.a = 1\n  def b\n    yield\n  end\nend\n", "M.b yields", uint8(0), uint8(8))
	f.Add(strings.Repeat("x", 5000)+"\n"+strings.Repeat("a b ", 2000)+"\n", strings.Repeat("x", 200), uint8(1), uint8(0))
	f.Add("2024-01-01 ERROR \x1b[31mboom\x1b[0m\n\x1b[\n\x1b\n\tat x.y(Z.java:1)\n", "why ERROR \x1b[0m", uint8(1), uint8(0))
	f.Add("\xef\xbb\xbfpackage main\n", "\xff\xfe", uint8(0), uint8(1))
	f.Add("\n\n\n", "", uint8(2), uint8(10))
	f.Add("\r\n\r\n", "\r\n", uint8(0), uint8(1))
	f.Add("<?php\nnamespace A;\nclass B { function c() { return 1; } }\n", "c", uint8(0), uint8(0))
	f.Add("using System;\nnamespace N { public class C { public int P { get; set; } } }\n", "P", uint8(0), uint8(0))
	f.Add("interface I<T extends {a: number}> { m(): void }\ntype U = I<string> | null;\n", "type U", uint8(0), uint8(4))
	s := newScorer()
	if c, ok := s.(interface{ Close() error }); ok {
		f.Cleanup(func() { _ = c.Close() })
	}
	sources := []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs}
	f.Fuzz(func(t *testing.T, text, goal string, st, path uint8) {
		req := &engine.ScoreRequest{Lines: engine.SplitLines(text), Goal: goal, SourceType: sources[int(st)%len(sources)], Path: fuzzPaths[int(path)%len(fuzzPaths)]}
		first, err := scoreWithin(context.Background(), s, req)
		require.NoError(t, err)
		CheckScores(t, first, len(req.Lines), "fuzzed request")
		again, err := scoreWithin(context.Background(), s, req)
		require.NoError(t, err)
		require.Equal(t, first.Scores, again.Scores, "the same request scored twice")
	})
}

func sourceIndex(st engine.SourceType) int {
	switch st {
	case engine.SourceLogs:
		return 1
	case engine.SourceDocs:
		return 2
	}
	return 0
}
