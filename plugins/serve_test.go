package plugins

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins/internal/scorerpb"
)

// countingScorer counts its Describe calls.
type countingScorer struct {
	describes atomic.Int64
	info      engine.ScorerInfo
}

func (*countingScorer) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	return &engine.ScoreResponse{Scores: make([]float64, len(req.Lines))}, nil
}

func (s *countingScorer) Describe() engine.ScorerInfo {
	s.describes.Add(1)
	return s.info
}

func TestServerDescribe(t *testing.T) {
	tests := []struct {
		name string
		info engine.ScorerInfo
		want float64
	}{
		{name: "own threshold", info: engine.ScorerInfo{Name: "s", Threshold: 0.4}, want: 0.4},
		{name: "no threshold", info: engine.ScorerInfo{Name: "s"}, want: engine.DefaultThreshold},
		{name: "out of range", info: engine.ScorerInfo{Name: "s", Threshold: 2}, want: engine.DefaultThreshold},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &countingScorer{info: tt.info}
			out, err := newServer(s).Describe(context.Background(), &scorerpb.DescribeRequest{})
			require.NoError(t, err)
			assert.Equal(t, tt.want, out.GetThreshold())
			assert.Equal(t, "s", out.GetName())
			assert.Equal(t, int64(1), s.describes.Load(), "one Describe request, one call to the scorer")
		})
	}
}
