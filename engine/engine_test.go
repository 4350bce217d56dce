package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

func TestPruneSeedExample(t *testing.T) {
	// Seed §10.2. Every run here is shorter than a marker, so nothing is worth cutting: the
	// engine never replaces a run by a marker that costs more tokens than the run.
	f := newFixture(t, 0)
	req := &engine.Request{Text: "L1\nL2\nL3\nL4", GoalHint: "garder L1", SourceType: engine.SourceDocs,
		Options: engine.Options{MaxPruneRatio: 0.75, MinKeepLines: 1, TimeoutMS: 1500, AnnotateLines: true, IncludeMarkers: true}}
	res, err := f.eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, res)
	assert.Equal(t, "1│ L1\n2│ L2\n3│ L3\n4│ L4", res.PrunedText)
	assert.Empty(t, res.Annotations)
	assert.False(t, res.Stats.UsedFallback)
}

func TestPruneRules(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		goal     string
		st       engine.SourceType
		opts     engine.Options
		keep     []int // lines that must be kept
		cut      []int // lines that must be cut
		reason   string
		warnings []string
	}{
		{
			name: "keeps matches and cuts the rest with markers",
			text: longLines(30, map[int]string{15: "target line about parse_header"}),
			goal: "parse_header", st: engine.SourceDocs, opts: opts(1, 0),
			keep: []int{15}, cut: []int{1, 10, 20, 30}, reason: "hors focus: parse_header",
		},
		{
			name: "max_prune_ratio restores the best lines",
			text: longLines(40, map[int]string{20: "needle"}),
			goal: "needle", st: engine.SourceDocs, opts: opts(0.5, 0),
			keep: []int{20},
		},
		{
			name: "min_keep_lines restores lines",
			text: longLines(40, map[int]string{20: "needle"}),
			goal: "needle", st: engine.SourceDocs, opts: opts(1, 25),
			keep: []int{20},
		},
		{
			name: "code: imports, declarations and header are never cut",
			text: longLines(40, map[int]string{1: "#!/usr/bin/env python", 2: "import os", 3: "from a.b import (", 4: "    c,", 5: ")",
				10: "class Parser:", 12: "    def parse(self):", 30: "    async def other(self):", 35: "func main() {"}),
			goal: "nothing matches", st: engine.SourceCode, opts: opts(1, 0),
			keep: []int{1, 2, 3, 4, 5, 10, 12, 30, 35}, cut: []int{20, 40},
		},
		{
			name: "logs: failure lines and their context are kept",
			text: longLines(40, map[int]string{25: "ERROR: build failed: cannot find module foo"}),
			goal: "unrelated", st: engine.SourceLogs, opts: opts(1, 0),
			keep: []int{24, 25, 26}, cut: []int{1, 10, 35},
		},
		{
			name: "docs: headings are kept",
			text: longLines(40, map[int]string{5: "# Title", 15: "Section", 16: "=======", 30: "## Other"}),
			goal: "unrelated", st: engine.SourceDocs, opts: opts(1, 0),
			keep: []int{5, 15, 16, 30}, cut: []int{1, 20, 40},
		},
		{
			name: "docs: a fence with a match is kept whole",
			text: longLines(40, map[int]string{10: "```go", 14: "needle()", 20: "```"}),
			goal: "needle", st: engine.SourceDocs, opts: opts(1, 0),
			keep: []int{10, 11, 13, 14, 19, 20}, cut: []int{5, 30},
		},
		{
			name: "docs: a fence without a match is cut whole",
			text: longLines(40, map[int]string{10: "```go", 20: "```", 30: "needle"}),
			goal: "needle", st: engine.SourceDocs, opts: opts(1, 0),
			keep: []int{30}, cut: []int{9, 10, 15, 20, 21},
		},
		{
			// With a reading of ~~~ as a fence, 11-21 would be one unit, cut whole with its titles.
			name: "docs: reStructuredText titles underlined with tildes are titles, not fences",
			text: longLines(40, map[int]string{10: "Process Management", 11: "~~~~~~~~~~~~~~~~~~", 20: "Miscellaneous", 21: "~~~~~~~~~~~~~", 30: "needle"}),
			goal: "needle", st: engine.SourceDocs, opts: opts(1, 0),
			keep: []int{10, 11, 20, 21, 30}, cut: []int{15, 25, 35},
		},
		{
			// Read as CommonMark reads it, 10-40 would be one unit, kept whole for its match.
			name: "docs: a fence never closed makes no unit",
			text: longLines(40, map[int]string{10: "```", 30: "needle"}),
			goal: "needle", st: engine.SourceDocs, opts: opts(1, 0),
			keep: []int{30}, cut: []int{10, 15, 35},
		},
		{
			// Seed 7.4 keeps log lines containing "error" or "exception": the line that says
			// what failed is usually a name ending in one (ValueError, IOException).
			name: "logs: an exception named in CamelCase is a failure line",
			text: longLines(60, map[int]string{30: "Traceback (most recent call last):", 31: "  File \"x.py\", line 3, in <module>", 32: "ValueError: bad", 45: "java.lang.IllegalStateException: closed"}),
			goal: "unrelated widget", st: engine.SourceLogs, opts: opts(1, 0),
			keep: []int{30, 31, 32, 44, 45, 46}, cut: []int{10, 20, 55},
		},
		{
			// A test's own failure message holds no failure word and may sit lines above
			// its "--- FAIL" (go test -v) or below the test's code (pytest's "E" lines).
			name: "logs: test failure messages are failure lines",
			text: longLines(60, map[int]string{20: "    calc_test.go:52: Sum([1 2 3]) = 5, want 6", 40: "E       assert 3 == 4"}),
			goal: "unrelated widget", st: engine.SourceLogs, opts: opts(1, 0),
			keep: []int{19, 20, 21, 39, 40, 41}, cut: []int{10, 30, 50},
		},
		{
			name: "NO_PRUNE regions are kept with both directives",
			text: longLines(40, map[int]string{10: "⟦NO_PRUNE_BEGIN⟧", 15: "secret sauce", 20: "⟦NO_PRUNE_END⟧"}),
			goal: "needle", st: engine.SourceLogs, opts: opts(1, 0),
			keep: []int{10, 11, 15, 19, 20}, cut: []int{5, 21, 30},
		},
		{
			name: "NO_PRUNE survives a token budget",
			text: longLines(40, map[int]string{10: "⟦NO_PRUNE_BEGIN⟧", 20: "⟦NO_PRUNE_END⟧"}),
			goal: "needle", st: engine.SourceCode, opts: opts(1, 0),
			keep: []int{10, 15, 20}, warnings: []string{engine.WarnTokenBudgetExceeded},
		},
		{
			// Long texts get their protection while the scorer works (overlapLines).
			name: "NO_PRUNE regions are kept in a long text",
			text: longLines(2500, map[int]string{1200: "⟦NO_PRUNE_BEGIN⟧", 1205: "secret sauce", 1210: "⟦NO_PRUNE_END⟧", 2000: "needle"}),
			goal: "needle", st: engine.SourceLogs, opts: opts(1, 0),
			keep: []int{1200, 1205, 1210, 2000}, cut: []int{5, 1199, 1211, 2400},
		},
		{
			name: "NO_PRUNE in a long text survives a token budget",
			text: longLines(2500, map[int]string{1200: "⟦NO_PRUNE_BEGIN⟧", 1210: "⟦NO_PRUNE_END⟧"}),
			goal: "needle", st: engine.SourceCode, opts: opts(1, 0),
			keep: []int{1200, 1205, 1210}, cut: []int{5, 2400}, warnings: []string{engine.WarnTokenBudgetExceeded},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 0)
			req := &engine.Request{Text: tc.text, GoalHint: tc.goal, SourceType: tc.st, Options: tc.opts}
			if strings.Contains(tc.name, "budget") {
				req.TokenBudget = 10
			}
			res, err := f.eng.Prune(context.Background(), req)
			require.NoError(t, err)
			checkResult(t, f, req, res)
			kept := map[int]bool{}
			for _, k := range res.Kept {
				kept[k] = true
			}
			for _, k := range tc.keep {
				assert.True(t, kept[k], "line %d kept", k)
			}
			for _, c := range tc.cut {
				assert.False(t, kept[c], "line %d cut", c)
			}
			if tc.reason != "" {
				require.NotEmpty(t, res.Annotations)
				assert.Equal(t, tc.reason, res.Annotations[0].Reason)
			}
			for _, w := range tc.warnings {
				assert.Contains(t, res.Warnings, w)
			}
		})
	}
}

