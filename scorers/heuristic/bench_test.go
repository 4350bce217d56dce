package heuristic_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

func benchLines(b *testing.B, n int) []string {
	b.Helper()
	lines, err := benchmarks.GoSourceLines(n)
	if err != nil {
		b.Skipf("no Go source to benchmark on: %v", err)
	}
	return lines
}

// BenchmarkScore measures the heuristic's throughput per source type (target >= 100 MB/s).
func BenchmarkScore(b *testing.B) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		for _, st := range []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs} {
			b.Run(fmt.Sprintf("lines=%d/source=%s", n, st), func(b *testing.B) {
				benchScore(b, &engine.ScoreRequest{Lines: benchLines(b, n), Goal: "Shutdown hangs when closeIdleConns never reports quiescent", SourceType: st})
			})
		}
	}
}

// BenchmarkScoreReal is BenchmarkScore on the real texts of ../shared/bench: the first
// 10,000 lines of each development file's cases, joined in file order, scored against the
// first case's goal. Real CI logs have short lines and few identifiers, Python code and
// reStructuredText differ from Go source: this is the throughput an agent's reads get.
func BenchmarkScoreReal(b *testing.B) {
	dir, err := benchmarks.DefaultDataDir("")
	if err != nil {
		b.Skipf("no benchmark data: %v", err)
	}
	for _, set := range []string{"code", "logs", "docs"} {
		b.Run("set="+set, func(b *testing.B) {
			cases, err := benchmarks.LoadCases(filepath.Join(dir, set+".dev.jsonl.gz"))
			if err != nil || len(cases) == 0 {
				b.Skipf("no %s cases: %v", set, err)
			}
			const n = 10000
			var lines []string
			for _, c := range cases {
				if lines = append(lines, engine.SplitLines(c.Text)...); len(lines) >= n {
					break
				}
			}
			lines = lines[:min(n, len(lines))]
			benchScore(b, &engine.ScoreRequest{Lines: lines, Goal: cases[0].GoalHint, SourceType: cases[0].SourceType, Path: cases[0].Path})
		})
	}
}

// benchScore times a fresh heuristic Scorer on req, reporting input bytes per second.
func benchScore(b *testing.B, req *engine.ScoreRequest) {
	size := 0
	for _, l := range req.Lines {
		size += len(l) + 1
	}
	s := heuristic.New()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Score(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrune measures what a prune_text call costs with the default scorer for logs and
// docs and the first stage of the code default: scoring, selection, rendering and exact
// token stats. "seen" repeats one text (an agent re-reading a file: the token caches are
// warm); "fresh" gives every iteration a text never seen before (each line made unique).
func BenchmarkPrune(b *testing.B) {
	tok, err := tokenizer.Load(tokenizer.CL100K)
	if err != nil {
		b.Fatal(err)
	}
	reg := engine.NewRegistry()
	reg.Register("heuristic", heuristic.New())
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<30, nil), Tokens: tok, MaxInputChars: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{200, 1000, 10000, 100000} {
		for _, mode := range []string{"seen", "fresh"} {
			b.Run(fmt.Sprintf("lines=%d/text=%s", n, mode), func(b *testing.B) {
				lines := benchLines(b, n)
				text := strings.Join(lines, "\n") + "\n"
				req := &engine.Request{Text: text, GoalHint: "Shutdown hangs when closeIdleConns never reports quiescent",
					SourceType: engine.SourceCode, Options: engine.DefaultOptions()}
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				took := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if mode == "fresh" {
						b.StopTimer()
						fresh := make([]string, len(lines))
						for j, l := range lines {
							fresh[j] = l + " // " + strconv.Itoa(i)
						}
						req.Text = strings.Join(fresh, "\n") + "\n"
						b.StartTimer()
					}
					t0 := time.Now()
					if _, err := eng.Prune(context.Background(), req); err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(t0))
				}
				// The target is a median: report it beside the mean (ns/op).
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
