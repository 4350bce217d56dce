package plugins

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
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
	reqs := BenchRequests(t, 3)
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

// BenchRequests takes perFile cases from each ../shared/bench dev file (every 37th, from
// the start, so decoding stops early), or skips the test when the data is absent.
func BenchRequests(t testing.TB, perFile int) []*engine.Request {
	t.Helper()
	dir, err := benchmarks.DefaultDataDir("")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("../shared/bench is absent: no bench cases to compare on")
	}
	require.NoError(t, err)
	files, err := benchmarks.DataFiles(dir)
	require.NoError(t, err)
	var out []*engine.Request
	for _, f := range files {
		out = append(out, sampleFile(t, f, perFile, 37)...)
	}
	return out
}

func sampleFile(t testing.TB, path string, n, every int) []*engine.Request {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	var out []*engine.Request
	for i := 0; len(out) < n && sc.Scan(); i++ {
		if i%every != 0 {
			continue
		}
		var c benchmarks.Case
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "%s case %d", path, i+1)
		out = append(out, &engine.Request{Text: c.Text, GoalHint: c.GoalHint, SourceType: c.SourceType, Path: c.Path})
	}
	require.NoError(t, sc.Err())
	return out
}
