package benchmarks

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"snake and camel", "parse_HTTPServerError in myFunc2Name", []string{"parse", "http", "server", "error", "func2", "name"}},
		{"short and stop words dropped", "if the cat is on a mat, it was not", []string{"cat", "mat"}},
		{"lowercased", "Separability MATRIX", []string{"separability", "matrix"}},
		{"non-ascii splits", "café naïve résumé", []string{"caf", "sum"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Terms(tt.in))
		})
	}
}

func score(t *testing.T, s engine.Scorer, goal string, lines ...string) []float64 {
	t.Helper()
	resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: engine.SourceCode})
	require.NoError(t, err)
	require.Len(t, resp.Scores, len(lines))
	for _, v := range resp.Scores {
		require.True(t, v >= 0 && v <= 1, "score %v outside [0, 1]", v)
	}
	return resp.Scores
}

func TestBaselineScores(t *testing.T) {
	lines := []string{"aaaa", "bbbb", "cccc", "dddd"}
	assert.Equal(t, []float64{1, 0.75, 0.5, 0.25}, score(t, Head{}, "", lines...))
	assert.Equal(t, []float64{0.25, 0.5, 0.75, 1}, score(t, Tail{}, "", lines...))
	// Four lines of 5 bytes: 0 and 5 bytes from the nearer end, out of 20.
	assert.Equal(t, []float64{1, 0.5, 0.5, 1}, score(t, HeadTail{}, "", lines...))

	r1 := score(t, Random{Seed: 1}, "goal", lines...)
	assert.Equal(t, r1, score(t, Random{Seed: 1}, "goal", lines...), "same seed and case, same scores")
	assert.NotEqual(t, r1, score(t, Random{Seed: 2}, "goal", lines...))

	code := []string{"def parse_config(path):", "    return load(path)", "", "def render_page(page):", "    return page"}
	assert.Equal(t, []float64{1, 0, 0, 0, 0}, score(t, Grep{}, "the config parser fails", code...))

	bm := score(t, BM25{K1: 1.2, B: 0.75}, "render the page", code...)
	assert.Equal(t, 1.0, bm[3], "the line with both terms is best")
	assert.Greater(t, bm[4], 0.0)
	assert.Zero(t, bm[0])
	assert.Zero(t, bm[2])
	assert.Equal(t, []float64{0, 0, 0, 0, 0}, score(t, BM25{K1: 1.2, B: 0.75}, "of the", code...), "no goal terms")
}

func TestBaselinesThroughEngine(t *testing.T) {
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	var names []string
	for _, info := range reg.List() {
		names = append(names, info.Name)
		assert.Greater(t, info.Threshold, 0.0)
		assert.NotEmpty(t, info.Description)
	}
	assert.ElementsMatch(t, Registered(), names)
	assert.Panics(t, func() { RegisterBaselines(reg) }, "duplicate names are a programming error")
}

func TestReferenceBaseline(t *testing.T) {
	lines := make([]string, 100)
	for i := range lines {
		lines[i] = "x = compute(value)"
	}
	lines[40] = "def unrelated():"
	lines[50] = "import os"
	lines[60] = "the needle is here"
	lines[70] = "ERROR: boom"
	resp, err := Reference{}.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "find the needle", SourceType: engine.SourceLogs})
	require.NoError(t, err)
	for _, kept := range []int{0, 29, 40, 50, 60, 70, 70, 99} {
		assert.Equal(t, 1.0, resp.Scores[kept], "line %d kept", kept+1)
	}
	assert.Less(t, resp.Scores[30], 0.5)
	assert.Greater(t, resp.Scores[30], resp.Scores[65], "tops up from the start")
	assert.Equal(t, []string{"find"}, resp.Focus, "keywords are words of 4+ characters, in goal order")
}

// TestBM25Deterministic: a line's BM25 is a sum over its goal terms, and float addition is
// not associative, so summing in map order gave the same line scores differing in the last
// bits from call to call, and lines with the same terms unequal scores. The engine breaks
// ties between equal scores by position, so those bits changed which lines a budget kept:
// two runs of `pruner bench` differed on bm25 (a case's recall 0 in one run, 1 in the other).
func TestBM25Deterministic(t *testing.T) {
	// Terms with different idfs (different document frequencies), several per line.
	lines := []string{
		"alpha alpha beta beta gamma gamma delta delta epsilon epsilon zeta zeta theta",
		"alpha beta gamma delta epsilon zeta",
		"zeta epsilon delta gamma beta alpha",
		"alpha beta gamma",
		"alpha beta",
		"alpha",
		"delta epsilon zeta filler words here",
		"gamma delta",
		"unrelated line",
	}
	goal := "alpha beta gamma delta epsilon zeta theta"
	first := score(t, BM25{K1: 1.2, B: 0.75}, goal, lines...)
	assert.Equal(t, first[1], first[2], "the same terms score the same, whatever their order in the line")
	for i := 0; i < 200; i++ {
		require.Equal(t, first, score(t, BM25{K1: 1.2, B: 0.75}, goal, lines...), "call %d", i)
	}
}
