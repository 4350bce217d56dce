package train

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syntheticCases makes small labelled cases: code files where the gold is the function the
// goal names, and logs whose gold is the failure near the end.
func syntheticCases() []benchmarks.Case {
	var out []benchmarks.Case
	verbs := []string{"parse", "render", "store", "fetch", "merge", "split"}
	for r := 0; r < 3; r++ {
		for k, v := range verbs {
			var b strings.Builder
			b.WriteString("package demo\n\n")
			gold := 0
			line := 3
			for j, w := range verbs {
				if j == k {
					gold = line
				}
				fmt.Fprintf(&b, "func %sItems(items []string) error {\n\tfor _, it := range items {\n\t\t_ = it\n\t}\n\treturn nil\n}\n\n", w)
				line += 7
			}
			out = append(out, benchmarks.Case{
				ID: fmt.Sprintf("commits/org/repo%d@%07x", r, k+1), SourceType: engine.SourceCode, Dataset: "synthetic-code",
				GoalHint: "fix " + v + "Items when items is empty", Text: b.String(), Path: "demo.go",
				GoldLines: []int{gold, gold + 4}, File: "commits.dev",
			})
			var l strings.Builder
			for j := 0; j < 40; j++ {
				fmt.Fprintf(&l, "step %d ok\n", j)
			}
			l.WriteString("Error: " + v + " failed\nexit status 1\n")
			out = append(out, benchmarks.Case{
				ID: fmt.Sprintf("logchunks/Go/proj%d@x/failed/%d.log", r, k), SourceType: engine.SourceLogs, Dataset: "synthetic-logs",
				GoalHint: "Why did this CI build fail?", Text: l.String(), GoldLines: []int{41, 42}, File: "logs.dev",
			})
		}
	}
	return out
}

func smallConfig() Config {
	cfg := DefaultConfig()
	cfg.Epochs, cfg.Hidden, cfg.HardNegatives, cfg.RandomNegatives = 5, 4, 10, 10
	cfg.LinearKinds = nil // exercise the MLP path
	cfg.Trees, cfg.TreeKinds = 5, []string{"code_other", "logs"}
	return cfg
}

func TestExpertBasesAndLinearKinds(t *testing.T) {
	ctx := context.Background()
	data, err := sampleAll(ctx, syntheticCases(), &Config{Seed: 1, HardNegatives: 10, RandomNegatives: 10, Workers: 1}, nil)
	require.NoError(t, err)
	tests := []struct {
		name                        string
		structural, linear, frozen  []string
		wantBase                    string
		wantMLP, wantExact, trained bool
	}{
		{name: "heuristic MLP", wantBase: BaseHeuristic, wantMLP: true, trained: true},
		{name: "structural MLP", structural: []string{"code_other"}, wantBase: BaseStructural, wantMLP: true, trained: true},
		{name: "structural linear", structural: []string{"code_other"}, linear: []string{"code_other"}, wantBase: BaseStructural, trained: true},
		{name: "structural frozen", structural: []string{"code_other"}, frozen: []string{"code_other"}, wantBase: BaseStructural, wantExact: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig()
			cfg.StructuralKinds, cfg.LinearKinds, cfg.FrozenKinds = tt.structural, tt.linear, tt.frozen
			m, err := fit(ctx, data, cfg)
			require.NoError(t, err)
			e := m.Experts[1] // code_other: the synthetic Go cases
			assert.Equal(t, tt.wantBase, e.Base)
			nonZero := func(v []float32) bool {
				for _, x := range v {
					if x != 0 {
						return true
					}
				}
				return false
			}
			assert.Equal(t, tt.wantMLP, nonZero(e.W2), "MLP output weights")
			assert.Equal(t, tt.wantExact, e.Exact == 1)
			assert.Equal(t, tt.trained, e.Skip != 0)
			for _, c := range exactColumns {
				assert.False(t, nonZero(e.W1[c*m.Hidden:(c+1)*m.Hidden]), "the MLP reads exact column %d", c)
			}
			if tt.trained && !tt.wantMLP {
				sc, _ := baseColumns(tt.wantBase)
				assert.NotEqual(t, float32(m.Std[sc]), e.Skip, "a linear expert's skip weight did not move from its start")
			}
		})
	}
}

