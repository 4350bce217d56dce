package heuristic_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
)

// TestEveryDevTextAsEveryType: Python read as a log once panicked here (a closer that opens
// a block), and the goal's map order once made two scorers disagree.
func TestEveryDevTextAsEveryType(t *testing.T) {
	scorertest.EveryDevText(t, func() engine.Scorer { return heuristic.New() })
}
