package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

func TestBestGoldRank(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		gold   []int
		want   int
	}{
		{"the top line is gold", []float64{0.9, 0.1, 0.5}, []int{1}, 1},
		{"the better of two gold lines counts", []float64{0.9, 0.1, 0.5}, []int{2, 3}, 2},
		{"ties rank by position, before the gold line", []float64{0.5, 0.5, 0.5}, []int{3}, 3},
		{"ties rank by position, after the gold line", []float64{0.5, 0.5, 0.5}, []int{1}, 1},
		{"of two tied gold lines the earlier ranks", []float64{0.2, 0.7, 0.7, 0.7}, []int{4, 3}, 2},
		{"last of all", []float64{0.3, 0.2, 0.1}, []int{3}, 3},
		{"no gold line", []float64{0.3, 0.2}, nil, 0},
		{"gold lines out of range are ignored", []float64{0.3, 0.2}, []int{0, 3, 2}, 2},
		{"only out of range", []float64{0.3}, []int{5}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, bestGoldRank(tt.scores, tt.gold))
			// The same rank as the sort the lines accounting uses.
			if tt.want > 0 {
				isGold := map[int]bool{}
				for _, g := range tt.gold {
					isGold[g-1] = true
				}
				for r, i := range rankLines(tt.scores, len(tt.scores)) {
					if isGold[i] {
						assert.Equal(t, r+1, tt.want)
						break
					}
				}
			}
		})
	}
}

// lineNumberScorer scores line i (1-based) i/100, so its ranking is known: the last line first.
type lineNumberScorer struct{ calls atomic.Int64 }

func (s *lineNumberScorer) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	s.calls.Add(1)
	out := make([]float64, len(req.Lines))
	for i, l := range req.Lines {
		if strings.HasSuffix(l, "\r") {
			return nil, errors.New("a line reached the scorer with its \\r")
		}
		out[i] = float64(i+1) / 100
	}
	return &engine.ScoreResponse{Scores: out, Warnings: []string{"w"}}, nil
}

// figures is what a run measures of the scorers' choices, latency left out.
func figures(rows []Row) []string {
	var out []string
	for _, r := range rows {
		b := "natural"
		if r.Budget != nil {
			b = formatBudget(*r.Budget)
		}
		out = append(out, fmt.Sprintf("%s %s %s %s recall=%v hit=%v reduction=%v kept=%v before=%v fallbacks=%d over=%d",
			r.Scorer, r.Dataset, r.Mode, b, r.Recall, r.HitRate, r.Reduction, r.KeptTokens, r.TokensBefore, r.Fallbacks, r.OverBudget))
	}
	return out
}

type failingScorer struct{}

func (failingScorer) Score(context.Context, *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	return nil, errors.New("boom")
}

// TestRunScores: with Config.Scores set, every scorer's scores on every case arrive once, as
// the engine received them, with the lines priced as the engine prices them, and nothing more
// is run: the same scorer calls, the same figures.
func TestRunScores(t *testing.T) {
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	lineNo := &lineNumberScorer{}
	reg.Register("lineno", lineNo)
	reg.Register("failing", failingScorer{})
	cases := []Case{handCase("x", []int{2, 9}), handCase("y", nil), handCase("z", []int{10})}
	cases[2].Text = strings.ReplaceAll(cases[2].Text, "\n", "\r\n")
	cfg := Config{
		Cases: cases, Registry: reg, Tokens: lineWordCounter{}, Scorers: []string{"lineno", "failing"},
		Budgets: []float64{0.3}, Parallel: 2,
	}
	plain, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	callsWithout := lineNo.calls.Load()

	var got []CaseScores
	cfg.Scores = func(r CaseScores) { got = append(got, r) }
	withScores, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, figures(plain), figures(withScores), "the figures do not change")
	assert.Equal(t, 2*callsWithout, lineNo.calls.Load(), "no scorer call more")

	require.Len(t, got, len(cases)*2)
	byKey := map[string]CaseScores{}
	for _, r := range got {
		byKey[r.Case+"/"+r.Scorer] = r
	}
	require.Len(t, byKey, len(cases)*2, "each case and scorer once")

	x := byKey["x/lineno"]
	assert.Equal(t, 0, x.Index)
	assert.Equal(t, "code", x.SourceType)
	assert.Equal(t, "hand", x.Dataset)
	assert.Equal(t, []int{2, 9}, x.GoldLines)
	require.Len(t, x.Scores, 10)
	assert.InDelta(t, 0.10, x.Scores[9], 1e-12)
	assert.Equal(t, 2, x.BestGoldRank, "line 9 is second after line 10")
	assert.Equal(t, []string{"w"}, x.Warnings)
	assert.Empty(t, x.Error)
	assert.Equal(t, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, x.LineTokens, "ten words a line, the newline free")

	assert.Equal(t, 0, byKey["y/lineno"].BestGoldRank, "no gold line")
	z := byKey["z/lineno"]
	assert.Equal(t, 2, z.Index)
	assert.Equal(t, 1, z.BestGoldRank)
	assert.Empty(t, z.Error, "lines reach the scorer without their \\r")

	f := byKey["x/failing"]
	assert.Equal(t, "no scores: every prune failed open (scorer_error)", f.Error)
	assert.Empty(t, f.Scores)
	assert.Zero(t, f.BestGoldRank)

	var buf bytes.Buffer
	require.NoError(t, WriteScores(&buf, []CaseScores{x, f}))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2)
	for i, l := range lines {
		var back map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &back))
		for _, k := range []string{"case", "scorer", "source_type", "dataset", "gold_lines", "best_gold_rank", "line_tokens", "scores"} {
			assert.Contains(t, back, k)
		}
		assert.NotContains(t, back, "Index")
		assert.NotNil(t, back["scores"], "scores are a list, [] for a failed scorer, never null")
		if i == 1 {
			assert.Equal(t, f.Error, back["error"])
		}
	}

	// Under lines accounting the scorer's own answer is recorded, its error as it said it.
	got = nil
	cfg.Accounting = AccountingLines
	_, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, got, len(cases)*2)
	for _, r := range got {
		if r.Scorer == "failing" {
			assert.Equal(t, "boom", r.Error)
			continue
		}
		assert.Empty(t, r.Error, r.Case)
		assert.Len(t, r.Scores, 10)
		assert.Equal(t, map[string]int{"x": 2, "y": 0, "z": 1}[r.Case], r.BestGoldRank, r.Case)
	}
}
