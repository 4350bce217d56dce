package benchmarks

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// wordCounter counts whitespace-separated fields, so expected figures can be worked out by hand.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

// lineWordCounter is wordCounter that also prices a line exactly, as the real tokenizer does
// (engine.LineCounter): a line's newline is no word, so it costs nothing.
type lineWordCounter struct{ wordCounter }

func (c lineWordCounter) CountLine(l string) int { return c.Count(l) }

func TestNewOutcome(t *testing.T) {
	tests := []struct {
		name       string
		gold, kept []int
		recall     float64
		hit        bool
	}{
		{"half", []int{2, 4}, []int{1, 2, 3}, 0.5, true},
		{"all", []int{2, 4}, []int{2, 4}, 1, true},
		{"none", []int{2, 4}, []int{1, 3}, 0, false},
		{"duplicate gold counted once", []int{2, 2, 4}, []int{2}, 0.5, true},
		{"nothing kept", []int{1}, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newOutcome(tt.gold, tt.kept, 100, 25)
			assert.InDelta(t, tt.recall, o.recall, 1e-12)
			assert.Equal(t, tt.hit, o.hit)
			assert.InDelta(t, 0.75, o.reduction(), 1e-12)
		})
	}
	assert.Zero(t, newOutcome([]int{1}, nil, 0, 0).reduction(), "an empty input reduces nothing")
}

func TestRowFinish(t *testing.T) {
	r := Row{outcomes: []outcome{
		{recall: 1, hit: true, hasGold: true, tokensBefore: 100, keptTokens: 10, bytes: 2_000_000, ms: 1000},
		{recall: 0, hasGold: true, tokensBefore: 300, keptTokens: 150, bytes: 1_000_000, ms: 2000, fallback: true},
		{recall: 0.5, hit: true, hasGold: true, tokensBefore: 50, keptTokens: 50, bytes: 0, ms: 3000, overBudget: true},
		{tokensBefore: 10, keptTokens: 0, ms: 4000}, // no gold: counted for tokens, not recall
	}}
	r.finish()
	assert.Equal(t, 4, r.Cases)
	assert.InDelta(t, 0.5, r.Recall, 1e-12, "macro over the three cases with gold")
	assert.InDelta(t, 2.0/3, r.HitRate, 1e-12)
	assert.InDelta(t, (0.9+0.5+0+1)/4, r.Reduction, 1e-12, "macro, not pooled")
	assert.InDelta(t, 52.5, r.KeptTokens, 1e-12)
	assert.InDelta(t, 115, r.TokensBefore, 1e-12)
	assert.InDelta(t, 2000, r.P50MS, 1e-12, "nearest rank")
	assert.InDelta(t, 4000, r.P99MS, 1e-12)
	assert.InDelta(t, 0.3, r.MBPerS, 1e-12, "3 MB in 10 s")
	assert.Equal(t, 1, r.Fallbacks)
	assert.Equal(t, 1, r.OverBudget)
}

// tenWords is a line of ten words: ten tokens under wordCounter.
const tenWords = "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10"

func handCase(id string, gold []int, tail ...string) Case {
	lines := make([]string, 0, 10)
	for len(lines)+len(tail) < 10 {
		lines = append(lines, tenWords)
	}
	lines = append(lines, tail...)
	return Case{ID: id, SourceType: engine.SourceCode, Dataset: "hand", GoalHint: "anything", Text: strings.Join(lines, "\n") + "\n", GoldLines: gold}
}

// TestBudgetAccounting works the engine's budget accounting out by hand. Every line costs 10
// tokens plus 1 for its newline in the engine's estimate; a marker ("⟦PRUNÉ: prune_id=…
// lignes a-b (n) raison=hors focus⟧") is 7 words, 8 with its newline.
func TestBudgetAccounting(t *testing.T) {
	tests := []struct {
		name       string
		c          Case
		acc        Accounting
		before     float64
		kept       float64
		recall     float64
		overBudget int
		tok        engine.TokenCounter // wordCounter if nil
	}{
		{
			// Budget 50: the marker for 4-10 (8) + lines 1-3 (33) = 41; a 4th line would make 52.
			// Output: 3 lines (30 words) + the marker (7) = 37 tokens.
			name: "engine: head keeps 3 lines and a marker", c: handCase("a", []int{2, 5}), acc: AccountingEngine,
			before: 100, kept: 37, recall: 0.5,
		},
		{
			// ⟦NO_PRUNE⟧ lines 9-10 are kept whatever the budget (2 tokens + 2 newlines); budget
			// 41 = floor(0.5 * 82): lines 1-2 (22) + marker for 3-8 (8) + 4 = 34; a 3rd line makes 45.
			// Output: 20 + 7 + 2 = 29 tokens, and the protected gold line is found.
			name: "engine: protected lines and markers count as kept", c: handCase("b", []int{10}, engine.NoPruneBegin, engine.NoPruneEnd),
			acc: AccountingEngine, before: 82, kept: 29, recall: 1,
		},
		{
			// A counter that prices lines exactly is used as the engine uses it: lines cost 10
			// (no newline token), so budget 50 buys 4 lines + the marker (8) = 48.
			// Output: 40 + 7 = 47 tokens.
			name: "engine: exact line prices as the server has them", c: handCase("e", []int{2, 5}), acc: AccountingEngine,
			before: 100, kept: 47, recall: 0.5, tok: lineWordCounter{},
		},
		{
			// The reference accounting: 50 tokens buy exactly 5 lines, no marker.
			name: "lines: head keeps 5 lines", c: handCase("c", []int{2, 5}), acc: AccountingLines,
			before: 100, kept: 50, recall: 1,
		},
		{
			// Lines accounting keeps at least 5 lines even past the budget (10% of 100 = 10).
			name: "lines: at least five lines", c: handCase("d", []int{5, 6}), acc: AccountingLines,
			before: 100, kept: 50, recall: 0.5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := engine.NewRegistry()
			RegisterBaselines(reg)
			budget := 0.5
			if tt.c.ID == "d" {
				budget = 0.1
			}
			var tok engine.TokenCounter = wordCounter{}
			if tt.tok != nil {
				tok = tt.tok
			}
			rows, err := Run(context.Background(), Config{
				Cases: []Case{tt.c}, Registry: reg, Tokens: tok, Scorers: []string{"head"},
				Budgets: []float64{budget}, Modes: []Mode{ModeBudget}, Accounting: tt.acc,
			})
			require.NoError(t, err)
			require.Len(t, rows, 1)
			r := rows[0]
			assert.Equal(t, 1, r.Cases)
			assert.InDelta(t, tt.before, r.TokensBefore, 1e-9)
			assert.InDelta(t, tt.kept, r.KeptTokens, 1e-9)
			assert.InDelta(t, 1-tt.kept/tt.before, r.Reduction, 1e-9)
			assert.InDelta(t, tt.recall, r.Recall, 1e-9)
			assert.Equal(t, tt.overBudget, r.OverBudget)
			assert.Zero(t, r.Fallbacks)
		})
	}
}

