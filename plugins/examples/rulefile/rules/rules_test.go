package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins/examples/rulefile/rules"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
)

const ruleText = `# test rules
0.9 ^\d{4}-\d\d-\d\dT\S+ (ERROR|FATAL)
0.7 (?i)connection refused
`

func TestContract(t *testing.T) {
	scorertest.Run(t, func() engine.Scorer {
		s, err := rules.Parse(strings.NewReader(ruleText))
		require.NoError(t, err)
		return s
	})
}

func FuzzScore(f *testing.F) {
	scorertest.Fuzz(f, func() engine.Scorer {
		s, err := rules.Parse(strings.NewReader(ruleText))
		require.NoError(f, err)
		return s
	})
}

func TestScore(t *testing.T) {
	s, err := rules.Parse(strings.NewReader(ruleText))
	require.NoError(t, err)
	tests := []struct {
		name string
		line string
		goal string
		want float64
	}{
		{name: "rule match", line: "2024-05-01T10:00:00Z ERROR db down", want: 0.9},
		{name: "case-insensitive rule", line: "dial tcp: Connection Refused", want: 0.7},
		{name: "heaviest rule wins", line: "2024-05-01T10:00:00Z FATAL connection refused", want: 0.9},
		{name: "goal words only", line: "the cache expired", goal: "why cache expired", want: 0.5},
		{name: "half the goal words", line: "the cache", goal: "cache expired", want: 0.25},
		{name: "nothing", line: "2024-05-01T10:00:00Z INFO ok", goal: "cache", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: []string{tt.line}, Goal: tt.goal})
			require.NoError(t, err)
			assert.InDelta(t, tt.want, resp.Scores[0], 1e-9)
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
	}{
		{name: "weight above one", text: "1.5 x"},
		{name: "no pattern", text: "0.5"},
		{name: "bad regexp", text: "0.5 ("},
		{name: "not a number", text: "high ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rules.Parse(strings.NewReader(tt.text))
			assert.Error(t, err)
		})
	}
}
