package train

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
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
	return cfg
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
	card := res.Card(cfg, "pruner train --epochs 5")
	assert.Contains(t, card, "| logs | 30% | linerank | 18 |")
	assert.Contains(t, card, "pruner train --epochs 5")
	assert.Contains(t, card, "`heuristic_rank`")

	dir := t.TempDir()
	require.NoError(t, res.Write(dir, cfg, "pruner train"))
}
