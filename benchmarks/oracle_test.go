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
	req := &engine.ScoreRequest{Lines: []string{"a", "b", "c", "d"}, Goal: "anything", SourceType: engine.SourceCode}
	resp, err := Oracle{}.Score(withGold(context.Background(), []int{2, 4, 0, 9}), req)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 1, 0, 1}, resp.Scores, "gold lines are 1-based; numbers outside the text are ignored")

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