func TestRunRowsAndOrder(t *testing.T) {
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	cases := []Case{handCase("x", []int{1}), handCase("y", []int{10})}
	cases[1].Dataset = "other"
	var calls []int
	rows, err := Run(context.Background(), Config{
		Cases: cases, Registry: reg, Tokens: wordCounter{}, Scorers: []string{"tail", "head"},
		Budgets: []float64{0.3, 0.5}, Parallel: 2, Progress: func(done, total int) { calls = append(calls, done*10+total) },
	})
	require.NoError(t, err)
	assert.ElementsMatch(t, []int{12, 22}, calls)
	var got []string
	for _, r := range rows {
		b := "-"
		if r.Budget != nil {
			b = formatBudget(*r.Budget)
		}
		got = append(got, r.Scorer+"/"+r.Dataset+"/"+string(r.Mode)+"/"+b)
		assert.Equal(t, 1, r.Cases)
		assert.Equal(t, AccountingEngine, r.Accounting)
	}
	assert.Equal(t, []string{
		"tail/hand/budget/30%", "tail/hand/budget/50%", "tail/hand/natural/-",
		"tail/other/budget/30%", "tail/other/budget/50%", "tail/other/natural/-",
		"head/hand/budget/30%", "head/hand/budget/50%", "head/hand/natural/-",
		"head/other/budget/30%", "head/other/budget/50%", "head/other/natural/-",
	}, got)
	// head finds line 1 of case x and tail line 10 of case y at every budget.
	for _, r := range rows {
		want := 0.0
		if (r.Scorer == "head") == (r.Dataset == "hand") || r.Mode == ModeNatural {
			want = 1
		}
		assert.InDelta(t, want, r.Recall, 1e-9, "%s %s %s", r.Scorer, r.Dataset, r.Mode)
	}
}

func TestRunErrors(t *testing.T) {
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	base := Config{Cases: []Case{handCase("x", []int{1})}, Registry: reg, Tokens: wordCounter{}, Scorers: []string{"head"}}
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"unknown scorer", func(c *Config) { c.Scorers = []string{"nope"} }, "unknown scorer"},
		{"budget zero", func(c *Config) { c.Budgets = []float64{0} }, "outside (0, 1]"},
		{"bad accounting", func(c *Config) { c.Accounting = "tokens" }, "unknown accounting"},
		{"no scorers", func(c *Config) { c.Scorers = nil }, "no scorers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.mutate(&cfg)
			_, err := Run(context.Background(), cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, base)
	assert.ErrorIs(t, err, context.Canceled)
}

// BenchmarkRun measures the harness itself (engine accounting, budget and natural modes) on
// synthetic code cases scored by the head baseline, with the word counter standing in for
// tiktoken so the figure is the harness's and the engine's, not the tokenizer's.
func BenchmarkRun(b *testing.B) {
	var cases []Case
	var bytes int64
	for i := 0; i < 20; i++ {
		var sb strings.Builder
		for j := 0; j < 500; j++ {
			sb.WriteString(tenWords)
			sb.WriteByte('\n')
		}
		cases = append(cases, Case{ID: "b", SourceType: engine.SourceCode, Dataset: "synthetic", Text: sb.String(), GoldLines: []int{250}})
		bytes += int64(sb.Len())
	}
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	b.ReportAllocs()
	b.SetBytes(bytes)
	for b.Loop() {
		if _, err := Run(context.Background(), Config{Cases: cases, Registry: reg, Tokens: wordCounter{}, Scorers: []string{"head"}, Parallel: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
