package structural

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longFile is a language's golden input followed by copies of its top-level declarations
// (from the first column-0 declaration on), each after a blank line, up to n lines.
func longFile(t *testing.T, lang string, n int) []string {
	_, _, lines := readLangCase(t, filepath.Join("testdata", "lang", lang+".txtar"))
	first := -1
	for i, l := range lines {
		if indentOf(l) == 0 && isDecl(l) && (i == 0 || isBlank(lines[i-1])) {
			first = i
			break
		}
	}
	require.GreaterOrEqual(t, first, 0, "%s: no top-level declaration", lang)
	out := append([]string(nil), lines...)
	for len(out) < n {
		out = append(out, "")
		out = append(out, lines[first:]...)
	}
	return out
}

// TestHalvesMatchWhole: for every language that splits, the outline of a long file parsed
// in two halves equals the outline of the whole file parsed at once.
func TestHalvesMatchWhole(t *testing.T) {
	for lang := range splitLangs {
		t.Run(lang, func(t *testing.T) {
			s := New()
			t.Cleanup(func() { _ = s.Close() })
			l := s.langs.byName[lang]
			lines := longFile(t, lang, 1500)
			k := splitPoint(l, lines)
			require.Positive(t, k, "no split point")
			halves, ok, err := s.parseHalves(context.Background(), l, "", lines, k)
			require.NoError(t, err)
			require.True(t, ok, "a half could not be used")
			whole, warn, err := s.parseWhole(context.Background(), l, "", lines)
			require.NoError(t, err)
			require.Empty(t, warn)
			require.Equal(t, dumpUnits(whole), dumpUnits(halves))
		})
	}
}

// TestHalvesEditedMatchFresh: a split file edited in one half is reparsed incrementally
// there (the other half comes from the outline cache), and equals a fresh parse.
func TestHalvesEditedMatchFresh(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	l := s.langs.byName["go"]
	lines := longFile(t, "go", 1500)
	_, _, err := s.parse(context.Background(), l, "big.go", lines)
	require.NoError(t, err)
	k := splitPoint(l, lines)
	require.Positive(t, k)
	for _, at := range []int{k / 2, k + (len(lines)-k)/2} {
		before := s.reparsed.Load()
		lines[at] += " // edited"
		got, warn, err := s.parse(context.Background(), l, "big.go", lines)
		require.NoError(t, err)
		require.Empty(t, warn)
		assert.Equal(t, before+1, s.reparsed.Load(), "line %d: one half reparsed incrementally", at)
		fresh := New()
		want, _, err := fresh.parseWhole(context.Background(), fresh.langs.byName["go"], "", lines)
		require.NoError(t, err)
		assert.Equal(t, dumpUnits(want), dumpUnits(got), "line %d", at)
		require.NoError(t, fresh.Close())
	}
}

func TestSplitPoint(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	short := longFile(t, "go", 200)
	assert.Zero(t, splitPoint(s.langs.byName["go"], short), "short files parse whole")
	java := longFile(t, "java", 1500)
	assert.Zero(t, splitPoint(s.langs.byName["java"], java), "Java is not split")
	lines := longFile(t, "python", 1500)
	k := splitPoint(s.langs.byName["python"], lines)
	require.Positive(t, k)
	assert.True(t, isBlank(lines[k-1]))
	assert.Zero(t, indentOf(lines[k]))
	assert.InDelta(t, len(lines)/2, k, float64(len(lines))/6)
}

func dumpUnits(o *outline) string {
	var b []byte
	for _, u := range o.units {
		b = fmt.Appendf(b, "%d %q %d-%d body %d parent %d blocks %v\n", u.role, u.name, u.start, u.end, u.bodyStart, u.parent, u.blocks)
	}
	return string(b)
}

// TestHalvesMatchWholeOnBench compares split and whole outlines on every development case
// of ../shared/bench that splits (real Python, Go, JavaScript and TypeScript files).
func TestHalvesMatchWholeOnBench(t *testing.T) {
	dir, err := benchmarks.DefaultDataDir("")
	if err != nil {
		t.Skipf("no benchmark data: %v", err)
	}
	cases, err := benchmarks.LoadCases(filepath.Join(dir, "code.dev.jsonl.gz"), filepath.Join(dir, "commits.dev.jsonl.gz"))
	require.NoError(t, err)
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	split := 0
	for _, c := range cases {
		lines := engine.SplitLines(c.Text)
		name := s.langs.detect("", c.Path, lines)
		l := s.langs.byName[name]
		if l == nil || len(lines) > parseLines {
			continue
		}
		k := splitPoint(l, lines)
		if k == 0 {
			continue
		}
		halves, ok, err := s.parseHalves(context.Background(), l, "", lines, k)
		require.NoError(t, err)
		whole, warn, err := s.parseWhole(context.Background(), l, "", lines)
		require.NoError(t, err)
		if !ok || warn != "" {
			continue // a half or the whole has too many syntax errors: parse falls back to the whole
		}
		split++
		assert.Equal(t, dumpUnits(whole), dumpUnits(halves), "%s (split at line %d)", c.ID, k+1)
	}
	t.Logf("%d cases split", split)
	assert.Positive(t, split)
}

