package benchmarks

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImportArrows keeps the harness a library that any scorer's code can reuse: it must not
// depend on the server, the plugin shim, the command or a concrete scorer.
func TestImportArrows(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not in PATH")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	const mod = "github.com/mcp-pruner/mcp-pruner/"
	for _, dep := range strings.Fields(string(out)) {
		if !strings.HasPrefix(dep, mod) {
			continue
		}
		rel := strings.TrimPrefix(dep, mod)
		assert.Contains(t, []string{"engine", "benchmarks"}, rel, "benchmarks must not import %s", dep)
	}
}