func TestPruneAnnotateLinesNeverPrefixesMarkers(t *testing.T) {
	f := newFixture(t, 0)
	o := opts(0.9, 0)
	o.AnnotateLines = true
	req := &engine.Request{Text: longLines(30, map[int]string{15: "needle"}), GoalHint: "needle", SourceType: engine.SourceDocs, Options: o}
	res, err := f.eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, res)
	for _, l := range strings.Split(res.PrunedText, "\n") {
		if strings.Contains(l, "PRUNÉ") {
			assert.True(t, strings.HasPrefix(l, "⟦PRUNÉ"), "marker %q is not prefixed", l)
		} else if l != "" {
			assert.Regexp(t, `^\d+│ `, l)
		}
	}
	assert.Contains(t, res.PrunedText, "15│ needle")
}

// TestPruneRemembersNumberedCounts: the counts of a numbered answer's lines are remembered
// with the text (engine.NumberedMemo), and a text pruned again, its answer counted from
// them, gets the same answer and the same exact count.
func TestPruneRemembersNumberedCounts(t *testing.T) {
	f := newFixture(t, 0)
	var _ engine.NumberedMemo = f.tok
	o := opts(0.9, 0)
	o.AnnotateLines = true
	text := longLines(400, map[int]string{1: "// " + t.Name(), 120: "the needle is here", 300: "\tanother needle, indented"})
	req := &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceDocs, Options: o}
	first, err := f.eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, first)
	known := f.tok.NumberedCounts(text)
	require.Len(t, known, 400)
	for _, k := range first.Kept {
		assert.GreaterOrEqual(t, known[k-1], int32(0), "line %d's numbered count remembered", k)
	}
	second, err := f.eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, second)
	assert.Equal(t, first.Kept, second.Kept)
	first.Stats.ElapsedMS, second.Stats.ElapsedMS = 0, 0
	assert.Equal(t, first.Stats, second.Stats)
	assert.Equal(t, f.tok.Count(second.PrunedText), second.Stats.TokensEstAfter)
}

// TestPruneTwiceOnLongTexts: texts long enough for the counter to keep whole (and with them
// their lines' prices and numbered counts), of lines of every shape (indented, blank, CRLF,
// unicode, numbered-looking, long), pruned twice under random options: both answers are
// exact and the same.
func TestPruneTwiceOnLongTexts(t *testing.T) {
	f := newFixture(t, 0)
	r := rand.New(rand.NewPCG(40, 7))
	shapes := []func(i int) string{
		func(i int) string { return fmt.Sprintf("func handler%d(w http.ResponseWriter) error {", i) },
		func(i int) string {
			return strings.Repeat("\t", 1+i%3) + "return errors.New(\"needle " + strconv.Itoa(i) + "\")"
		},
		func(int) string { return "" },
		func(int) string { return "   " },
		func(i int) string { return fmt.Sprintf("line %d ends with CR\r", i) },
		func(i int) string { return fmt.Sprintf("%d│ a line that looks numbered, %d", i, i*7) },
		func(i int) string { return fmt.Sprintf("naïve café — résumé %d ✓", i) },
		func(i int) string { return strings.Repeat("word ", 20+i%30) + "needle" },
		func(int) string { return "}" },
	}
	remembered := 0
	for round := range 40 {
		var b strings.Builder
		n := 150 + r.IntN(500)
		for i := range n {
			b.WriteString(shapes[r.IntN(len(shapes))](i))
			b.WriteByte('\n')
		}
		text := b.String()
		if round%4 == 3 {
			text = strings.TrimSuffix(text, "\n") // no final line break
		}
		o := engine.Options{MaxPruneRatio: r.Float64(), MinKeepLines: r.IntN(60), TimeoutMS: 10000,
			AnnotateLines: round%5 != 4, IncludeMarkers: round%7 != 6}
		req := &engine.Request{Text: text, GoalHint: "needle handler", SourceType: engine.SourceCode, Options: o, Scorer: "hash"}
		if round%3 == 0 {
			req.TokenBudget = 50 + r.IntN(len(text)/4)
		}
		first, err := f.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		checkResult(t, f, req, first)
		if slices.ContainsFunc(f.tok.NumberedCounts(text), func(c int32) bool { return c >= 0 }) {
			remembered++
		}
		second, err := f.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		checkResult(t, f, req, second)
		require.Equal(t, first.Kept, second.Kept, "round %d", round)
		first.Stats.ElapsedMS, second.Stats.ElapsedMS = 0, 0
		require.Equal(t, first.Stats, second.Stats, "round %d", round)
		require.Equal(t, strings.ReplaceAll(first.PrunedText, first.PruneID, "ID"), strings.ReplaceAll(second.PrunedText, second.PruneID, "ID"), "round %d", round)
	}
	assert.GreaterOrEqual(t, remembered, 20, "second prunes that read remembered counts")
}

func TestPruneWithoutMarkers(t *testing.T) {
	f := newFixture(t, 0)
	o := opts(0.9, 0)
	o.IncludeMarkers = false
	req := &engine.Request{Text: longLines(30, map[int]string{15: "needle"}), GoalHint: "needle", SourceType: engine.SourceDocs, Options: o}
	res, err := f.eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, res)
	assert.NotContains(t, res.PrunedText, "PRUNÉ")
	require.NotEmpty(t, res.Annotations, "annotations stay even without markers")
	assert.NotEmpty(t, res.Annotations[0].Marker)
}

func TestPruneTokenBudget(t *testing.T) {
	f := newFixture(t, 0)
	text := longLines(200, map[int]string{50: "needle one", 51: "needle two", 150: "needle three"})
	for _, budget := range []int{150, 300, 800} {
		zero := 0.0
		req := &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceDocs, Options: opts(1, 0), TokenBudget: budget, Threshold: &zero}
		res, err := f.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		checkResult(t, f, req, res)
		assert.LessOrEqual(t, res.Stats.TokensEstAfter, budget, "budget %d", budget)
		assert.NotContains(t, res.Warnings, engine.WarnTokenBudgetExceeded)
		assert.Contains(t, res.Kept, 50, "the best line fits budget %d", budget)
	}
}

func TestPruneBudgetCutsProtectedWithWarning(t *testing.T) {
	f := newFixture(t, 0)
	text := longLines(100, map[int]string{10: "def first():", 50: "def second():", 90: "def needle():"})
	req := &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceCode, Options: opts(1, 0), TokenBudget: 150}
	res, err := f.eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, res)
	assert.Contains(t, res.Warnings, engine.WarnProtectedCut)
	assert.Contains(t, res.Kept, 90)
}

// underCounted scores lines as given and names two focus terms, the second much longer: a
// marker's price is estimated with the first, so runs without the second (all of them, in
// these tests) cost more than estimated and the exact-budget trim has to cut after selection.
func underCounted(scores []float64) engine.Scorer {
	return funcScorer(func(context.Context, *engine.ScoreRequest) (*engine.ScoreResponse, error) {
		return &engine.ScoreResponse{Scores: scores, Focus: []string{"a", "Zq9 Xw8 Vu7 Ts6 Rp5 Qn4 Ml3 Kj2 Hg1 Fd0 Ec"}}, nil
	})
}

// underCountedText is 26 short lines, each with an "a", and an import (line 9, scored
// lowest), with scores for underCounted: at a budget of 90 tokens the trim cuts line by line
// down to a lone marker.
func underCountedText() (string, []float64) {
	frags := []string{"a = 1", "a(bar)", "a", "da a", "a.b()", "return a"}
	lines := make([]string, 26)
	scores := make([]float64, len(lines))
	for i := range lines {
		lines[i] = frags[(i*i+3*i)%len(frags)]
		scores[i] = 0.3 + 0.1*float64(i*5%8)
	}
	lines[8], scores[8] = "import os", 0.01
	return strings.Join(lines, "\n") + "\n", scores
}

// withScorer replaces f's engine by one with the only scorer s (the default) and counter tok.
func (f *fixture) withScorer(t testing.TB, s engine.Scorer, tok engine.TokenCounter) *engine.Engine {
	t.Helper()
	reg := engine.NewRegistry()
	reg.Register("only", s)
	reg.SetDefault("only")
	eng, err := engine.New(engine.Config{Registry: reg, Store: f.store, Tokens: tok})
	require.NoError(t, err)
	f.eng = eng
	return eng
}

