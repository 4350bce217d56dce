package onnx_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// BenchmarkScore measures one Score call (features + onnxruntime) on 2,000 lines.
func BenchmarkScore(b *testing.B) {
	for _, n := range []int{200, 2000, 10000} {
		b.Run(fmt.Sprintf("lines=%d/family=line-features", n), func(b *testing.B) {
			s := open(b, shippedOrTiny(b))
			req := &engine.ScoreRequest{Lines: benchLines(n), Goal: "recover returns errMissingID for handler42", SourceType: engine.SourceCode, Path: "h.go"}
			b.SetBytes(int64(len(strings.Join(req.Lines, "\n"))))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				_, err := s.Score(context.Background(), req)
				require.NoError(b, err)
			}
		})
	}
}
