package scorertest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
)

// EveryDevText scores the text of every case of ../shared/bench's data files as code, as a
// log and as documentation (a wrong source type is a caller's everyday mistake), with two
// scorers from newScorer that share nothing (each parses the goal and builds its caches
// itself). Every call must succeed with one score in [0, 1] per line, and both scorers must
// give the same scores. The engine fails open on a scorer's panic, so without this test a
// panic shows only as a prune that kept everything, and an answer that depends on a map's
// order only as a bench figure that moves between runs. It skips when the data is absent.
func EveryDevText(t *testing.T, newScorer func() engine.Scorer) {
	t.Helper()
	cases, err := benchmarks.LoadCases(benchFiles(t, "no development texts to score")...)
	require.NoError(t, err)
	a, b := open(t, newScorer), open(t, newScorer)
	for _, c := range cases {
		lines := engine.SplitLines(c.Text)
		for _, st := range []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs} {
			what := c.ID + " as " + string(st)
			req := &engine.ScoreRequest{Lines: lines, Goal: c.GoalHint, SourceType: st, Path: c.Path}
			ra, err := a.Score(context.Background(), req)
			require.NoError(t, err, what)
			CheckScores(t, ra, len(lines), what)
			rb, err := b.Score(context.Background(), req)
			require.NoError(t, err, what)
			require.Equal(t, ra.Scores, rb.Scores, "%s: two scorers disagree", what)
		}
	}
}