// TestPruneBudgetTrimWarnsOfProtectedCut: the exact-budget trim after selection may cut a
// rule-protected line that selection kept, and must then warn. Here (underCountedText) the
// trim cuts down to a lone marker: the answer fits the budget, but without its import.
func TestPruneBudgetTrimWarnsOfProtectedCut(t *testing.T) {
	text, scores := underCountedText()
	const imp = 8 // 0-based: "import os"
	f := newFixture(t, 0)
	eng := f.withScorer(t, underCounted(scores), f.tok)
	req := &engine.Request{Text: text, GoalHint: "x", SourceType: engine.SourceCode, Options: opts(1, 0), TokenBudget: 90}
	res, err := eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, res)
	require.False(t, res.Stats.UsedFallback, "%v", res.Warnings)
	require.NotContains(t, res.Kept, imp+1, "the trim cuts the import")
	assert.LessOrEqual(t, res.Stats.TokensEstAfter, req.TokenBudget)
	assert.Contains(t, res.Warnings, engine.WarnProtectedCut)
}

// TestPruneBudgetTrimCutsUnprotectedFirst: when the exact-budget trim must cut more than
// selection did (the estimate under-counts the markers, as above), it cuts unprotected lines
// before a rule-protected one, even one scored lower: the import stays and no warning is due.
func TestPruneBudgetTrimCutsUnprotectedFirst(t *testing.T) {
	lines := []string{
		"import os",
		"x = compute(1)", "y = compute(2)", "z = compute(3)",
		"a filler line about nothing in particular at all, really nothing",
		"a second filler line about nothing in particular at all, really",
		"a third filler line about nothing in particular at all, really",
		"a fourth filler line about nothing in particular at all, really",
		"a fifth line, somewhat relevant, that costs a fair number of tokens too",
		"w = compute(4)", "v = compute(5)",
	}
	scores := []float64{0.01, 0.9, 0.9, 0.9, 0.05, 0.05, 0.05, 0.05, 0.2, 0.9, 0.9}
	f := newFixture(t, 0)
	eng := f.withScorer(t, underCounted(scores), f.tok)
	req := &engine.Request{Text: strings.Join(lines, "\n") + "\n", GoalHint: "x", SourceType: engine.SourceCode, Options: opts(1, 0), TokenBudget: 100}
	res, err := eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, res)
	require.False(t, res.Stats.UsedFallback, "%v", res.Warnings)
	assert.LessOrEqual(t, res.Stats.TokensEstAfter, req.TokenBudget)
	assert.NotContains(t, res.Kept, 9, "line 9 (0.2) is cut before the import (0.01)")
	assert.Contains(t, res.Kept, 1)
	assert.NotContains(t, res.Warnings, engine.WarnProtectedCut)
}

// TestPruneBudgetUnderFloorsNeverCostsMore: floors that keep the output over its budget
// leave the exact-budget trim nothing worth cutting; it used to cut the lowest-scored units
// anyway, lone blank lines, each becoming a marker dearer than itself, until the output had
// more tokens than the text. Now every cut saves tokens, so the output costs less.
func TestPruneBudgetUnderFloorsNeverCostsMore(t *testing.T) {
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "func helper%d(a, b int) int { return a*%d + b - compute(a, b) }\n\n", i, i)
	}
	text := b.String()
	// The goal's line first, then code, then the blank lines, as a real scorer ranks them.
	scorer := funcScorer(func(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
		scores := make([]float64, len(r.Lines))
		for i, l := range r.Lines {
			switch {
			case strings.Contains(l, "helper7("):
				scores[i] = 1
			case l != "":
				scores[i] = 0.5
			default:
				scores[i] = 0.05
			}
		}
		return &engine.ScoreResponse{Scores: scores}, nil
	})
	f := newFixture(t, 0)
	eng := f.withScorer(t, scorer, f.tok)
	for _, floor := range []engine.Options{opts(1, 100), opts(0.05, 0), opts(0.5, 80)} {
		req := &engine.Request{Text: text, GoalHint: "helper7", SourceType: engine.SourceCode, Options: floor, TokenBudget: 50}
		res, err := eng.Prune(context.Background(), req)
		require.NoError(t, err)
		checkResult(t, f, req, res)
		require.Contains(t, res.Warnings, engine.WarnTokenBudgetExceeded, "the floors keep more than 50 tokens")
		assert.Less(t, res.Stats.TokensEstAfter, res.Stats.TokensEstBefore, "options %+v", floor)
		for _, a := range res.Annotations {
			assert.Greater(t, f.tok.Count(strings.Join(engine.SplitLines(text)[a.OriginalStartLine-1:a.OriginalEndLine], "\n")+"\n"),
				f.tok.Count(a.Marker), "cut run %d-%d costs more than its marker", a.OriginalStartLine, a.OriginalEndLine)
		}
	}
}

// TestPruneFailOpen also checks what a fail-open result tells the operator's log and not the
// wire: the scorer asked (none for an oversized input, which is never scored) and why.
func TestPruneFailOpen(t *testing.T) {
	text := longLines(50, map[int]string{10: "needle"})
	tests := []struct {
		name, scorer, warning string
		maxChars, timeoutMS   int
		asked, why            string // the Result's ScorerName and FallbackError
	}{
		{name: "input too large", scorer: "keyword", warning: engine.WarnInputTooLarge, maxChars: 100, timeoutMS: 1000},
		{name: "scorer error", scorer: "error", warning: engine.WarnScorerError, timeoutMS: 1000, asked: "error", why: "boom"},
		{name: "scorer panic", scorer: "panic", warning: engine.WarnScorerError, timeoutMS: 1000, asked: "panic", why: "scorer panicked: scorer bug"},
		{name: "NaN score", scorer: "nan", warning: engine.WarnScorerError, timeoutMS: 1000, asked: "nan", why: "bad scores: line 1 scored NaN"},
		{name: "wrong length", scorer: "short", warning: engine.WarnScorerError, timeoutMS: 1000, asked: "short", why: "bad scores: 49 scores for 50 lines"},
		{name: "out of range", scorer: "range", warning: engine.WarnScorerError, timeoutMS: 1000, asked: "range", why: "bad scores: line 1 scored 1.5"},
		{name: "nil response", scorer: "nil", warning: engine.WarnScorerError, timeoutMS: 1000, asked: "nil", why: "bad scores: nil response"},
		{name: "threshold out of range", scorer: "badthreshold", warning: engine.WarnScorerError, timeoutMS: 1000, asked: "badthreshold", why: "bad scores: threshold -0.5 outside [0, 1]"},
		{name: "hang past the deadline", scorer: "hang", warning: engine.WarnTimeout, timeoutMS: 30, asked: "hang", why: "context deadline exceeded"},
		{name: "slow past the deadline", scorer: "slow", warning: engine.WarnTimeout, timeoutMS: 30, asked: "slow", why: "context deadline exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.maxChars)
			o := opts(0.9, 0)
			o.TimeoutMS = tc.timeoutMS
			o.AnnotateLines = true
			req := &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceCode, Options: o, Scorer: tc.scorer}
			res, err := f.eng.Prune(context.Background(), req)
			require.NoError(t, err)
			checkResult(t, f, req, res)
			assert.True(t, res.Stats.UsedFallback)
			assert.Equal(t, text, res.PrunedText)
			assert.Equal(t, []engine.Annotation{}, res.Annotations)
			assert.Equal(t, []string{tc.warning}, res.Warnings)
			assert.Equal(t, tc.asked, res.ScorerName, "the scorer asked, even though it failed")
			assert.Equal(t, tc.why, res.FallbackError)
			b, err := json.Marshal(res)
			require.NoError(t, err)
			var wire map[string]any
			require.NoError(t, json.Unmarshal(b, &wire))
			assert.ElementsMatch(t, []string{"prune_id", "pruned_text", "annotations", "stats", "warnings"}, slices.Collect(maps.Keys(wire)),
				"neither reaches the wire")
		})
	}
}

func TestPruneOversizeCheckedBeforeOptions(t *testing.T) {
	f := newFixture(t, 10)
	req := &engine.Request{Text: "this text is longer than ten characters", SourceType: "bogus", Options: engine.Options{MaxPruneRatio: 7}}
	res, err := f.eng.Prune(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, []string{engine.WarnInputTooLarge}, res.Warnings)
	rec, err := f.eng.Recover(context.Background(), res.PruneID, []engine.Range{{StartLine: 1, EndLine: 1}}, false)
	require.NoError(t, err)
	assert.Equal(t, req.Text, rec.RawText)
}

