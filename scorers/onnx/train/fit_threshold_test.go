package train

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
)

// TestFrozenKindsKeepTheirBaseThreshold: a frozen expert is its base scorer, so the manifest
// gives requests of its kind that scorer's threshold; trained kinds use the default.
func TestFrozenKindsKeepTheirBaseThreshold(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FrozenKinds = []string{"code_python", "logs"}
	cfg.StructuralKinds = []string{"code_python", "docs"}
	_, kinds := threshold(&Model{}, nil, cfg)
	assert.Equal(t, map[string]float64{"code_python": structural.Threshold, "logs": heuristic.Threshold}, kinds)

	cfg.FrozenKinds = nil
	_, kinds = threshold(&Model{}, nil, cfg)
	assert.Empty(t, kinds)
}
