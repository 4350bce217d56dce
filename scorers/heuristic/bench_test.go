package heuristic_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
)

func benchLines(b *testing.B, n int) []string {
	b.Helper()
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skipf("no Go source to benchmark on: %v", err)
	}
	lines := strings.Split(string(src), "\n")
	out := make([]string, 0, n)
	for len(out) < n {
		out = append(out, lines[:min(len(lines), n-len(out))]...)
	}
	return out
}

// BenchmarkScore measures the heuristic's throughput per source type (target >= 100 MB/s).
func BenchmarkScore(b *testing.B) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		for _, st := range []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs} {
			b.Run(fmt.Sprintf("lines=%d/source=%s", n, st), func(b *testing.B) {
				lines := benchLines(b, n)
				size := 0
				for _, l := range lines {
					size += len(l) + 1
				}
				req := &engine.ScoreRequest{Lines: lines, Goal: "Shutdown hangs when closeIdleConns never reports quiescent", SourceType: st}
				s := heuristic.New()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := s.Score(context.Background(), req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
