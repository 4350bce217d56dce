package heuristic_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGoalCites(t *testing.T) {
	for _, tc := range []struct {
		name string
		goal string
		want []heuristic.Cite
	}{
		{"python frame", `Traceback (most recent call last):
  File "/usr/lib/python3.8/site-packages/_pytest/_io/saferepr.py", line 23, in _format_repr_exception
    exc_info, obj.__class__.__name__, id(obj)
  File "<stdin>", line 1, in <module>`, []heuristic.Cite{
			{File: "/usr/lib/python3.8/site-packages/_pytest/_io/saferepr.py", Line: 23, Func: "_format_repr_exception"},
			{File: "<stdin>", Line: 1},
		}},
		{"pytest short frame", "src/_pytest/python.py:1163: in getfixtureclosure\n    raise", []heuristic.Cite{
			{File: "src/_pytest/python.py", Line: 1163, Func: "getfixtureclosure"},
		}},
		{"node stack", "TypeError: x is undefined\n    at Layer.handle [as handle_request] (/srv/app/lib/router/layer.js:95:5)\n    at next (C:\\app\\lib\\router\\route.js:137:13)", []heuristic.Cite{
			{File: "C:/app/lib/router/route.js", Line: 137, Func: "next"},
			{File: "/srv/app/lib/router/layer.js", Line: 95}, // "at f [as g] (...)": the path still counts
		}},
		{"java stack", "java.lang.NullPointerException\n\tat com.acme.Parser.parse(Parser.java:42)", []heuristic.Cite{
			{File: "Parser.java", Line: 42, Func: "parse"},
		}},
		{"go panic, compiler, rust", "goroutine 1 [running]:\nmain.run()\n\t/home/u/app/server.go:123 +0x1d\nx.c:7:3: error: expected ';'\n --> src/main.rs:12:5", []heuristic.Cite{
			{File: "/home/u/app/server.go", Line: 123},
			{File: "x.c", Line: 7},
			{File: "src/main.rs", Line: 12},
		}},
		{"php", "PHP Fatal error: Uncaught Error in /var/www/index.php on line 12", []heuristic.Cite{
			{File: "/var/www/index.php", Line: 12},
		}},
		{"github permalink to a range", "The offset is dropped here:\nhttps://github.com/mwaskom/seaborn/blob/ba786bc14eb2/seaborn/_core/scales.py#L377-L379\nso labels are wrong.", []heuristic.Cite{
			{File: "seaborn/_core/scales.py", Line: 377},
			{File: "seaborn/_core/scales.py", Line: 378},
			{File: "seaborn/_core/scales.py", Line: 379},
		}},
		{"gitlab permalink to one line", "see https://gitlab.com/o/r/-/blob/main/src/x.go#L12)", []heuristic.Cite{
			{File: "src/x.go", Line: 12},
		}},
		{"permalink without lines, commit link", "https://github.com/o/r/blob/main/x.py and https://github.com/o/r/commit/abc#diff-1", nil},
		{"no cites", "fix the parser: it drops the last line, see issue 12:30 and version 1.2", nil},
		{"line zero and repeats", "a.py:0: bad\nFile \"a.py\", line 3, in f\nFile \"a.py\", line 3, in f", []heuristic.Cite{
			{File: "a.py", Line: 3, Func: "f"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := heuristic.ParseGoal(tc.goal).Cites
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestPermalinkRangeIsBounded(t *testing.T) {
	cites := heuristic.ParseGoal("https://github.com/o/r/blob/v1/big.py#L100-L400").Cites
	require.Len(t, cites, 20)
	assert.Equal(t, 100, cites[0].Line)
	assert.Equal(t, 119, cites[19].Line)
}

// TestPermalinkLiftsItsLines: an issue that links lines of the file being read (seaborn-3187
// of code.dev: the fix is in the linked lines, which share no word with the prose)
// ranks them above the lines its words match; a link to another file lifts nothing.
func TestPermalinkLiftsItsLines(t *testing.T) {
	var src []string
	for i := range 30 {
		src = append(src, fmt.Sprintf("def format_%d(formatter, locs):", i), fmt.Sprintf("    return formatter.format_ticks(locs[%d:])", i), "")
	}
	goal := "Wrong legend values of large ranges: the formatter's offset is dropped\n" +
		"https://github.com/o/seaborn/blob/ba786bc/seaborn/_core/scales.py#L44-L45"
	score := func(path string) []float64 {
		resp, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{Lines: src, Goal: goal, SourceType: engine.SourceCode, Path: path})
		require.NoError(t, err)
		return resp.Scores
	}
	s := score("seaborn/_core/scales.py")
	for i, v := range s {
		if i != 43 && i != 44 {
			assert.Less(t, v, s[43], "line %d", i+1)
		}
	}
	other := score("seaborn/_core/plot.py")
	assert.Less(t, other[43], s[43], "a link to another file lifts nothing")
}

func TestParseGoalCitesAtMost(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "lib/a.py:%d: E501 line too long\n", i)
	}
	assert.Len(t, heuristic.ParseGoal(b.String()).Cites, 64)
}

func TestCitedLines(t *testing.T) {
	lines := strings.Split(`import reprlib


def _format_repr_exception(exc, obj):
    try:
        exc_info = _try_repr_or_str(exc)
    except BaseException as exc:
        exc_info = "unpresentable exception ({})".format(_try_repr_or_str(exc))
    return "<[{} raised in repr()] {} object at 0x{:x}>".format(
        exc_info, obj.__class__.__name__, id(obj)
    )`, "\n")
	for _, tc := range []struct {
		name, path, goal string
		cited            []int
		framed           []bool
	}{
		{"installed package names the checkout's file", "src/_pytest/_io/saferepr.py",
			`File "/usr/lib/python3.8/site-packages/_pytest/_io/saferepr.py", line 10, in _format_repr_exception`, []int{9}, []bool{true}},
		{"Windows separators", `src\_pytest\_io\saferepr.py`,
			`File "C:\\py\\_pytest\\_io\\saferepr.py", line 10, in _format_repr_exception`, []int{9}, []bool{true}},
		{"another package's file of the same name", "src/_pytest/_io/saferepr.py",
			`File "/usr/lib/python3.8/reprlib/saferepr.py", line 10, in _format_repr_exception`, nil, nil},
		{"the function is not above the line: another version of the file", "saferepr.py",
			`File "saferepr.py", line 3, in _format_repr_exception`, nil, nil},
		{"a line past the end", "saferepr.py", `File "saferepr.py", line 99, in _format_repr_exception`, nil, nil},
		{"a function that is only part of a name", "saferepr.py", `File "saferepr.py", line 10, in _format_repr`, nil, nil},
		{"no function: kept, not framed", "saferepr.py", "saferepr.py:8: E501 line too long", []int{7}, []bool{false}},
		{"framed wins over bare for the same line, sorted", "saferepr.py",
			"saferepr.py:10: E1\nsaferepr.py:6: E2\n" + `File "saferepr.py", line 10, in _format_repr_exception`, []int{5, 9}, []bool{false, true}},
		{"no path", "", `File "saferepr.py", line 10, in _format_repr_exception`, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cited, framed := heuristic.ParseGoal(tc.goal).CitedLines(tc.path, lines)
			assert.Equal(t, tc.cited, cited)
			assert.Equal(t, tc.framed, framed)
		})
	}
}

// TestTracebackLiftsTheFramedLine: a goal that pastes a traceback through the file being read
// ranks the line its frame cites, and that line's neighbours, above the rest of the file,
// although the line shares no word with the goal's prose; without the path it does not.
func TestTracebackLiftsTheFramedLine(t *testing.T) {
	var src []string
	for i := range 40 {
		src = append(src, fmt.Sprintf("def helper_%d(value):", i), fmt.Sprintf("    return convert(value, %d)", i), "")
	}
	// Line 62 (0-based 61) is "    return convert(value, 20)" in helper_20.
	goal := `INTERNALERROR when converting a value
Traceback (most recent call last):
  File "/site-packages/pkg/convert.py", line 62, in helper_20
    return convert(value, 20)
ValueError: bad value`
	score := func(path string) []float64 {
		resp, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{Lines: src, Goal: goal, SourceType: engine.SourceCode, Path: path})
		require.NoError(t, err)
		return resp.Scores
	}
	s := score("pkg/convert.py")
	assert.Equal(t, 1.0, s[61])
	assert.GreaterOrEqual(t, s[60], 0.8, "the def line above it")
	for i, v := range s {
		if i < 60 || i > 62 {
			assert.Less(t, v, s[61], "line %d", i+1)
		}
	}
	other := score("pkg/other.py")
	assert.Less(t, other[61], 1.0, "a frame of another file lifts nothing")
}
