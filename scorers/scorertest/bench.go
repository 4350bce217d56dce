package scorertest

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
)

// BenchRequests takes perFile cases from each ../shared/bench dev file (every 37th, from
// the start, so decoding stops early), or skips the test when the data is absent.
func BenchRequests(t testing.TB, perFile int) []*engine.Request {
	t.Helper()
	var out []*engine.Request
	for _, f := range benchFiles(t, "no bench cases to compare on") {
		out = append(out, sampleFile(t, f, perFile, 37)...)
	}
	return out
}

// benchFiles returns ../shared/bench's data files, or skips the test, saying why, when the
// data is absent.
func benchFiles(t testing.TB, what string) []string {
	t.Helper()
	dir, err := benchmarks.DefaultDataDir("")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("../shared/bench is absent: " + what)
	}
	require.NoError(t, err)
	files, err := benchmarks.DataFiles(dir)
	require.NoError(t, err)
	return files
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
