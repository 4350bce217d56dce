package structural

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAlignWindow(t *testing.T) {
	py := strings.Split(`import os


class Store:
    """A store.

    Parameters
    ----------
    x : int
    """

    def load(self, key):
        """Load key.

        Returns
        -------
        value
        """
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v

    def save(self, key, v):
        self.put(key, v)


def helper():
    return 1`, "\n")
	goSrc := strings.Split(`package p

import "fmt"

// A is a thing.
func A() {
	x := 1

	fmt.Println(x)
}

func B() {
	fmt.Println("b")
}`, "\n")
	tests := []struct {
		name       string
		lines      []string
		start, end int // the raw window, 0-based [start, end)
		want       window
	}{
		// From inside load's docstring (after its blank line): up to the def, not to
		// "Returns", and on to the next method.
		{name: "python method from its docstring", lines: py, start: 15, end: 19, want: window{11, 23}},
		// A window from a method's body starts at the method and stops where the class ends.
		{name: "python method cut at the class end", lines: py, start: 24, end: 28, want: window{23, 27}},
		{name: "python top level", lines: py, start: 28, end: 29, want: window{27, 29}},
		// Inside A, past its blank line: up to the func (not the comment), on to B.
		{name: "go func body", lines: goSrc, start: 8, end: 9, want: window{5, 11}},
		// The head runs on to the first declaration keyword (A's comment comes along).
		{name: "file start", lines: goSrc, start: 0, end: 2, want: window{0, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := alignWindow(tt.lines, tt.start, tt.end, false)
			assert.Equal(t, tt.want, got, "lines %q .. %q", tt.lines[got.start], tt.lines[got.end-1])
		})
	}
}

func TestIsDecl(t *testing.T) {
	tests := []struct {
		name string
		line string
		want bool
	}{
		{name: "python def", line: "    def load(self):", want: true},
		{name: "decorator", line: "    @property", want: true},
		{name: "go method", line: "func (s *S) M() {", want: true},
		{name: "ts export", line: "export default async function main() {", want: true},
		{name: "rust attribute", line: "#[derive(Debug)]", want: true},
		{name: "java method", line: "  public static void main(String[] a) {", want: true},
		{name: "statement", line: "    return x", want: false},
		{name: "docstring heading", line: "    Parameters", want: false},
		{name: "prose starting with a keyword", line: "    type of the value, as a string", want: true},
		{name: "keyword prefix of a word", line: "    define(x)", want: false},
		{name: "blank", line: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, isDecl(tt.line))
		})
	}
}

func TestDedent(t *testing.T) {
	in := []string{"    def f():", "", "        return 1", "  \t"}
	assert.Equal(t, []string{"def f():", "", "    return 1", ""}, dedent(in))
	flat := []string{"x = 1", "  y"}
	assert.Equal(t, flat, dedent(flat))
}

// TestLongFileWindows checks a file past parseLines: only windows are parsed, they cover the
// goal's definition and the file's head, stay within the parse budget, and the scores put
// the goal's definition above the rest without a fallback.
func TestLongFileWindows(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	for _, lang := range []string{"go", "python"} {
		t.Run(lang, func(t *testing.T) {
			lines := synthFile(lang, 4*parseLines)
			path, goal, def := "f.go", "handle777 returns the wrong error", "func handle777("
			if lang == "python" {
				path, goal, def = "f.py", "Handler777 validate raises on short values", "class Handler777("
			}
			target := -1
			for i, l := range lines {
				if strings.HasPrefix(l, def) {
					target = i
				}
			}
			require.GreaterOrEqual(t, target, 0)
			req := &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: engine.SourceCode, Path: path}
			h, err := heuristic.New().Score(context.Background(), req)
			require.NoError(t, err)

			ws := chooseWindows(lines, h.Scores, parseLines, false)
			parsed, covers := 0, false
			for _, w := range ws {
				parsed += w.end - w.start
				covers = covers || (w.start <= target && target < w.end)
			}
			assert.True(t, covers, "no window holds line %d: %v", target+1, ws)
			assert.Equal(t, 0, ws[0].start, "the file's head is parsed")
			assert.LessOrEqual(t, parsed, parseLines+2*windowRadius+alignReach+1)

			o, warn, err := s.outline(context.Background(), s.langs.byName[lang], "", lines, h.Scores)
			require.NoError(t, err)
			require.Empty(t, warn)
			found := false
			for _, u := range o.units {
				found = found || (u.start <= target && target < u.end && strings.Contains(u.name, "777"))
			}
			assert.True(t, found, "the goal's definition is a unit")

			resp, err := s.Score(context.Background(), req)
			require.NoError(t, err)
			require.Empty(t, resp.Warnings)
			far := (target + len(lines)/2) % len(lines)
			assert.Greater(t, resp.Scores[target], resp.Scores[far], "line %d (%q) vs %d (%q)", target+1, lines[target], far+1, lines[far])
			assert.GreaterOrEqual(t, resp.Scores[target], Threshold)
		})
	}
}

// TestAnchorQueueOrder: chooseWindows takes its anchors from a heap, which must hand them out
// in the order a stable sort by descending score gives (equal scores in file order), ties
// and zeros included, or the windows, and so the scores, would change.
func TestAnchorQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 8))
	for _, n := range []int{0, 1, 2, 7, 100, 5000} {
		h := make([]float64, n)
		for i := range h {
			switch r.IntN(4) {
			case 0:
				h[i] = 0.5 // many ties
			case 1:
				h[i] = float64(r.IntN(5)) / 4
			default:
				h[i] = r.Float64()
			}
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(h[b], h[a]) })
		q := anchorQueue{h: h, idx: make([]int, n)}
		for i := range q.idx {
			q.idx[i] = i
		}
		q.init()
		got := make([]int, 0, n)
		for len(q.idx) > 0 {
			got = append(got, q.pop())
		}
		require.Equal(t, want, got, "%d lines", n)
	}
}