// TestPruneOversizeIsNotCounted: an oversized text's token figures are the estimate, so the
// guard answers without the exact count that a large text makes slow (a counter that panics
// shows it is never asked).
func TestPruneOversizeIsNotCounted(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	counter := &switchCounter{}
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil),
		Tokens: counter, MaxInputChars: 10})
	require.NoError(t, err)
	counter.armed.Store(true)
	text := strings.Repeat("y", 101)
	res, err := eng.Prune(context.Background(), &engine.Request{Text: text, GoalHint: "x", SourceType: engine.SourceLogs, Options: opts(0.5, 0)})
	require.NoError(t, err)
	assert.Equal(t, []string{engine.WarnInputTooLarge}, res.Warnings)
	assert.Equal(t, 26, res.Stats.TokensEstBefore, "a quarter of the bytes, rounded up")
	assert.Equal(t, res.Stats.TokensEstBefore, res.Stats.TokensEstAfter)
	assert.Equal(t, text, res.PrunedText)
}

func TestPruneCountsCharactersNotBytes(t *testing.T) {
	f := newFixture(t, 10)
	req := &engine.Request{Text: "ééééééééé", GoalHint: "x", SourceType: engine.SourceDocs, Options: opts(0.5, 0)}
	res, err := f.eng.Prune(context.Background(), req)
	require.NoError(t, err)
	assert.NotContains(t, res.Warnings, engine.WarnInputTooLarge, "9 characters fit a 10-character limit even as 18 bytes")
}

func TestPruneInvalidRequests(t *testing.T) {
	f := newFixture(t, 0)
	bad := -0.5
	tests := []struct {
		name  string
		req   engine.Request
		field string
	}{
		{"ratio above 1", engine.Request{SourceType: engine.SourceCode, Options: engine.Options{MaxPruneRatio: 1.5, TimeoutMS: 1}}, "options.max_prune_ratio"},
		{"negative min keep", engine.Request{SourceType: engine.SourceCode, Options: engine.Options{MinKeepLines: -1, TimeoutMS: 1}}, "options.min_keep_lines"},
		{"zero timeout", engine.Request{SourceType: engine.SourceCode, Options: engine.Options{}}, "options.timeout_ms"},
		{"timeout past the maximum", engine.Request{SourceType: engine.SourceCode, Options: engine.Options{TimeoutMS: engine.MaxTimeoutMS + 1}}, "options.timeout_ms"},
		// Number.MAX_SAFE_INTEGER: as a time.Duration of milliseconds it wraps to a negative deadline.
		{"timeout past a duration", engine.Request{SourceType: engine.SourceCode, Options: engine.Options{TimeoutMS: 9_007_199_254_740_991}}, "options.timeout_ms"},
		{"largest int timeout", engine.Request{SourceType: engine.SourceCode, Options: engine.Options{TimeoutMS: math.MaxInt}}, "options.timeout_ms"},
		{"source type", engine.Request{SourceType: "prose", Options: opts(0.5, 0)}, "source_type"},
		{"threshold", engine.Request{SourceType: engine.SourceCode, Options: opts(0.5, 0), Threshold: &bad}, "threshold"},
		{"token budget", engine.Request{SourceType: engine.SourceCode, Options: opts(0.5, 0), TokenBudget: -1}, "token_budget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.eng.Prune(context.Background(), &tc.req)
			var fe *engine.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.field, fe.Field)
		})
	}
	_, err := f.eng.Prune(context.Background(), &engine.Request{SourceType: engine.SourceCode, Options: opts(0.5, 0), Scorer: "nope"})
	assert.ErrorIs(t, err, engine.ErrUnknownScorer)
}

// TestPruneLargestTimeout: timeout_ms at MaxTimeoutMS is a deadline weeks away, not one that
// has wrapped into the past (values from ~9.2e12 on did, and failed open at once).
func TestPruneLargestTimeout(t *testing.T) {
	f := newFixture(t, 0)
	o := opts(0.9, 0)
	o.TimeoutMS = engine.MaxTimeoutMS
	res, err := f.eng.Prune(context.Background(), &engine.Request{Text: longLines(50, map[int]string{10: "needle"}),
		GoalHint: "needle", SourceType: engine.SourceCode, Options: o})
	require.NoError(t, err)
	assert.False(t, res.Stats.UsedFallback, "warnings: %v", res.Warnings)
	assert.NotEmpty(t, res.Annotations)
}

func TestPruneRoundTripsAwkwardBytes(t *testing.T) {
	texts := map[string]string{
		"crlf":             "a\r\nb\r\nneedle\r\n",
		"no final newline": "a\nb\nneedle",
		"invalid utf-8":    "a\xff\xfe\nneedle\x80\nc",
		"nul bytes":        "a\x00b\nneedle\x00\n\x00",
		"empty":            "",
		"only newline":     "\n",
		"blank lines":      "\n\n\nneedle\n\n",
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 0)
			req := &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceLogs, Options: opts(1, 0)}
			res, err := f.eng.Prune(context.Background(), req)
			require.NoError(t, err)
			checkResult(t, f, req, res)
		})
	}
}

func TestPruneIsDeterministic(t *testing.T) {
	f := newFixture(t, 0)
	text := longLines(300, map[int]string{40: "needle", 200: "needle again"})
	var prev *engine.Result
	for i := 0; i < 3; i++ {
		req := &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceCode, Options: opts(0.9, 5), Scorer: "hash", TokenBudget: 500}
		res, err := f.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		if prev != nil {
			assert.Equal(t, prev.Kept, res.Kept)
			assert.Equal(t, strings.ReplaceAll(prev.PrunedText, prev.PruneID, "ID"), strings.ReplaceAll(res.PrunedText, res.PruneID, "ID"))
		}
		prev = res
	}
}

func TestRecover(t *testing.T) {
	f := newFixture(t, 0)
	res, err := f.eng.Prune(context.Background(), &engine.Request{Text: "one\ntwo\nthree\nfour\n", GoalHint: "x", SourceType: engine.SourceDocs, Options: opts(0.5, 0)})
	require.NoError(t, err)
	id := res.PruneID
	tests := []struct {
		name    string
		ranges  []engine.Range
		numbers bool
		want    string
		err     error
		maxLine int
	}{
		{name: "one range", ranges: []engine.Range{{StartLine: 2, EndLine: 3}}, want: "two\nthree"},
		{name: "with line numbers", ranges: []engine.Range{{StartLine: 2, EndLine: 3}}, numbers: true, want: "2│ two\n3│ three"},
		{name: "ranges in request order", ranges: []engine.Range{{StartLine: 3, EndLine: 3}, {StartLine: 1, EndLine: 1}}, want: "three\none"},
		{name: "end clamped", ranges: []engine.Range{{StartLine: 3, EndLine: 99}}, want: "three\nfour\n"},
		{name: "the whole text, byte for byte", ranges: []engine.Range{{StartLine: 1, EndLine: 4}}, want: "one\ntwo\nthree\nfour\n"},
		{name: "the whole text in two ranges", ranges: []engine.Range{{StartLine: 1, EndLine: 2}, {StartLine: 3, EndLine: 4}}, want: "one\ntwo\nthree\nfour\n"},
		// The text's final "\n" ends a recovery, never a range inside one: "four\n\none" would
		// show a blank line between them that the text does not have.
		{name: "the last line before another range", ranges: []engine.Range{{StartLine: 4, EndLine: 4}, {StartLine: 1, EndLine: 1}}, want: "four\none"},
		{name: "start below 1", ranges: []engine.Range{{StartLine: 0, EndLine: 2}}, err: engine.ErrInvalidRange, maxLine: 4},
		{name: "start after end", ranges: []engine.Range{{StartLine: 3, EndLine: 2}}, err: engine.ErrInvalidRange, maxLine: 4},
		{name: "start past last line", ranges: []engine.Range{{StartLine: 5, EndLine: 9}}, err: engine.ErrInvalidRange, maxLine: 4},
		{name: "no ranges", ranges: nil, err: engine.ErrInvalidRange, maxLine: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := f.eng.Recover(context.Background(), id, tc.ranges, tc.numbers)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				var re *engine.RangeError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, tc.maxLine, re.MaxLine)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, rec.RawText)
			assert.Equal(t, engine.RecoveryMetadata{PruneID: id, Ranges: tc.ranges, LineNumbering: "original"}, rec.Metadata)
		})
	}
	_, err = f.eng.Recover(context.Background(), "prn_00000000000000000000000000000000", []engine.Range{{StartLine: 1, EndLine: 1}}, false)
	require.ErrorIs(t, err, engine.ErrPruneIDNotFound)
	var nf *engine.NotFoundError
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, "prn_00000000000000000000000000000000", nf.PruneID)
}