func TestFrozenStructuralExpertReturnsStructuralScores(t *testing.T) {
	ctx := context.Background()
	cases := syntheticCases()
	data, err := sampleAll(ctx, cases, &Config{Seed: 1, HardNegatives: 10, RandomNegatives: 10, Workers: 1}, nil)
	require.NoError(t, err)
	cfg := smallConfig()
	cfg.StructuralKinds, cfg.FrozenKinds = []string{"code_other"}, []string{"code_other"}
	m, err := fit(ctx, data, cfg)
	require.NoError(t, err)
	req := &engine.ScoreRequest{Lines: engine.SplitLines(cases[0].Text), Goal: cases[0].GoalHint, SourceType: engine.SourceCode, Path: cases[0].Path}
	got, err := (&Scorer{Model: m}).Score(ctx, req)
	require.NoError(t, err)
	want, err := structural.New().Score(ctx, req)
	require.NoError(t, err)
	assert.InDeltaSlice(t, want.Scores, got.Scores, 1e-6)
	h, err := heuristic.New().Score(ctx, req)
	require.NoError(t, err)
	assert.NotEqual(t, h.Scores, want.Scores, "structural equals the heuristic here: the test could not fail")
}

func TestTrainingIsDeterministic(t *testing.T) {
	cases := syntheticCases()
	export := func(cfg Config) []byte {
		res, err := Run(context.Background(), cases, Options{Config: cfg})
		require.NoError(t, err)
		return res.Model.ONNX("doc", nil)
	}
	a, b := export(smallConfig()), export(smallConfig())
	assert.True(t, bytes.Equal(a, b), "same data and config gave different model bytes")
	other := smallConfig()
	other.Seed++
	assert.False(t, bytes.Equal(a, export(other)), "the seed has no effect: the test could not fail")
}

func TestFoldsKeepGroupsTogether(t *testing.T) {
	cases := syntheticCases()
	folds := Folds(cases, 3)
	byGroup := map[string]int{}
	perFold := map[int]int{}
	for i := range cases {
		g := cases[i].File + GroupOf(&cases[i])
		if f, ok := byGroup[g]; ok {
			assert.Equal(t, f, folds[i], "group %s split across folds", g)
		}
		byGroup[g] = folds[i]
		perFold[folds[i]]++
	}
	assert.Len(t, perFold, 3, "every fold gets cases")
	assert.Equal(t, "commits/org/repo1", GroupOf(&cases[12]))
	assert.Equal(t, "logchunks/Go/proj0@x", GroupOf(&cases[1]))
	mined := benchmarks.Case{ID: "commits/myrepo@0123456789ab/pkg/calc.go", SourceType: engine.SourceCode}
	assert.Equal(t, "commits/myrepo", GroupOf(&mined), "build-commits' ids group by repository too")
}

