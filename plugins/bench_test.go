package plugins

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// BenchmarkScore measures one Score call of a cheap scorer (the faulty plugin's honest mode:
// share of goal words per line) in-process and through the plugin shim (gRPC over a local
// socket with mTLS), so the difference is the shim's per-call overhead, not scoring.
func BenchmarkScore(b *testing.B) {
	bin, sum := buildPlugin(b, "./plugins/testdata/faulty")
	c := newClient(b, Config{Name: "faulty", Command: bin, SHA256: sum})
	inproc := wordShare{}
	for _, n := range []int{200, 5000} {
		req := &engine.ScoreRequest{Lines: benchLines(n), Goal: "why does the parser fail on empty input", SourceType: engine.SourceLogs}
		bytes := 0
		for _, l := range req.Lines {
			bytes += len(l) + 1
		}
		for _, tc := range []struct {
			where string
			s     engine.Scorer
		}{{"in-process", inproc}, {"plugin", c}} {
			b.Run(fmt.Sprintf("lines=%d/where=%s", n, tc.where), func(b *testing.B) {
				// Start the process outside the timing, and check both ways agree.
				got, err := tc.s.Score(context.Background(), req)
				require.NoError(b, err)
				want, err := inproc.Score(context.Background(), req)
				require.NoError(b, err)
				require.Equal(b, want.Scores, got.Scores)
				b.SetBytes(int64(bytes))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tc.s.Score(context.Background(), req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func benchLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		switch i % 7 {
		case 0:
			out[i] = fmt.Sprintf("2024-05-01T10:%02d:%02dZ INFO worker %d: processed batch of %d items", i/60%60, i%60, i%8, i*3)
		case 3:
			out[i] = fmt.Sprintf("    at parser.parse (src/parser.js:%d:%d)", i, i%80)
		case 5:
			out[i] = strings.Repeat("=", 40)
		default:
			out[i] = fmt.Sprintf("step %d: compiling module_%d with flags -O2 -Wall", i, i)
		}
	}
	out[n/2] = "Error: parser failed on empty input"
	return out
}

// wordShare is the faulty plugin's honest scoring, in-process.
type wordShare struct{}

func (wordShare) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	scores := make([]float64, len(req.Lines))
	words := strings.Fields(strings.ToLower(req.Goal))
	for i, l := range req.Lines {
		l = strings.ToLower(l)
		hits := 0
		for _, w := range words {
			if strings.Contains(l, w) {
				hits++
			}
		}
		if len(words) > 0 {
			scores[i] = float64(hits) / float64(len(words))
		}
	}
	return &engine.ScoreResponse{Scores: scores}, nil
}