func TestMemoryStoreTTLAndEviction(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	ctx := context.Background()
	entry := int64(engine.StoreEntryOverhead + 1 + 4) // a one-letter id and a four-byte text
	s := engine.NewMemoryStore(10*time.Second, 2*entry+2, clock)

	require.NoError(t, s.Put(ctx, "a", "aaaa"))
	require.NoError(t, s.Put(ctx, "b", "bbbb"))
	_, err := s.Get(ctx, "a") // a is now the most recently used
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, "c", "cccc")) // three entries exceed the cap: evict b, the least recently used
	_, err = s.Get(ctx, "b")
	assert.ErrorIs(t, err, engine.ErrPruneIDNotFound)
	got, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, "aaaa", got)
	assert.Equal(t, 2*entry, s.Bytes())

	err = s.Put(ctx, "huge", strings.Repeat("x", int(2*entry)))
	assert.ErrorIs(t, err, engine.ErrTooLargeToStore, "Put says it could not keep the text")
	_, err = s.Get(ctx, "huge")
	assert.ErrorIs(t, err, engine.ErrPruneIDNotFound, "a text over the whole cap is not kept")
	_, err = s.Get(ctx, "a")
	assert.NoError(t, err, "and evicts nothing")

	now = now.Add(10 * time.Second)
	_, err = s.Get(ctx, "a")
	assert.ErrorIs(t, err, engine.ErrPruneIDNotFound, "expired at the TTL")
	require.NoError(t, s.Put(ctx, "d", "dd"))
	assert.Equal(t, 1, s.Len(), "expired entries are swept")
}

// Identical texts are held once, and the text stays as long as one entry holds it.
func TestMemoryStoreSharesIdenticalTexts(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	ctx := context.Background()
	text := strings.Repeat("the same file, read again\n", 100)
	entry := int64(engine.StoreEntryOverhead + 3)
	s := engine.NewMemoryStore(10*time.Second, 1<<20, clock)

	require.NoError(t, s.Put(ctx, "id1", text))
	require.NoError(t, s.Put(ctx, "id2", strings.Clone(text)))
	assert.Equal(t, int64(len(text))+2*entry, s.Bytes(), "one copy of the text, two entries")
	require.NoError(t, s.Put(ctx, "id3", "another text"))
	assert.Equal(t, int64(len(text)+len("another text"))+3*entry, s.Bytes())

	require.NoError(t, s.Put(ctx, "id1", "replaced")) // id1 lets go of the shared text; id2 keeps it
	got, err := s.Get(ctx, "id2")
	require.NoError(t, err)
	assert.Equal(t, text, got)
	got, err = s.Get(ctx, "id1")
	require.NoError(t, err)
	assert.Equal(t, "replaced", got)
	assert.Equal(t, int64(len(text)+len("another text")+len("replaced"))+3*entry, s.Bytes())

	now = now.Add(10 * time.Second)
	require.NoError(t, s.Put(ctx, "id4", "x")) // sweeps the expired entries, and with them their texts
	assert.Equal(t, 1, s.Len())
	assert.Equal(t, int64(1)+entry, s.Bytes())
}

// The cap bounds the entries too: a flood of one repeated text (or of tiny texts) cannot grow
// the store past it.
func TestMemoryStoreBoundsRepeatedTexts(t *testing.T) {
	ctx := context.Background()
	entry := engine.StoreEntryOverhead + len(engine.NewPruneID())
	maxBytes := int64(100*entry + 2) // room for 100 entries and one copy of "ok"
	s := engine.NewMemoryStore(time.Minute, maxBytes, nil)
	for range 10_000 {
		require.NoError(t, s.Put(ctx, engine.NewPruneID(), "ok"))
	}
	assert.Equal(t, 100, s.Len(), "each entry counts its id and overhead")
	assert.Equal(t, maxBytes, s.Bytes())
}

// elsewhereScorer says it scores in another process, as a plugin client does.
type elsewhereScorer struct{ keywordScorer }

func (elsewhereScorer) ScoresElsewhere() bool { return true }

// TestScoresElsewhere: the engine tells a caller whether a request's scorer, named or the
// source type's default, works in another process, building a family's scorer as Prune
// would; what it cannot find counts as in-process.
func TestScoresElsewhere(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	reg.Register("remote", elsewhereScorer{})
	reg.RegisterFamily("plug", "scorers in child processes", func(context.Context, string) (engine.Scorer, error) {
		return elsewhereScorer{}, nil
	})
	reg.SetDefault("keyword")
	reg.SetDefault("remote", engine.SourceLogs)
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: tok})
	require.NoError(t, err)
	ctx := context.Background()
	for _, tc := range []struct {
		scorer string
		st     engine.SourceType
		want   bool
	}{
		{"keyword", engine.SourceCode, false},
		{"remote", engine.SourceCode, true},
		{"", engine.SourceCode, false},
		{"", engine.SourceLogs, true},
		{"plug:a", engine.SourceCode, true}, // built on first use
		{"nope", engine.SourceCode, false},
	} {
		got := eng.ScoresElsewhere(ctx, &engine.Request{Scorer: tc.scorer, SourceType: tc.st})
		assert.Equal(t, tc.want, got, "%q for %s", tc.scorer, tc.st)
	}
}

func TestRegistry(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	assert.Panics(t, func() { reg.Register("keyword", keywordScorer{}) }, "duplicate names are programming errors")
	assert.Panics(t, func() { reg.Register("a:b", keywordScorer{}) })

	builds := 0
	reg.RegisterFamily("fam", "test family", func(_ context.Context, arg string) (engine.Scorer, error) {
		builds++
		if arg == "bad" {
			return nil, errors.New("cannot build")
		}
		return keywordScorer{}, nil
	})
	ctx := context.Background()
	_, err := reg.Get(ctx, "fam:x")
	require.NoError(t, err)
	_, err = reg.Get(ctx, "fam:x")
	require.NoError(t, err)
	assert.Equal(t, 1, builds, "family scorers are cached by spec")
	_, err = reg.Get(ctx, "fam:bad")
	assert.ErrorContains(t, err, "cannot build")
	_, err = reg.Get(ctx, "missing")
	assert.ErrorIs(t, err, engine.ErrUnknownScorer)
	assert.ErrorContains(t, err, `(known: fam:<arg>, keyword)`, "the error lists what would have worked")
	_, err = reg.Get(ctx, "nofam:x")
	assert.ErrorIs(t, err, engine.ErrUnknownScorer)
	for _, spec := range []string{"fam", "fam:"} {
		_, err = reg.Get(ctx, spec)
		assert.ErrorIs(t, err, engine.ErrUnknownScorer, spec)
		assert.ErrorContains(t, err, "the fam family takes an argument (fam:<arg>)", spec)
	}
	assert.Equal(t, 2, builds, "a family named without its argument builds nothing")

	assert.Equal(t, "keyword", reg.DefaultFor(engine.SourceLogs), "the first registered scorer is the default")
	reg.Register("other", keywordScorer{})
	reg.SetDefault("other", engine.SourceCode)
	assert.Equal(t, "other", reg.DefaultFor(engine.SourceCode))
	assert.Equal(t, "keyword", reg.DefaultFor(engine.SourceDocs))
	names := []string{}
	for _, info := range reg.List() {
		names = append(names, info.Name)
	}
	assert.Equal(t, []string{"fam:<arg>", "keyword", "other"}, names)
	assert.NoError(t, reg.Close())
}

func TestFallbackIsRecoverable(t *testing.T) {
	f := newFixture(t, 0)
	text := "a\nb\n"
	res, err := f.eng.Fallback(context.Background(), text, engine.WarnTimeout)
	require.NoError(t, err)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, text, res.PrunedText)
	assert.Equal(t, []string{engine.WarnTimeout}, res.Warnings)
	rec, err := f.eng.Recover(context.Background(), res.PruneID, []engine.Range{{StartLine: 1, EndLine: 2}}, false)
	require.NoError(t, err)
	assert.Equal(t, text, rec.RawText)
}

// panicCounter stands for a token counter with a bug.
type panicCounter struct{}

func (panicCounter) Count(string) int { panic("counter bug") }

func TestPruneSurvivesAPanickingTokenCounter(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	store := engine.NewMemoryStore(time.Minute, 1<<20, nil)
	counter := &switchCounter{}
	eng, err := engine.New(engine.Config{Registry: reg, Store: store, Tokens: counter})
	require.NoError(t, err)
	counter.armed.Store(true)
	text := "one\ntwo needle\nthree\n"
	res, err := eng.Prune(context.Background(), &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceDocs, Options: opts(0.5, 0)})
	require.NoError(t, err)
	assert.Equal(t, text, res.PrunedText)
	assert.Equal(t, []string{engine.WarnInternalError}, res.Warnings)
	assert.True(t, res.Stats.UsedFallback)
	rec, err := eng.Recover(context.Background(), res.PruneID, []engine.Range{{StartLine: 1, EndLine: 3}}, false)
	require.NoError(t, err)
	assert.Equal(t, text, rec.RawText)
}

