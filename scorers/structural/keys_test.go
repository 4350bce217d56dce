package structural

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigPaths runs real-world-shaped configuration files (testdata/keys: a Kubernetes
// deployment, a docker-compose file, a GitHub Actions workflow, a pyproject.toml, a Cargo
// manifest, a VS Code launch.json) whose goal names one item among siblings of the same
// shape. Each "outrank" row "W > D ..." (1-based lines) says that line W of the item the
// goal names (the leaf it is about, or a key that says where that leaf is) scores above
// the same lines D of the sibling items. The per-line scores are compared with the golden
// section (-update rewrites it).
func TestConfigPaths(t *testing.T) {
	files, err := filepath.Glob("testdata/keys/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			a, path, lines := readLangCase(t, f)
			goal := strings.TrimSpace(a.get("goal"))
			resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: engine.SourceCode, Path: path})
			require.NoError(t, err)
			require.Empty(t, resp.Warnings, "structure must be used, not the fallback")
			rows := strings.Split(strings.TrimSpace(a.get("outrank")), "\n")
			require.NotEmpty(t, rows)
			for _, row := range rows {
				w, d, ok := strings.Cut(row, ">")
				require.True(t, ok, "outrank row %q", row)
				ws := lineNumbers(t, w, len(lines))
				require.Len(t, ws, 1, "outrank row %q", row)
				for _, d := range lineNumbers(t, d, len(lines)) {
					assert.Greater(t, resp.Scores[ws[0]], resp.Scores[d], "line %d %q must outrank line %d %q", ws[0]+1, lines[ws[0]], d+1, lines[d])
				}
			}
			golden := marks(lines, resp.Scores)
			if *update {
				a.set("golden", golden)
				require.NoError(t, os.WriteFile(f, a.format(), 0o644))
				return
			}
			assert.Equal(t, a.get("golden"), golden, "golden differs (go test -run TestConfigPaths -update)")
		})
	}
}

// lineNumbers reads 1-based line numbers and returns them 0-based.
func lineNumbers(t *testing.T, s string, n int) []int {
	t.Helper()
	var out []int
	for _, f := range fields(s) {
		v, err := strconv.Atoi(f)
		require.NoError(t, err)
		require.True(t, v >= 1 && v <= n, "line %d out of range", v)
		out = append(out, v-1)
	}
	return out
}
