package tokenizer

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
)

// benchDir returns ../shared/bench next to the module root, or "" when absent.
func benchDir(tb testing.TB) string {
	tb.Helper()
	dir, err := benchmarks.DefaultDataDir("")
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	require.NoError(tb, err)
	return dir
}

// benchTexts returns the text of every every-th case of a bench file, at most limit.
func benchTexts(tb testing.TB, file string, every, limit int) []string {
	tb.Helper()
	dir := benchDir(tb)
	if dir == "" {
		tb.Skip("../shared/bench is absent")
	}
	f, err := os.Open(filepath.Join(dir, file))
	require.NoError(tb, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(tb, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	var out []string
	for i := 0; sc.Scan() && len(out) < limit; i++ {
		if i%every != 0 {
			continue
		}
		var c struct {
			Text string `json:"text"`
		}
		require.NoError(tb, json.Unmarshal(sc.Bytes(), &c))
		out = append(out, c.Text)
	}
	require.NoError(tb, sc.Err())
	return out
}

// TestCountMatchesReferenceOnBench compares every line and every whole text of a
// sample of the bench cases with tiktoken-go. The reference runs at ~2 MB/s, so the
// sample is a few megabytes (a few hundred kilobytes with -short);
// TOKENIZER_DIFF_ALL=1 compares every case (minutes).
func TestCountMatchesReferenceOnBench(t *testing.T) {
	all := os.Getenv("TOKENIZER_DIFF_ALL") == "1"
	files := []struct {
		file         string
		every, limit int
	}{
		{file: "code.dev.jsonl.gz", every: 9, limit: 10},
		{file: "commits.dev.jsonl.gz", every: 19, limit: 10},
		{file: "docs.dev.jsonl.gz", every: 11, limit: 4},
		{file: "logs.dev.jsonl.gz", every: 7, limit: 4},
	}
	for _, ff := range files {
		t.Run(ff.file, func(t *testing.T) {
			switch {
			case all:
				ff.every, ff.limit = 1, 1<<30
			case testing.Short():
				ff.limit = 2
			}
			texts := benchTexts(t, ff.file, ff.every, ff.limit)
			for i, text := range texts {
				// Outside TOKENIZER_DIFF_ALL, keep the first 128 KiB of long logs (at a line end).
				if cut := strings.LastIndexByte(text[:min(len(text), 128<<10)], '\n'); !all && len(text) > 128<<10 && cut > 0 {
					texts[i] = text[:cut+1]
				}
			}
			for _, name := range encodingNames {
				e := loadT(t, name)
				for _, text := range texts {
					require.Equal(t, refCount(t, name, text), e.Count(text), "%s: whole text", name)
					lines := strings.Split(text, "\n")
					for i, line := range lines {
						require.Equal(t, refCount(t, name, line), e.Count(line), "%s: line %d %q", name, i+1, line)
					}
				}
			}
		})
	}
}
