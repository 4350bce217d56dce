package onnx_test

import (
	"context"
	"fmt"
	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/require"
)

// benchLines is a Go-like source of n lines with a goal that matches a few of them.
func benchLines(n int) []string {
	lines := make([]string, 0, n)
	for i := 0; len(lines) < n; i++ {
		lines = append(lines,
			fmt.Sprintf("func handler%d(w http.ResponseWriter, r *http.Request) error {", i),
			fmt.Sprintf("\tid := r.URL.Query().Get(\"id%d\")", i),
			"\tif id == \"\" {",
			"\t\treturn errMissingID",
			"\t}",
			fmt.Sprintf("\treturn store.Recover(r.Context(), id, %d)", i),
			"}",
			"",
		)
	}
	return lines[:n]
}

// shippedOrTiny is models/linerank when it exists, else the test's tiny model.
func shippedOrTiny(b *testing.B) string {
	dir := filepath.Join("..", "..", "models", "linerank")
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err == nil {
		return dir
	}
	return writeLineModel(b, tinyModel(), nil)
}

// benchRevision numbers the texts benchmarks make, unique across -count runs (a repeated
// text would hit the structural scorer's caches).
var benchRevision atomic.Int64

// BenchmarkScore measures one Score call (features + onnxruntime) on Go files of 200 to
// 10,000 lines in the three states an agent shows a file in: file=new (never seen: the
// structural features need a full tree-sitter parse), file=edited (one line changed at the
// same path: an incremental reparse) and file=unchanged (a re-read with another goal: the
// outline is cached).
func BenchmarkScore(b *testing.B) {
	for _, n := range []int{200, 2000, 10000} {
		for _, state := range []string{"new", "edited", "unchanged"} {
			b.Run(fmt.Sprintf("lines=%d/family=line-features/file=%s", n, state), func(b *testing.B) {
				benchState(b, benchLines(n), state, "recover returns errMissingID for handler42")
			})
		}
	}
}

// BenchmarkScoreStdlib is BenchmarkScore on real code: the first 2,000 lines of the Go
// distribution's net/http/server.go (present wherever Go is installed), whose density of
// tokens per byte is typical of hand-written Go, unlike benchLines' short handlers.
func BenchmarkScoreStdlib(b *testing.B) {
	lines, err := benchmarks.GoSourceLines(2000)
	if err != nil {
		b.Skipf("no Go sources to read: %v", err)
	}
	for _, state := range []string{"new", "edited", "unchanged"} {
		b.Run(fmt.Sprintf("lines=%d/family=line-features/file=%s", len(lines), state), func(b *testing.B) {
			benchState(b, slices.Clone(lines), state, "ServeHTTP writes the header twice when the handler panics")
		})
	}
}

// benchState scores lines (a Go file) b.N times in state new, edited or unchanged.
func benchState(b *testing.B, lines []string, state, goal string) {
	s := open(b, shippedOrTiny(b))
	n := len(lines)
	req := &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: engine.SourceCode, Path: "h.go"}
	orig := append([]string(nil), req.Lines...)
	b.SetBytes(int64(len(strings.Join(req.Lines, "\n"))))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		i := benchRevision.Add(1)
		switch state {
		case "new":
			req.Path = fmt.Sprintf("h%d.go", i)
			for k := 0; k < n; k += 100 {
				req.Lines[k] = fmt.Sprintf("%s // revision %d", orig[k], i)
			}
		case "edited":
			req.Lines[n/2] = fmt.Sprintf("%s // revision %d", orig[n/2], i)
		}
		_, err := s.Score(context.Background(), req)
		require.NoError(b, err)
	}
}
