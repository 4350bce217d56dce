package structural_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
)

// TestEveryDevTextAsEveryType: structural's own paths (tree-sitter, reStructuredText, its
// fallbacks) on every development text, read as every source type.
func TestEveryDevTextAsEveryType(t *testing.T) {
	scorertest.EveryDevText(t, func() engine.Scorer { return structural.New() })
}
