package structural_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
	"github.com/stretchr/testify/require"
)

// TestEveryDevTextAsEveryType is the heuristic's test of the same name for structural:
// every development text of ../shared/bench read as code, as a log and as documentation,
// by two scorers that share no parser or cache: no error, scores in [0, 1], the same scores
// from both. The engine fails open on a scorer's panic, so without this a panic would show
// only as a prune that kept everything.
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
	a, b := structural.New(), structural.New()
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
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
