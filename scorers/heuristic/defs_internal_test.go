package heuristic

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reDefNamePattern is the pattern defName implements by hand (see defKeywordList).
var reDefNamePattern = regexp.MustCompile(`(?:def|func|function|fn|class|interface|struct|enum|trait|type|sub|module)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*(?:[:=]\s*(?:async\s+)?(?:function|\()|<[^>]*>\s*\(|\()`)

func defNameByPattern(l string) string {
	m := reDefNamePattern.FindStringSubmatch(l)
	if m == nil {
		return ""
	}
	if m[1] != "" {
		return m[1]
	}
	return m[2]
}

var defNameCases = []string{
	"def parse_header(value):", "    async def fetch(self, url):", "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {",
	"func main() {", "function foo(a, b) {", "export default function bar() {", "export async function baz(x) {",
	"class Foo(Base):", "class Foo:", "interface Reader {", "type Handler func(int)", "struct point {", "pub fn new() -> Self {",
	"const handler = async (req, res) => {", "const f = function () {", "onClick: async function (e) {", "x = (1, 2)",
	"render<T>(props: T) {", "    foo <T> (x)", "undef foo", "functional(x)", "classify(x)", "x == (y)", "a := func() {",
	"sub greet {", "module Foo", "enum Color {", "trait Draw {", "@decorator", "if (x) {", "   ", "", "$el = function() {",
	"func (", "func (r) ", "func (r)", "type ", "x: asyncfunction", "x: async  (", "x = async", "a<b", "f<>(", "fn\t\tname",
	"Ünïcode(x)", "naïve(x)", "def\u00a0x", "x:\n(", "def\n\nname", "class  (A) B", "5foo(x)", "_(x)", "$(x)",
}

// TestDefNameMatchesItsPattern: the hand-written matcher gives the regexp's answer on
// crafted headers and on every line of the golden inputs.
func TestDefNameMatchesItsPattern(t *testing.T) {
	lines := append([]string(nil), defNameCases...)
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	for _, l := range lines {
		assert.Equal(t, defNameByPattern(l), defName(l), "line %q", l)
	}
}

func FuzzDefName(f *testing.F) {
	for _, l := range defNameCases {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if got, want := defName(l), defNameByPattern(l); got != want {
			t.Fatalf("defName(%q) = %q, the pattern gives %q", l, got, want)
		}
	})
}

// TestDefStartsAgreeWithThePattern: isDefHeader answers true without the regexp for a line
// opening with a defStarts keyword; the regexp must agree on every such line.
func TestDefStartsAgreeWithThePattern(t *testing.T) {
	tails := []string{" f(x):", " (r *T) Close() error {", "  Foo<T> {", "$", ";", " x", "", "\tName", " Foo extends Bar {", "(a, b) {"}
	for kw := range defStarts {
		for _, indent := range []string{"", "    ", "\t"} {
			for _, tail := range tails {
				l := indent + kw + tail
				if firstWord(l) != kw {
					continue
				}
				assert.True(t, reDefHeader.MatchString(l), "%q", l)
				assert.True(t, isDefHeader(l), "%q", l)
			}
		}
	}
}

// TestNameWeightSplitsAsTheGoal: the fast key of nameWeight is the term identParts makes.
func TestNameWeightSplitsAsTheGoal(t *testing.T) {
	for _, name := range []string{"getBaseTemp", "get_basetemp", "where", "x", "HTTPServer", "handler4", "__init__", "$scope", "jQuery$fn", "_"} {
		q := ParseGoal(name)
		a := Analyze([]string{name}, q)
		parts, joined, multi := identParts(name)
		key := joined
		if !multi && len(parts) == 1 {
			key = parts[0]
		}
		_, want := q.lookup(hashString(key))
		if !multi && len(parts) == 0 {
			want = false
		}
		assert.Equal(t, want, a.nameWeight(name) > 0, name)
	}
}

// TestHugeLinesSkipTheHeaderRegexps: a line past maxHeaderRegexp is a header only by its
// opening keyword; the regexps, which cost a quarter of a second on a 2 MB line, never see it.
func TestHugeLinesSkipTheHeaderRegexps(t *testing.T) {
	long := strings.Repeat("a", maxHeaderRegexp)
	for _, l := range []string{
		"public static int " + long + "(int x) {",
		"export function " + long + "() {",
		"  @decorator(" + long + ")",
		long + "(a, b) {",
	} {
		assert.True(t, reDefHeader.MatchString(l) || reMethodHeader.MatchString(l), "the regexps take %.20q as a header", l)
		assert.False(t, isDefHeader(l), "%.20q reached the regexps", l)
	}
	assert.True(t, isDefHeader("def "+long+"(x):"), "a keyword header at any length")
	assert.True(t, isDefHeader("public static int handle(int x) {"))
}