// TestFallbackSurvivesAPanickingTokenCounter: Fallback (the server's answer to a request that
// timed out in its queue) fails open like Prune when the token counter has a bug: the text
// comes back unchanged and recoverable, with an estimate for its tokens, instead of the
// panic reaching the caller.
// TestFallbackDoesNotCount: a caller that has given up (a request out of time in a queue)
// gets its answer without an exact count, which one huge line makes slow: a counter that
// panics shows it is not asked, and the figures are the estimate.
func TestFallbackDoesNotCount(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	counter := &switchCounter{}
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: counter})
	require.NoError(t, err)
	counter.armed.Store(true)
	text := "one\ntwo\nthree\n"
	var res *engine.Result
	require.NotPanics(t, func() { res, err = eng.Fallback(context.Background(), text, engine.WarnTimeout) })
	require.NoError(t, err)
	assert.Equal(t, text, res.PrunedText)
	assert.Equal(t, []string{engine.WarnTimeout}, res.Warnings)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, 3, res.Stats.OriginalLines)
	assert.Equal(t, (len(text)+3)/4, res.Stats.TokensEstBefore, "an estimate")
	assert.Equal(t, res.Stats.TokensEstBefore, res.Stats.TokensEstAfter)
	rec, err := eng.Recover(context.Background(), res.PruneID, []engine.Range{{StartLine: 1, EndLine: 3}}, false)
	require.NoError(t, err)
	assert.Equal(t, text, rec.RawText)
}

// switchCounter counts normally while the engine is built (its marker calibration) and
// panics once armed.
type switchCounter struct{ armed atomic.Bool }

func (c *switchCounter) Count(s string) int {
	if c.armed.Load() {
		panicCounter{}.Count(s)
	}
	return len(s) / 4
}

// TestPruneScorerThreshold: a scorer's per-request threshold replaces its default; a
// request's own threshold and a token budget still take precedence.
func TestPruneScorerThreshold(t *testing.T) {
	// Line i scores i/10: the scorer's threshold decides how many lines are kept.
	ramp := func(th *float64) engine.Scorer {
		return funcScorer(func(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			s := make([]float64, len(r.Lines))
			for i := range s {
				s[i] = float64(i) / 10
			}
			return &engine.ScoreResponse{Scores: s, Threshold: th}, nil
		})
	}
	text := longLines(11, nil)
	f64 := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name      string
		scorer    *float64 // the scorer's per-request threshold
		request   *float64 // the request's threshold
		budget    int
		wantFirst int // first kept line (1-based); every line after it is kept too
	}{
		{name: "scorer default (0.5)", wantFirst: 6},
		{name: "per-request threshold", scorer: f64(0.8), wantFirst: 9},
		{name: "request threshold wins", scorer: f64(0.3), request: f64(0.8), wantFirst: 9},
		// Under a budget every line is a candidate, best first: lines 8 to 10 (0.7 to 0.9)
		// fit beside the marker.
		{name: "a budget ignores the scorer's threshold", scorer: f64(0.95), budget: 100, wantFirst: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := engine.NewRegistry()
			reg.Register("ramp", describedScorer{ramp(tc.scorer), 0.5})
			tok, err := tokenizer.Load(tokenizer.CL100K)
			require.NoError(t, err)
			eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: tok})
			require.NoError(t, err)
			req := &engine.Request{Text: text, GoalHint: "x", SourceType: engine.SourceCode, Options: opts(1, 0),
				Threshold: tc.request, TokenBudget: tc.budget}
			res, err := eng.Prune(context.Background(), req)
			require.NoError(t, err)
			require.False(t, res.Stats.UsedFallback, "warnings %v", res.Warnings)
			want := make([]int, 0, 12-tc.wantFirst)
			for i := tc.wantFirst; i <= 11; i++ {
				want = append(want, i)
			}
			assert.Equal(t, want, res.Kept)
		})
	}
}

// describedScorer gives a scorer a default threshold.
type describedScorer struct {
	engine.Scorer
	threshold float64
}

func (d describedScorer) Describe() engine.ScorerInfo {
	return engine.ScorerInfo{Name: "described", Threshold: d.threshold}
}

// TestPruneCountsLongNumberedOutput: a numbered answer of thousands of lines (counted line
// by line, in two halves at once) reports the exact count of its text, with and without a
// final line break and under a token budget. The text is this package's Go source, with
// CRLF, unicode and blank-led lines mixed in.
func TestPruneCountsLongNumberedOutput(t *testing.T) {
	srcs, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var lines []string
	for _, p := range srcs {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	for i := range lines {
		switch i % 97 {
		case 3:
			lines[i] += "\r"
		case 5:
			lines[i] = "  \u00a0é ⟦x⟧ " + lines[i]
		}
	}
	for len(lines) < 6000 {
		lines = append(lines, lines...)
	}
	text := strings.Join(lines[:6000], "\n")
	f := newFixture(t, 0)
	for _, tc := range []struct {
		name   string
		text   string
		budget int
	}{
		{"final line break", text + "\n", 0},
		{"no final line break", text, 0},
		{"token budget", text + "\n", 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(0.5, 0)
			o.AnnotateLines = true
			req := &engine.Request{Text: tc.text, GoalHint: "selection budget marker render", SourceType: engine.SourceCode, Options: o, TokenBudget: tc.budget}
			res, err := f.eng.Prune(context.Background(), req)
			require.NoError(t, err)
			require.False(t, res.Stats.UsedFallback, "%v", res.Warnings)
			require.GreaterOrEqual(t, res.Stats.KeptLines+len(res.Annotations), 2000, "long enough to be counted in halves")
			require.NotEmpty(t, res.Annotations)
			checkResult(t, f, req, res)
		})
	}
}

// cancellingCounter counts with tok and, once armed, calls cancel at the first count of a
// pruned output (a text with a marker and a line break), like a deadline passing right then.
// It has only Count, so an output is counted whole.
type cancellingCounter struct {
	tok     *tokenizer.Encoder
	cancel  context.CancelFunc
	armed   atomic.Bool
	outputs atomic.Int32 // outputs counted
}

func (c *cancellingCounter) Count(s string) int {
	if c.armed.Load() && strings.Contains(s, "⟦PRUNÉ") && strings.Contains(s, "\n") {
		c.outputs.Add(1)
		c.cancel()
	}
	return c.tok.Count(s)
}

// TestPruneTrimStopsAtTheDeadline: past the deadline the exact-budget trim renders and
// counts no more (on a 2 MB text each round costs milliseconds, and there may be 64), and
// the prune fails open with a timeout.
func TestPruneTrimStopsAtTheDeadline(t *testing.T) {
	f := newFixture(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	counter := &cancellingCounter{tok: f.tok, cancel: cancel}
	text, scores := underCountedText()
	eng := f.withScorer(t, underCounted(scores), counter)
	counter.armed.Store(true)
	// Without the deadline the trim would render and count again (twice, here).
	req := &engine.Request{Text: text, GoalHint: "x", SourceType: engine.SourceCode, Options: opts(1, 0), TokenBudget: 90}
	res, err := eng.Prune(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, int32(1), counter.outputs.Load(), "no output is counted after the deadline")
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, []string{engine.WarnTimeout}, res.Warnings)
	assert.Equal(t, req.Text, res.PrunedText)
	assert.Contains(t, res.FallbackError, context.Canceled.Error())
}

// cancelAtNumbered is the real counter, but a deadline passes (cancel) as it prices the first
// line of a numbered output; it counts the numbered lines it prices.
type cancelAtNumbered struct {
	*tokenizer.Encoder
	cancel context.CancelFunc
	priced atomic.Int32
}

func (c *cancelAtNumbered) CountNumberedLine(numbered string, restNL int) int {
	c.priced.Add(1)
	c.cancel()
	return c.Encoder.CountNumberedLine(numbered, restNL)
}

// TestPruneOutputCountStopsAtTheDeadline: a long numbered output is counted line by line,
// and past the deadline the count gives up within a thousand or so lines (per half, when two
// cores count it) instead of pricing the rest; the prune fails open with a timeout.
func TestPruneOutputCountStopsAtTheDeadline(t *testing.T) {
	f := newFixture(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	counter := &cancelAtNumbered{Encoder: f.tok, cancel: cancel}
	eng := f.withScorer(t, hashScorer{}, counter)
	o := opts(0.1, 0) // at least 5,400 of 6,000 lines kept and counted
	o.AnnotateLines = true
	req := &engine.Request{Text: longLines(6000, nil), GoalHint: "x", SourceType: engine.SourceDocs, Options: o}
	res, err := eng.Prune(ctx, req)
	require.NoError(t, err)
	assert.Positive(t, counter.priced.Load())
	assert.Less(t, counter.priced.Load(), int32(2700), "the count stops well short of the output's 5,400+ lines")
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, []string{engine.WarnTimeout}, res.Warnings)
	assert.Equal(t, req.Text, res.PrunedText)
}

