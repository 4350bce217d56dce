package engine_test

import (
	"context"
	"fmt"
	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// benchText returns n lines of real Go source (the toolchain's own net/http), repeated as
// needed, so benchmarks measure realistic token and line shapes without shared data.
func benchText(b *testing.B, n int) string {
	b.Helper()
	lines, err := benchmarks.GoSourceLines(n)
	if err != nil {
		b.Skipf("no Go source to benchmark on: %v", err)
	}
	return strings.Join(lines, "\n") + "\n"
}

// BenchmarkPrune measures a whole prune with exact token stats, as a tool call sees it:
// scoring, selection, rendering and both tiktoken counts. The keyword scorer keeps the
// engine's own cost in view; scorers have their own benchmarks.
func BenchmarkPrune(b *testing.B) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		for _, budget := range []bool{false, true} {
			b.Run(fmt.Sprintf("lines=%d/budget=%v", n, budget), func(b *testing.B) {
				f := newFixture(b, 100_000_000)
				text := benchText(b, n)
				req := &engine.Request{Text: text, GoalHint: "Shutdown closeIdleConns", SourceType: engine.SourceCode,
					Options: engine.Options{MaxPruneRatio: 0.9, MinKeepLines: 10, TimeoutMS: 60000, AnnotateLines: true, IncludeMarkers: true}}
				if budget {
					req.TokenBudget = len(text) / 20
				}
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := f.eng.Prune(context.Background(), req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