func TestCrossValidationAndCard(t *testing.T) {
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	reg := engine.NewRegistry()
	reg.Register("heuristic", heuristic.New())
	cfg := smallConfig()
	res, err := Run(context.Background(), syntheticCases(), Options{
		Config: cfg, Folds: 3, Tokens: tok, Baselines: []string{"heuristic"}, Registry: reg, Budgets: []float64{0.3},
	})
	require.NoError(t, err)
	require.Len(t, res.CV, 4, "two files × two scorers")
	for _, r := range res.CV {
		assert.Equal(t, 18, r.Cases, "%s %s: every case is held out once", r.Scorer, r.File)
		assert.True(t, r.Recall >= 0 && r.Recall <= 1)
	}
	require.Len(t, res.Paired, 2, "two files × one baseline")
	for _, p := range res.Paired {
		assert.Equal(t, "heuristic", p.Base)
		assert.Equal(t, 18, p.Cases, "%s: every case is paired once", p.File)
		assert.LessOrEqual(t, p.Low, p.Diff)
		assert.GreaterOrEqual(t, p.High, p.Diff)
		assert.LessOrEqual(t, p.Better+p.Worse, p.Cases)
	}
	card := res.Card(cfg, "pruner train --epochs 5")
	assert.Contains(t, card, "### Paired with the baselines")
	assert.Contains(t, card, "| logs | 30% | linerank | 18 |")
	assert.Contains(t, card, "pruner train --epochs 5")
	assert.Contains(t, card, "`heuristic_rank`")
	// The card says what this run did: every kind frozen is a model that fitted nothing, and
	// only the dev sets' files are called the development cases.
	require.Equal(t, linefeat.Kinds, cfg.FrozenKinds)
	assert.Contains(t, card, "Every kind is frozen, so nothing was fitted")
	trained := cfg
	trained.FrozenKinds = nil
	assert.NotContains(t, res.Card(trained, "pruner train"), "nothing was fitted")
	assert.True(t, devData([]string{"code.dev", "logs.dev"}))
	assert.False(t, devData([]string{"code.dev", "mine"}), "a file of one's own is not a dev set")

	dir := t.TempDir()
	require.NoError(t, res.Write(dir, cfg, "pruner train"))
}

func TestLinearModelGraphHasNoHiddenLayer(t *testing.T) {
	m := &Model{F: linefeat.NumFeatures, Hidden: 2, Mean: make([]float32, linefeat.NumFeatures), Std: make([]float32, linefeat.NumFeatures)}
	for range linefeat.Kinds {
		m.Experts = append(m.Experts, Expert{W1: make([]float32, m.F*2), B1: make([]float32, 2), W2: make([]float32, 2), Skip: 1})
	}
	require.NoError(t, m.check())
	assert.NotContains(t, string(m.ONNX("", nil)), "hidden", "a linear model still computes the hidden layer")
	m.Experts[2].W2[1] = 0.5
	assert.Contains(t, string(m.ONNX("", nil)), "hidden")
}

// TestRunRejectsAConfigItCannotExport: a kind list naming a kind linefeat does not have (a
// frozen one reached the manifest's kind_thresholds, which the onnx scorer refuses) or a
// non-finite tree setting (NaN leaves) is an error before any training.
func TestRunRejectsAConfigItCannotExport(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown frozen kind", func(c *Config) { c.FrozenKinds = []string{"python"} }, `"python"`},
		{"unknown tree kind", func(c *Config) { c.TreeKinds = []string{"doc"} }, `"doc"`},
		{"NaN shrink", func(c *Config) { c.Shrink = math.NaN() }, "shrink"},
		{"infinite lambda", func(c *Config) { c.Lambda = math.Inf(1) }, "lambda"},
		{"no batch", func(c *Config) { c.Batch = 0 }, "batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig()
			tt.edit(&cfg)
			_, err := Run(context.Background(), syntheticCases(), Options{Config: cfg})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Run(context.Background(), syntheticCases(), Options{Config: smallConfig()})
	assert.NoError(t, err, "the unedited configuration must train")
}

// TestRunRejectsGoldOutsideTheText: Run takes cases from callers other than LoadCases (which
// checks them); a gold line outside the case's text is an error naming the case, not a
// panic in a feature worker that ends the process.
func TestRunRejectsGoldOutsideTheText(t *testing.T) {
	for _, gold := range []int{0, 1000} {
		cases := syntheticCases()
		cases[3].GoldLines = append(cases[3].GoldLines, gold)
		_, err := Run(context.Background(), cases, Options{Config: smallConfig()})
		require.Error(t, err, "gold line %d", gold)
		assert.Contains(t, err.Error(), cases[3].ID)
	}
}
