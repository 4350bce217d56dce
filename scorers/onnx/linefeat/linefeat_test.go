package linefeat

import (
	"context"
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
	assert.Equal(t, float32(1), at(0, "src_code"))
	assert.Equal(t, float32(1), at(0, "lang_python"))
	assert.Greater(t, at(3, "depth_log"), at(2, "depth_log"))
	assert.Greater(t, at(2, "subtree_log"), at(3, "subtree_log"))
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
