package benchmarks

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

func TestOracleScores(t *testing.T) {
	req := &engine.ScoreRequest{Lines: []string{"a", "b", "c", "d", "e", "f", "g"}, Goal: "anything", SourceType: engine.SourceCode}
	resp, err := Oracle{}.Score(withGold(context.Background(), []int{2, 5, 0, 9}), req)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.1, 1, 0.1, 0.1, 1, 0.1, 0.05}, resp.Scores,
		"gold lines (1-based; numbers outside the text ignored) score 1, the others 0.1 over the distance to the nearest")
	resp, err = Oracle{}.Score(withGold(context.Background(), []int{4}), req)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.1 / 3, 0.05, 0.1, 1, 0.1, 0.05, 0.1 / 3}, resp.Scores)
	resp, err = Oracle{}.Score(withGold(context.Background(), nil), req)
	require.NoError(t, err)
	assert.Equal(t, make([]float64, 7), resp.Scores, "no gold lines, nothing to be near")

	_, err = Oracle{}.Score(context.Background(), req)
	assert.ErrorIs(t, err, ErrNoGold)
}

// TestOracleIsTheCeiling: through Run, the oracle keeps every gold line the budget can pay
// for with its markers, where head, which pays the same prices, keeps only one of them.
func TestOracleIsTheCeiling(t *testing.T) {
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	// Budget 50 of 100: lines 2 and 5 (11 each) and markers for 1, 3-4 and 6-10 (8 each) = 46.
	rows, err := Run(context.Background(), Config{
		Cases: []Case{handCase("o", []int{2, 5})}, Registry: reg, Tokens: wordCounter{},
		Scorers: []string{BaselineOracle, BaselineHead}, Budgets: []float64{0.5}, Modes: []Mode{ModeBudget},
	})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, BaselineOracle, rows[0].Scorer)
	assert.InDelta(t, 1, rows[0].Recall, 1e-9)
	assert.InDelta(t, 0.5, rows[1].Recall, 1e-9)
	for _, r := range rows {
		assert.Zero(t, r.Fallbacks)
		assert.Zero(t, r.OverBudget)
	}
}

// TestOracleOutsideBenchFailsOpen: a server or CLI prune naming the oracle has no gold lines;
// the prune returns the text unchanged with the reason, as every scorer failure does.
func TestOracleOutsideBenchFailsOpen(t *testing.T) {
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: wordCounter{}})
	require.NoError(t, err)
	c := handCase("p", []int{2})
	res, err := eng.Prune(context.Background(), &engine.Request{
		Text: c.Text, GoalHint: c.GoalHint, SourceType: c.SourceType, Scorer: BaselineOracle, Options: engine.DefaultOptions(),
	})
	require.NoError(t, err)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, c.Text, res.PrunedText)
	assert.NotEmpty(t, res.Warnings)
}

// TestOracleReachesGoldThroughNeighbours: a gold line that the budget cannot buy on its own
// (its line and the extra marker it opens) can still be bought with the cheap lines between it
// and the end of the text, which need no marker; tail does so. Gold lines alone scored 1 and
// every other line 0 left the engine no reason to take those lines: it skipped the gold line
// and spent the budget on the first lines of the text, so tail beat the "ceiling" (on the dev
// sets, some scorer beat the oracle on 41 case results at 10-30%).
func TestOracleReachesGoldThroughNeighbours(t *testing.T) {
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	// Eight lines of 10 words (11 tokens with the newline), then "x" and "y" (2 each): 82
	// tokens, budget floor(0.305 * 82) = 25. Lines 8-10 and the marker for 1-7 cost 11 + 2 +
	// 2 + 8 = 23; line 8 alone costs 11 plus the marker for 9-10, 8 + 11 + 8 = 27.
	rows, err := Run(context.Background(), Config{
		Cases: []Case{handCase("n", []int{8}, "x", "y")}, Registry: reg, Tokens: wordCounter{},
		Scorers: []string{BaselineOracle, BaselineTail}, Budgets: []float64{0.305}, Modes: []Mode{ModeBudget},
	})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.Equal(t, BaselineTail, rows[1].Scorer)
	require.InDelta(t, 1, rows[1].Recall, 1e-9, "tail keeps lines 8-10")
	assert.InDelta(t, 1, rows[0].Recall, 1e-9, "the oracle keeps the gold line too")
	assert.Zero(t, rows[0].OverBudget)
}
