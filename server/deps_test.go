package server_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImportArrows fails when server starts depending on a scorer, the plugin shim or cmd:
// those reach it only through the engine's registry.
func TestImportArrows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	cmd := exec.Command("go", "list", "-deps", ".")
	out, err := cmd.Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		rel, ours := strings.CutPrefix(dep, "github.com/mcp-pruner/mcp-pruner/")
		if !ours {
			continue
		}
		for _, banned := range []string{"scorers/", "plugins/", "cmd/", "benchmarks/"} {
			assert.False(t, strings.HasPrefix(rel+"/", banned), "server imports %s", dep)
		}
	}
}
