package benchmarks

import (
	"context"
	"errors"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// BaselineOracle scores a case's gold lines 1 and every other line 0: what a perfect scorer
// keeps through the same engine, budgets, markers and protected lines as the real scorers.
// Its recall is the ceiling of a budget for the engine's selection, the room left above every
// other row. It is not in Baselines(), so a run without --scorers leaves it out; name it to
// run it.
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
	return info(BaselineOracle, "ceiling: the case's gold lines score 1, the rest 0 (benchmark runs only)", 0.5)
}

// Score implements engine.Scorer.
func (Oracle) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	gold, ok := ctx.Value(goldKey{}).([]int)
	if !ok {
		return nil, ErrNoGold
	}
	s := make([]float64, len(req.Lines))
	for _, g := range gold {
		if g >= 1 && g <= len(s) {
			s[g-1] = 1
		}
	}
	return &engine.ScoreResponse{Scores: s}, nil
}