// TestSplitPointAvoidsCommentsAndStrings: column-0 declarations after blank lines inside a
// block comment, a raw or template string, a docstring or an object literal are no split
// points, and the file's outline is the whole file's.
func TestSplitPointAvoidsCommentsAndStrings(t *testing.T) {
	decls := map[string][2]string{ // a declaration line, and a body line
		"go": {"func f%d() int {", "\treturn 1\n}"}, "python": {"def f%d():", "    return 1"},
		"javascript": {"function f%d() {", "  return 1;\n}"}, "rust": {"fn f%d() -> i32 {", "    1\n}"},
	}
	tests := []struct {
		name, lang, open, close string
	}{
		{"go block comment", "go", "/*", "*/"},
		{"go raw string", "go", "var script = `", "`"},
		{"python docstring", "python", `DOC = """`, `"""`},
		{"javascript template", "javascript", "const tpl = `", "`;"},
		{"javascript object", "javascript", "module.exports = {", "};"},
		{"rust nested comment", "rust", "/* outer /* inner */", "*/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decls[tt.lang]
			var lines []string
			add := func(i int) {
				lines = append(lines, fmt.Sprintf(d[0], i))
				lines = append(lines, strings.Split(d[1], "\n")...)
				lines = append(lines, "")
			}
			for i := 0; len(lines) < 600; i++ {
				add(i)
			}
			start := len(lines)
			lines = append(lines, tt.open)
			for i := 1000; len(lines) < 1000; i++ {
				lines = append(lines, "")
				add(i)
			}
			lines = append(lines, tt.close, "")
			end := len(lines)
			for i := 2000; len(lines) < 1600; i++ {
				add(i)
			}
			s := New()
			t.Cleanup(func() { _ = s.Close() })
			l := s.langs.byName[tt.lang]
			k := splitPoint(l, lines)
			assert.False(t, k > start && k < end, "split at line %d, inside lines %d-%d", k+1, start+1, end)
			got, _, err := s.parse(context.Background(), l, "", lines)
			require.NoError(t, err)
			fresh := New() // its own outline cache: a whole parse, not parse's answer again
			t.Cleanup(func() { _ = fresh.Close() })
			want, _, err := fresh.parseWhole(context.Background(), fresh.langs.byName[tt.lang], "", lines)
			require.NoError(t, err)
			assert.Equal(t, dumpUnits(want), dumpUnits(got))
		})
	}
}

// FuzzSplitPoint: any text, in any split language, gives a split point that is 0 or a
// column-0 line after a blank one in the middle third, without panicking on unterminated
// strings, comments or escapes.
func FuzzSplitPoint(f *testing.F) {
	f.Add("func a() {}\n\n/* x\n\nfunc b() {}\n*/\n`raw\n\nfunc c() {}`\n", 0)
	f.Add("def a():\n    '''doc\n\ndef b():'''\n\ndef c():\n    return \"\\\"\"\n", 1)
	f.Add("const t = `a ${b} \\`\n\nfunction f() {}`;\n\nfunction g() { return '\\''; }\n", 2)
	f.Add("/* /* nested */\n\nfn a() {}\n*/\n\nfn b() { let c = '{'; }\n", 5)
	s := New()
	f.Cleanup(func() { _ = s.Close() })
	langs := []string{"go", "python", "javascript", "typescript", "tsx", "rust"}
	f.Fuzz(func(t *testing.T, text string, which int) {
		l := s.langs.byName[langs[(which%len(langs)+len(langs))%len(langs)]]
		base := strings.Split(text, "\n")
		lines := base
		for len(lines) < splitLines && len(base) > 0 {
			lines = append(lines, base...)
		}
		top := lexicalTop(l.name, lines)
		require.Len(t, top, len(lines))
		k := splitPoint(l, lines)
		if k == 0 {
			return
		}
		n := len(lines)
		require.True(t, k > n/2-n/6 && k < n/2+n/6, "split %d outside the middle third of %d lines", k, n)
		require.True(t, isBlank(lines[k-1]) && indentOf(lines[k]) == 0 && top[k])
	})
}
