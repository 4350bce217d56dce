package scorertest_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
	"github.com/stretchr/testify/assert"
)

// lengthScorer is a well-behaved scorer: longer lines that mention the goal score higher.
type lengthScorer struct{}

func (lengthScorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]float64, len(req.Lines))
	for i, l := range req.Lines {
		v := math.Min(float64(len(l))/200, 0.5)
		if req.Goal != "" && strings.Contains(l, req.Goal) {
			v += 0.5
		}
		out[i] = v
	}
	return &engine.ScoreResponse{Scores: out}, nil
}

func TestRunPassesWellBehavedScorer(t *testing.T) {
	scorertest.Run(t, func() engine.Scorer { return lengthScorer{} })
}

// The suite must be able to fail: CheckScores rejects the classic mistakes.
func TestCheckScoresRejects(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		n      int
	}{
		{name: "NaN", scores: []float64{0.1, math.NaN()}, n: 2},
		{name: "above one", scores: []float64{1.5}, n: 1},
		{name: "negative", scores: []float64{-0.1}, n: 1},
		{name: "too few", scores: []float64{0.2}, n: 2},
		{name: "too many", scores: []float64{0.2, 0.3}, n: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &recorder{}
			scorertest.CheckScores(fake, &engine.ScoreResponse{Scores: tt.scores}, tt.n, tt.name)
			assert.True(t, fake.failed, "CheckScores accepted %v", tt.scores)
		})
	}
}

// recorder is a testing.TB that records failures instead of stopping the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Name() string          { return "recorder" }
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true }
