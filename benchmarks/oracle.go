package benchmarks

import (
	"context"
	"errors"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// BaselineOracle scores a case's gold lines 1 and the other lines by their nearness to one,
// far below (see oracleNear): what a perfect scorer keeps through the same engine, budgets,
// markers and protected lines as the real scorers. Its recall is the ceiling of a budget for
// the engine's selection, the room left above every other row (the selection is greedy, so in
// a rare case a scorer's runs may still reach a gold line the oracle's miss). It is not in
// Baselines(), so a run without --scorers leaves it out; name it to run it.
const BaselineOracle = "oracle"

// ErrNoGold is the oracle's error outside a benchmark run, where no case's gold lines are
// known: a prune with it fails open.
var ErrNoGold = errors.New("oracle: no gold lines (it scores only inside pruner bench, which knows them)")

var (
	_ engine.Scorer    = Oracle{}
	_ engine.Describer = Oracle{}
)

// goldKey carries a case's gold lines in the context of its prunes.
type goldKey struct{}

// withGold returns ctx carrying the 1-based gold line numbers of the case being pruned, for
// the oracle.
func withGold(ctx context.Context, gold []int) context.Context {
	return context.WithValue(ctx, goldKey{}, gold)
}

// Oracle is the BaselineOracle scorer. It reads the case's gold lines from the context that
// Run prunes the case with.
type Oracle struct{}

// Describe implements engine.Describer.
func (Oracle) Describe() engine.ScorerInfo {
	return info(BaselineOracle, "ceiling: the case's gold lines score 1, the rest far less by their distance to one (benchmark runs only)", 0.5)
}

// Score implements engine.Scorer.
func (Oracle) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	gold, ok := ctx.Value(goldKey{}).([]int)
	if !ok {
		return nil, ErrNoGold
	}
	return &engine.ScoreResponse{Scores: oracleScores(gold, len(req.Lines))}, nil
}

// oracleNear is the score of a line next to a gold line; a line d lines from the nearest gold
// line scores oracleNear/d. Far below a gold line's 1 (the budget selection weighs score³ per
// token), so no gold line the budget can buy waits for them; but above 0, so once the gold
// lines a budget can buy are kept, the rest of it grows runs towards the others: a gold line
// too dear with the marker it opens is often cheap at the end of a run of kept lines. Scored
// 0, those lines lost to the text's first lines, and scorers whose runs happened to reach a
// gold line beat the oracle. Below the oracle's threshold, so natural mode keeps gold only.
const oracleNear = 0.1

// oracleScores scores n lines: 1 for the gold lines (1-based; numbers outside 1..n ignored),
// oracleNear divided by the distance to the nearest gold line for the others, 0 without gold.
func oracleScores(gold []int, n int) []float64 {
	s := make([]float64, n)
	dist := make([]int, n)
	const far = -1
	for i := range dist {
		dist[i] = far
	}
	for _, g := range gold {
		if g >= 1 && g <= n {
			dist[g-1] = 0
		}
	}
	// Two sweeps: nearest gold line above, then below.
	for i, last := 0, far; i < n; i++ {
		if dist[i] == 0 {
			last = i
		} else if last != far {
			dist[i] = i - last
		}
	}
	for i, next := n-1, far; i >= 0; i-- {
		if dist[i] == 0 {
			next = i
		} else if next != far && (dist[i] == far || next-i < dist[i]) {
			dist[i] = next - i
		}
	}
	for i, d := range dist {
		switch {
		case d == 0:
			s[i] = 1
		case d > 0:
			s[i] = oracleNear / float64(d)
		}
	}
	return s
}
