package heuristic_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/require"
)

// TestEveryDevTextAsEveryType scores the text of every development case of ../shared/bench
// as code, as a log and as documentation, with two scorers that share nothing (each parses
// the goal itself): no panic, a score in [0, 1] for every line, and the same scores from
// both. A wrong source type is a caller's everyday mistake; Python read as a log once
// panicked, and the goal's map order once made scores differ between runs.
func TestEveryDevTextAsEveryType(t *testing.T) {
	dir, err := benchmarks.DefaultDataDir("")
	if err != nil {
		t.Skipf("no benchmark data: %v", err)
	}
	var files []string
	for _, set := range []string{"code", "commits", "logs", "docs"} {
		files = append(files, filepath.Join(dir, set+".dev.jsonl.gz"))
	}
	cases, err := benchmarks.LoadCases(files...)
	require.NoError(t, err)
	a, b := heuristic.New(), heuristic.New()
	for _, c := range cases {
		lines := engine.SplitLines(c.Text)
		for _, st := range []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs} {
			req := &engine.ScoreRequest{Lines: lines, Goal: c.GoalHint, SourceType: st, Path: c.Path}
			ra, err := a.Score(context.Background(), req)
			require.NoError(t, err, "%s as %s", c.ID, st)
			rb, err := b.Score(context.Background(), req)
			require.NoError(t, err, "%s as %s", c.ID, st)
			require.Len(t, ra.Scores, len(lines), "%s as %s", c.ID, st)
			for i, v := range ra.Scores {
				require.True(t, v >= 0 && v <= 1, "%s as %s: line %d scores %v", c.ID, st, i+1, v)
			}
			require.Equal(t, ra.Scores, rb.Scores, "%s as %s: two scorers disagree", c.ID, st)
		}
	}
}
