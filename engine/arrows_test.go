package engine_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImportArrows keeps the layout's arrows pointing inward: engine depends on the standard
// library and tokenizer only, never on server, plugins, scorers or the MCP SDK.
func TestImportArrows(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/mcp-pruner/mcp-pruner/engine").CombinedOutput()
	require.NoError(t, err, string(out))
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/mcp-pruner/mcp-pruner/engine" || strings.HasPrefix(dep, "github.com/mcp-pruner/mcp-pruner/tokenizer") {
			continue
		}
		t.Errorf("engine depends on %s", dep)
	}
}
