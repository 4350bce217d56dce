package structural

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
)

// BenchmarkScoreRealCached scores the first 40 files of ../shared/bench code.dev against their
// issues, round robin, each parsed once before the timing: an agent reading files again, with
// SWE-bench's long goals, where what is left is the per-request work on a cached outline.
func BenchmarkScoreRealCached(b *testing.B) {
	dir, err := benchmarks.DefaultDataDir("")
	if err != nil {
		b.Skipf("no benchmark data: %v", err)
	}
	cases, err := benchmarks.LoadCases(filepath.Join(dir, "code.dev.jsonl.gz"))
	if err != nil || len(cases) < 40 {
		b.Skipf("no code.dev cases: %v", err)
	}
	var reqs []*engine.ScoreRequest
	for _, c := range cases[:40] {
		reqs = append(reqs, &engine.ScoreRequest{Lines: engine.SplitLines(c.Text), Goal: c.GoalHint, SourceType: c.SourceType, Path: c.Path})
	}
	s := New()
	b.Cleanup(func() { _ = s.Close() })
	for _, r := range reqs { // parse once: the outlines are cached
		if _, err := s.Score(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Score(context.Background(), reqs[i%len(reqs)]); err != nil {
			b.Fatal(err)
		}
	}
}
