package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins/internal/scorerpb"
)

// TestResponseRoundTrip: a response crosses the wire unchanged, a per-request threshold
// included, and its absence stays absent (the host then uses Describe's).
func TestResponseRoundTrip(t *testing.T) {
	th := 0.35
	for _, tc := range []struct {
		name string
		resp *engine.ScoreResponse
	}{
		{"with a threshold", &engine.ScoreResponse{Scores: []float64{0.1, 0.9}, Focus: []string{"parse"}, Warnings: []string{"w"}, Threshold: &th}},
		{"without", &engine.ScoreResponse{Scores: []float64{0.5}, Focus: []string{}, Warnings: []string{}}},
		{"a zero threshold is not absent", &engine.ScoreResponse{Scores: []float64{0.5}, Threshold: new(float64)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := proto.Marshal(responseToPB(tc.resp))
			require.NoError(t, err)
			var pb scorerpb.ScoreResponse
			require.NoError(t, proto.Unmarshal(b, &pb))
			got := responseFromPB(&pb)
			assert.Equal(t, tc.resp.Scores, got.Scores)
			assert.Equal(t, tc.resp.Threshold, got.Threshold)
		})
	}
}
