package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins/examples/rulefile/rules"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
)

const exampleRules = `0.9 (?i)\b(error|fatal|panic|traceback)\b
0.6 (?i)^\s*(def|class|func)\s
0.4 (?i)\.\. (function|class|method)::
`

// rulefileClient runs the example plugin with exampleRules through the shim.
func rulefileClient(t testing.TB) (*Client, *rules.Scorer) {
	t.Helper()
	bin, sum := buildPlugin(t, "./plugins/examples/rulefile")
	path := filepath.Join(t.TempDir(), "rules.txt")
	require.NoError(t, os.WriteFile(path, []byte(exampleRules), 0o600))
	inproc, err := rules.Load(path)
	require.NoError(t, err)
	return newClient(t, Config{Name: "rulefile", Command: bin, Args: []string{"-rules", path}, SHA256: sum}), inproc
}

func TestContractThroughShim(t *testing.T) {
	bin, sum := buildPlugin(t, "./plugins/examples/rulefile")
	path := filepath.Join(t.TempDir(), "rules.txt")
	require.NoError(t, os.WriteFile(path, []byte(exampleRules), 0o600))
	t.Run("rulefile in-process", func(t *testing.T) {
		scorertest.Run(t, func() engine.Scorer {
			s, err := rules.Load(path)
			require.NoError(t, err)
			return s
		})
	})
	t.Run("rulefile plugin", func(t *testing.T) {
		scorertest.Run(t, func() engine.Scorer {
			c, err := New(t.Context(), Config{Name: "rulefile", Command: bin, Args: []string{"-rules", path}, SHA256: sum})
			require.NoError(t, err)
			return c
		})
	})
}

func TestParityOnBenchCases(t *testing.T) {
	perFile := 3
	if testing.Short() {
		perFile = 1
	}
	reqs := scorertest.BenchRequests(t, perFile)
	c, inproc := rulefileClient(t)
	scorertest.SamePrunes(t, inproc, c, append(reqs, suiteRequests()...))
}

// suiteRequests turns the contract suite's awkward inputs into prune requests.
func suiteRequests() []*engine.Request {
	var out []*engine.Request
	for _, r := range scorertest.Requests() {
		if len(r.Lines) == 0 {
			continue
		}
		out = append(out, &engine.Request{Text: strings.Join(r.Lines, "\n"), GoalHint: r.Goal, SourceType: r.SourceType, Path: r.Path, Language: r.Language})
	}
	return out
}