// gateCounter blocks its first count of slow until open is closed: a tokenizer that takes
// seconds over one huge piece (a megabyte of punctuation or invalid bytes).
type gateCounter struct {
	slow    string
	open    chan struct{}
	blocked atomic.Bool
}

func (c *gateCounter) Count(s string) int {
	if s == c.slow && c.blocked.CompareAndSwap(false, true) {
		<-c.open
	}
	return len(s) / 4
}

// TestPruneDoesNotWaitForTheCountPastItsDeadline: a prune whose token count is still running
// at its deadline answers then, unchanged, with timeout and an estimate of the tokens, rather
// than when the count ends (which took 1.4 s for a 100 ms timeout_ms on a megabyte of '!').
// The request is settled only once the count has ended: it still holds its slot until then.
func TestPruneDoesNotWaitForTheCountPastItsDeadline(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	text := "one\ntwo needle\nthree\n"
	counter := &gateCounter{slow: text, open: make(chan struct{})}
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: counter})
	require.NoError(t, err)
	o := opts(0.5, 0)
	o.TimeoutMS = 50
	var settled atomic.Bool
	type outcome struct {
		res *engine.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := eng.Prune(context.Background(), &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceDocs,
			Options: o, Settled: func() { settled.Store(true) }})
		done <- outcome{res, err}
	}()
	var got outcome
	select {
	case got = <-done:
	case <-time.After(20 * time.Second):
		close(counter.open)
		require.FailNow(t, "Prune waited for the token count past its 50 ms deadline")
	}
	require.NoError(t, got.err)
	res := got.res
	assert.Equal(t, text, res.PrunedText)
	assert.Equal(t, []string{engine.WarnTimeout}, res.Warnings)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, (len(text)+3)/4, res.Stats.TokensEstBefore, "an estimate: the count has not ended")
	assert.Equal(t, res.Stats.TokensEstBefore, res.Stats.TokensEstAfter)
	assert.False(t, settled.Load(), "the count still runs, so the request still holds its slot")
	close(counter.open)
	require.Eventually(t, settled.Load, 10*time.Second, time.Millisecond, "settled once the count ends")
	rec, err := eng.Recover(context.Background(), res.PruneID, []engine.Range{{StartLine: 1, EndLine: 3}}, false)
	require.NoError(t, err)
	assert.Equal(t, text, rec.RawText)
}

// outputGate blocks its first count of a numbered output (a text holding "│") until open is
// closed: the count of an output line the tokenizer takes long over.
type outputGate struct {
	open    chan struct{}
	blocked atomic.Bool
}

func (c *outputGate) Count(s string) int {
	if strings.Contains(s, "│") && c.blocked.CompareAndSwap(false, true) {
		<-c.open
	}
	return len(s) / 4
}

// TestPruneDoesNotWaitForTheOutputCountPastItsDeadline: counting the output checks the deadline
// between lines, so one huge line (a quarter of a megabyte of one letter took half a second)
// held the answer past timeout_ms. With a line over 64 KB the selection runs apart and the
// answer comes at the deadline, a timeout; the request stays held until the count ends.
func TestPruneDoesNotWaitForTheOutputCountPastItsDeadline(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	text := "a needle here\n" + strings.Repeat("x", 70<<10) + "\n" + longLines(30, nil)
	counter := &outputGate{open: make(chan struct{})}
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<22, nil), Tokens: counter})
	require.NoError(t, err)
	o := opts(0.9, 0)
	o.TimeoutMS = 100
	o.AnnotateLines = true
	var settled atomic.Bool
	done := make(chan *engine.Result, 1)
	go func() {
		res, err := eng.Prune(context.Background(), &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceDocs,
			Options: o, Settled: func() { settled.Store(true) }})
		assert.NoError(t, err)
		done <- res
	}()
	var res *engine.Result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		close(counter.open)
		require.FailNow(t, "Prune waited for the output's count past its 100 ms deadline")
	}
	assert.Equal(t, []string{engine.WarnTimeout}, res.Warnings)
	assert.Equal(t, text, res.PrunedText)
	assert.False(t, settled.Load(), "the output's count still runs, so the request still holds its slot")
	close(counter.open)
	require.Eventually(t, settled.Load, 10*time.Second, time.Millisecond, "settled once the count ends")
}

// TestPruneAnnotateLinesCutsTheSameLines: without a token budget, annotate_lines changes
// only how kept lines are written, never which are cut (seed §5.1: no effect on the
// annotations). The prefixes' tokens were priced, so runs of short lines that cost less than
// a marker plain cost more numbered, and stayed cut.
func TestPruneAnnotateLinesCutsTheSameLines(t *testing.T) {
	f := newFixture(t, 0)
	r := rand.New(rand.NewPCG(3, 5))
	words := []string{"x", "y := 1", "return", "}", "if err != nil {", "needle()", "// note", ""}
	for c := 0; c < 200; c++ {
		lines := make([]string, 20+r.IntN(200))
		for i := range lines {
			lines[i] = words[r.IntN(len(words))]
		}
		o := opts(0.55, r.IntN(10))
		req := &engine.Request{Text: strings.Join(lines, "\n"), GoalHint: "needle", SourceType: engine.SourceCode, Options: o, Scorer: "hash"}
		plain, err := f.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		numbered := *req
		numbered.Options.AnnotateLines = true
		got, err := f.eng.Prune(context.Background(), &numbered)
		require.NoError(t, err)
		require.Equal(t, plain.Kept, got.Kept, "case %d", c)
		require.Equal(t, len(plain.Annotations), len(got.Annotations), "case %d", c)
	}
}

// forgetfulStore loses every text right after Put keeps it (another prune evicted it while
// this one was scored), and keeps a text put again only when refill is set.
type forgetfulStore struct {
	engine.Store
	refill bool
	puts   int
}

func (s *forgetfulStore) Put(ctx context.Context, id, text string) error {
	if s.puts++; s.puts > 1 && s.refill {
		return s.Store.Put(ctx, id, text)
	}
	if s.puts > 1 {
		return engine.ErrTooLargeToStore
	}
	return nil
}

// TestPruneWhoseOriginalWasEvictedMeanwhile: a prune answers cut lines only if its original
// is still stored as it answers. One evicted while the scorer worked was answered cut with no
// warning, and its prune_id was not found.
func TestPruneWhoseOriginalWasEvictedMeanwhile(t *testing.T) {
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	text := longLines(60, map[int]string{30: "needle"})
	for _, refill := range []bool{false, true} {
		t.Run(fmt.Sprintf("stored again: %v", refill), func(t *testing.T) {
			store := &forgetfulStore{Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), refill: refill}
			reg := engine.NewRegistry()
			reg.Register("keyword", keywordScorer{})
			reg.SetDefault("keyword")
			eng, err := engine.New(engine.Config{Registry: reg, Store: store, Tokens: tok})
			require.NoError(t, err)
			req := &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceDocs, Options: opts(0.9, 0)}
			res, err := eng.Prune(context.Background(), req)
			require.NoError(t, err)
			got, err := store.Get(context.Background(), res.PruneID)
			if !refill {
				assert.True(t, res.Stats.UsedFallback)
				assert.Equal(t, text, res.PrunedText)
				assert.Contains(t, res.Warnings, engine.WarnRecoveryUnavailable)
				assert.ErrorIs(t, err, engine.ErrPruneIDNotFound)
				return
			}
			assert.False(t, res.Stats.UsedFallback)
			assert.Positive(t, res.Stats.PrunedLines)
			require.NoError(t, err)
			assert.Equal(t, text, got)
		})
	}
}

// TestMemoryStoreDropsExpiredTextsWhenIdle: expired originals (which may hold secrets) were
// dropped only by the next Put, so an idle server kept up to its whole store past the TTL.
func TestMemoryStoreDropsExpiredTextsWhenIdle(t *testing.T) {
	ctx := context.Background()
	s := engine.NewMemoryStore(50*time.Millisecond, 1<<20, nil)
	require.NoError(t, s.Put(ctx, "a", "secret one"))
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, s.Put(ctx, "b", "secret two"))
	assert.Eventually(t, func() bool { return s.Len() == 1 }, 5*time.Second, 5*time.Millisecond, "the first expired")
	assert.Eventually(t, func() bool { return s.Len() == 0 && s.Bytes() == 0 }, 5*time.Second, 5*time.Millisecond, "then the second, with nothing else happening")
	require.NoError(t, s.Put(ctx, "c", "secret three"), "a store emptied by its sweep sweeps again")
	assert.Eventually(t, func() bool { return s.Len() == 0 }, 5*time.Second, 5*time.Millisecond)
}

