package linefeat

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func col(t *testing.T, name string) int {
	t.Helper()
	for i, n := range Names {
		if n == name {
			return i
		}
	}
	require.Failf(t, "no feature", "%s", name)
	return -1
}

func TestCompute(t *testing.T) {
	lines := []string{
		"import os",
		"",
		"def parse_config(path):",
		"    with open(path) as f:",
		"        return f.read()",
		"",
		"def unrelated():",
		"    pass",
	}
	m, err := Compute(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "parse_config fails on a missing path", SourceType: engine.SourceCode, Path: "cfg.py"})
	require.NoError(t, err)
	require.Equal(t, len(lines), m.N)
	require.Len(t, m.X, len(lines)*NumFeatures)
	at := func(i int, name string) float32 { return m.Row(i)[col(t, name)] }

	assert.Equal(t, float32(1), at(2, "exact"), "the line naming parse_config")
	assert.Greater(t, at(2, "lex_norm"), at(6, "lex_norm"))
	assert.Equal(t, float32(0), at(2, "heuristic_rank"), "the best line has no line above it")
	assert.Equal(t, float32(1), at(1, "blank"))
	assert.Equal(t, float32(1), at(2, "decl"))
	assert.Equal(t, float32(1), at(0, "import"))
	assert.Equal(t, float32(1), at(0, "kind_code_python"))
	assert.Equal(t, float32(0), at(0, "kind_code_other"))
	for k, c := range KindColumns {
		assert.Equal(t, "kind_"+Kinds[k], Names[c])
	}
	assert.Greater(t, at(3, "depth_log"), at(2, "depth_log"))
	assert.Greater(t, at(2, "subtree_log"), at(3, "subtree_log"))
	assert.Equal(t, float32(0), at(2, "structural_rank"), "the definition the goal names ranks first structurally")
	assert.GreaterOrEqual(t, at(3, "struct_block_max"), at(3, "structural"), "a block max is at least the line's score")
	assert.GreaterOrEqual(t, at(3, "struct_max_w3"), at(2, "structural"))
	assert.InDelta(t, float64(at(3, "structural")-at(3, "heuristic")), float64(at(3, "struct_minus_heur")), 1e-6)
	for i, v := range m.X {
		assert.False(t, v != v, "feature %s of line %d is NaN", Names[i%NumFeatures], i/NumFeatures+1)
	}
}

func TestComputeEmptyAndCancelled(t *testing.T) {
	m, err := Compute(context.Background(), &engine.ScoreRequest{SourceType: engine.SourceLogs})
	require.NoError(t, err)
	assert.Zero(t, m.N)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Compute(ctx, &engine.ScoreRequest{Lines: []string{"a", "b"}, SourceType: engine.SourceLogs})
	assert.ErrorIs(t, err, context.Canceled)
}

func BenchmarkCompute(b *testing.B) {
	lines := make([]string, 0, 2000)
	for i := 0; len(lines) < 2000; i++ {
		lines = append(lines, "func handle(w http.ResponseWriter) error {", "\tid := r.URL.Query().Get(\"id\")", "\treturn store.Recover(id)", "}")
	}
	req := &engine.ScoreRequest{Lines: lines, Goal: "recover returns an error for a missing id", SourceType: engine.SourceCode}
	b.ReportAllocs()
	for range b.N {
		if _, err := Compute(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFailStrength(t *testing.T) {
	tests := []struct {
		line string
		want float64
	}{
		{"ERROR: build failed", 1},
		{"--- FAIL: TestX (0.01s)", 1},
		{"Traceback (most recent call last):", 1},
		{"2 errors generated.", 1},
		{"raise TypeError('x')", 0},
		{"npm ERR! cannot find module", 0.5},
		{"Process exited with status 1", 0.5},
		{"all good", 0},
		{"", 0},
		{"exit: code 2", 0.5},
		{"exit now, code 2", 0},
		{"Exited.With 3", 0.5},
		{"onErrorFailed", 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, failStrength(tt.line), "%q", tt.line)
	}
}

// reComment is the documented definition of the comment feature; isComment implements it
// without a regular expression.
var reComment = regexp.MustCompile(`^\s*(#|//|/\*|\*|--|"""|''')`)

func TestIsCommentMatchesItsDefinition(t *testing.T) {
	for _, l := range []string{
		"", " ", "# x", "  // x", "\t/* x", " * x", "-- sql", `"""doc`, "'''doc", "\f# x", "\r// x",
		"\v# x", "x # y", "/ x", "- x", `"" x`, "'' x", "#!/bin/sh", "*/", "\t\t-", "\n--",
	} {
		assert.Equal(t, reComment.MatchString(l), isComment(l), "%q", l)
	}
}

func TestRankShare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 10, 257} {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(r.IntN(5)) / 4 // many ties
		}
		got := rankShare(v)
		for i, x := range v {
			greater := 0
			for _, y := range v {
				if y > x {
					greater++
				}
			}
			assert.Equal(t, float64(greater)/float64(n), got[i], "n=%d i=%d", n, i)
		}
	}
}

func TestTablesMatchMath(t *testing.T) {
	for _, k := range []int{0, 1, 2, 7, intTable - 1, intTable, intTable + 5, 1 << 20} {
		assert.Equal(t, math.Log1p(float64(k)), log1pInt(k), "log1p %d", k)
		if k > 0 {
			assert.Equal(t, math.Log(float64(k)), logInt(k), "log %d", k)
		}
	}
	for _, x := range []float64{0, 1e-9, 0.5, 3, 103, 104, 109.9, 110, 111, 1e6} {
		assert.Equal(t, float32(math.Exp(-x)), float32(expNeg(x)), "exp(-%v)", x)
	}
	var l logits
	for _, p := range []float64{0, 0, 0.3, 0.3, 1, 0.3} {
		l.of(p)
		assert.Equal(t, logit(min(1-1e-4, max(1e-4, p))), l.clipped)
		assert.Equal(t, logit(p), l.exact)
	}
}

// countingContext counts the calls of Err.
type countingContext struct {
	context.Context
	calls atomic.Int64
}

func (c *countingContext) Err() error {
	c.calls.Add(1)
	return c.Context.Err()
}

// TestComputeLooksAtContextAsItGoes: the passes after the scorers (ranks, windows, and the
// row pass, about 0.4 s on a million short lines, which the default 2,000,000-character
// limit admits) look at ctx every few thousand lines, so a request whose deadline passes
// there stops instead of holding its slot to the end and answering as if in time.
func TestComputeLooksAtContextAsItGoes(t *testing.T) {
	const n, every = 100_000, 4096
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("e%d", i%1000)
	}
	for _, st := range []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs} {
		ctx := &countingContext{Context: context.Background()}
		_, err := Compute(ctx, &engine.ScoreRequest{Lines: lines, Goal: "e5 failure", SourceType: st})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, ctx.calls.Load(), int64(n/every), "%s: ctx looked at %d times over %d lines", st, ctx.calls.Load(), n)
	}
}
