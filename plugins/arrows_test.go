package plugins

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shim depends on engine only: never on server, a concrete scorer or cmd, and the
// generated types stay internal.
func TestImportArrows(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		if !strings.HasPrefix(dep, "github.com/mcp-pruner/mcp-pruner/") {
			continue
		}
		rel := strings.TrimPrefix(dep, "github.com/mcp-pruner/mcp-pruner/")
		ok := rel == "engine" || rel == "plugins" || rel == "plugins/internal/scorerpb"
		assert.True(t, ok, "plugins must not import %s", dep)
	}
}