// TestMarkerReasonStaysOneVisibleLine: a focus term from a scorer (a plugin's, say) with
// line or paragraph separators, NEL, bidi overrides or zero-width characters loses them in
// the marker's reason: they would split the marker for Python's splitlines and editors, or
// reverse or hide the rest of it on screen.
func TestMarkerReasonStaysOneVisibleLine(t *testing.T) {
	f := newFixture(t, 0)
	odd := funcScorer(func(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
		scores := make([]float64, len(req.Lines))
		scores[0] = 1
		return &engine.ScoreResponse{Scores: scores, Focus: []string{"zz\u2028yy\u0085ww\u202eqq\u2029\x7f\u009b\u200bvv⟦⟧\tuu"}}, nil
	})
	eng := f.withScorer(t, odd, f.tok)
	req := &engine.Request{Text: strings.Repeat("a line of filler text that costs a fair number of tokens, for the test\n", 10), GoalHint: "x", SourceType: engine.SourceLogs, Options: opts(1, 1)}
	res, err := eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, res)
	require.Len(t, res.Annotations, 1)
	assert.Equal(t, "hors focus: zzyywwqqvvuu", res.Annotations[0].Reason)
}

// TestPruneLeavesUndecodableTextWhole: a UTF-16 or UTF-32 text (by its byte-order mark, or
// without one by its NUL bytes), binary data, and a text whose lines end in a carriage return
// alone come back whole with unsupported_encoding: cut as UTF-8 lines, the first had UTF-8
// markers spliced between its two-byte units (unreadable in any encoding), the last was one
// line, cut whole under a budget. A text with a few NULs or progress bars redrawn with "\r"
// is still pruned.
func TestPruneLeavesUndecodableTextWhole(t *testing.T) {
	f := newFixture(t, 0)
	var lines []string
	for i := range 60 {
		lines = append(lines, fmt.Sprintf("line %d of a file, where the goal is named on line 30 only", i))
	}
	lines[29] = "def parse_header(raw): return raw.split(':')"
	plain := strings.Join(lines, "\n") + "\n"
	utf16 := func(s string, bom bool) string {
		var b strings.Builder
		if bom {
			b.WriteString("\xff\xfe")
		}
		for _, r := range s {
			b.WriteRune(r)
			b.WriteByte(0)
		}
		return b.String()
	}
	prune := func(text string) *engine.Result {
		req := &engine.Request{Text: text, GoalHint: "parse_header", SourceType: engine.SourceDocs, Options: opts(1, 0), TokenBudget: 150}
		res, err := f.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		checkResult(t, f, req, res)
		return res
	}
	for name, text := range map[string]string{
		"UTF-16 with a byte-order mark":    utf16(plain, true),
		"UTF-16 without one":               utf16(plain, false),
		"UTF-32 big-endian":                "\x00\x00\xfe\xff" + plain,
		"binary":                           strings.Repeat("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 256) + plain,
		"lines ended by a carriage return": strings.ReplaceAll(plain, "\n", "\r"),
	} {
		res := prune(text)
		assert.True(t, res.Stats.UsedFallback, name)
		assert.Equal(t, []string{engine.WarnNotUTF8Text}, res.Warnings, name)
	}
	for name, text := range map[string]string{
		"a NUL in a string": strings.Replace(plain, "line 3 of", "line \x00 of", 1),
		"a progress bar":    "downloading 10%\r50%\r100%\n" + plain,
	} {
		res := prune(text)
		assert.False(t, res.Stats.UsedFallback, name)
		assert.Contains(t, res.PrunedText, "def parse_header", name)
		assert.Less(t, res.Stats.KeptLines, 20, name)
	}
}

// TestPruneNeverAnswersMoreThanTheText: cutting a run of blank lines, which tiktoken merges
// into a token or two but the selection prices a line at a time, replaced 3 tokens by a
// ~40-token marker, and the answer (46 tokens) outgrew the text (19). An answer no cheaper
// than the text keeps everything, with or without line numbers.
func TestPruneNeverAnswersMoreThanTheText(t *testing.T) {
	f := newFixture(t, 0)
	for _, text := range []string{
		"x = 1" + strings.Repeat("\n", 300) + "needle = 2\n",
		strings.Repeat("\n", 100),
		strings.Repeat("    \n", 100) + "needle\n",
	} {
		for _, annotate := range []bool{false, true} {
			o := opts(1, 0)
			o.AnnotateLines = annotate
			req := &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceLogs, Options: o}
			res, err := f.eng.Prune(context.Background(), req)
			require.NoError(t, err)
			checkResult(t, f, req, res)
			assert.Empty(t, res.Annotations, "%q, annotate %v", text[:8], annotate)
			if !annotate {
				assert.Equal(t, text, res.PrunedText)
			}
		}
	}
}

// TestPruneWarnsOfAGoalWithoutWords: lines cut for an empty, blank or invisible goal say so
// (the scorer had nothing to look for); a goal of one digit is a goal.
func TestPruneWarnsOfAGoalWithoutWords(t *testing.T) {
	f := newFixture(t, 0)
	text := strings.Repeat("a line of filler text that costs a fair number of tokens, for the test\n", 30)
	for goal, warned := range map[string]bool{"": true, " \t\n": true, "\u200b": true, "?!": true, "7": false, "größe": false} {
		req := &engine.Request{Text: text, GoalHint: goal, SourceType: engine.SourceLogs, Options: opts(0.9, 1), Scorer: "hash", TokenBudget: 100}
		res, err := f.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		checkResult(t, f, req, res)
		require.Positive(t, res.Stats.PrunedLines, "%q", goal)
		assert.Equal(t, warned, slices.Contains(res.Warnings, engine.WarnGoalWithoutWords), "%q", goal)
	}
}

// TestScorerWarningsStayOneVisibleLine: a scorer's (a plugin's) warning with line breaks or
// invisible characters reaches the result on one visible line: the CLI prints warnings on
// one line, and the MCP text content's last line lists them.
func TestScorerWarningsStayOneVisibleLine(t *testing.T) {
	f := newFixture(t, 0)
	odd := funcScorer(func(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
		return &engine.ScoreResponse{Scores: make([]float64, len(req.Lines)), Warnings: []string{"odd\nwarning\u2028here\u202e", "\u200b", "plugin:slow"}}, nil
	})
	eng := f.withScorer(t, odd, f.tok)
	req := &engine.Request{Text: strings.Repeat("a line of filler text that costs a fair number of tokens, for the test\n", 10), GoalHint: "x", SourceType: engine.SourceLogs, Options: opts(0.5, 1)}
	res, err := eng.Prune(context.Background(), req)
	require.NoError(t, err)
	checkResult(t, f, req, res)
	assert.Equal(t, []string{"odd warning here", "plugin:slow"}, res.Warnings)
}

// TestQuietWhenDefault: a warning code the registry marks quiet for a scorer is dropped when
// the engine chose that scorer as the default, and kept when the request named it; other
// codes are kept either way.
func TestQuietWhenDefault(t *testing.T) {
	f := newFixture(t, 0)
	deferring := funcScorer(func(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
		return &engine.ScoreResponse{Scores: make([]float64, len(req.Lines)), Warnings: []string{"deferred:unknown", "deferred:slow"}}, nil
	})
	reg := engine.NewRegistry()
	reg.Register("plain", keywordScorer{})
	reg.Register("deferring", deferring)
	reg.SetDefault("deferring", engine.SourceCode)
	reg.QuietWhenDefault("deferring", "deferred:unknown")
	eng, err := engine.New(engine.Config{Registry: reg, Store: f.store, Tokens: f.tok})
	require.NoError(t, err)
	text := strings.Repeat("a line of filler text that costs a fair number of tokens, for the test\n", 10)
	for _, tc := range []struct {
		name   string
		scorer string
		want   []string
	}{
		{name: "chosen by default", scorer: "", want: []string{"deferred:slow"}},
		{name: "named by the request", scorer: "deferring", want: []string{"deferred:unknown", "deferred:slow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &engine.Request{Text: text, GoalHint: "x", SourceType: engine.SourceCode, Options: opts(0.5, 1), Scorer: tc.scorer}
			res, err := eng.Prune(context.Background(), req)
			require.NoError(t, err)
			checkResult(t, f, req, res)
			assert.Equal(t, tc.want, res.Warnings)
		})
	}
}
