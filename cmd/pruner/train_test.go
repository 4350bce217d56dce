package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trainCases writes a small case file: a docs page whose gold is the paragraph the goal names.
func trainCases(t *testing.T) string {
	t.Helper()
	var text strings.Builder
	for i := 0; i < 30; i++ {
		text.WriteString("Unrelated paragraph about configuration defaults and logging.\n")
	}
	text.WriteString("The parse_header function splits a header line into a name and a value.\n")
	var cases []map[string]any
	for i := 0; i < 4; i++ {
		cases = append(cases, map[string]any{
			"id": "docs/page" + string(rune('a'+i)), "source_type": "docs", "dataset": "synthetic", "path": "page" + string(rune('a'+i)) + ".md",
			"goal_hint": "how does parse_header split a header", "text": text.String(), "gold_lines": []int{31},
		})
	}
	return writeCases(t, "docs.dev.jsonl", cases)
}

// TestTrainRejectsBadFlagsBeforeTraining: a source kind the features do not have, or a tree
// setting that is not a finite number, is a usage error naming the flag, before any training
// and without creating the output directory. Unchecked, --frozen-kinds python wrote a
// manifest the onnx scorer refuses (kind_thresholds names "python"), --tree-kinds python
// silently fitted no trees, and --shrink NaN trained to a "threshold NaN" manifest error.
func TestTrainRejectsBadFlagsBeforeTraining(t *testing.T) {
	data := trainCases(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown frozen kind", []string{"--frozen-kinds", "python"}, "frozen-kinds"},
		{"unknown tree kind", []string{"--tree-kinds", "docs,pyhton"}, "tree-kinds"},
		{"unknown linear kind", []string{"--linear-kinds", "log"}, "linear-kinds"},
		{"unknown structural kind", []string{"--structural-kinds", "code"}, "structural-kinds"},
		{"shrink NaN", []string{"--shrink", "NaN"}, "shrink"},
		{"shrink infinite", []string{"--shrink", "Inf"}, "shrink"},
		{"lambda NaN", []string{"--lambda", "NaN"}, "lambda"},
		{"min-leaf-hess infinite", []string{"--min-leaf-hess", "+Inf"}, "min-leaf-hess"},
		{"unknown baseline", []string{"--folds", "2", "--baselines", "heuristic,structual"}, "structual"},
		// Each numeric flag out of range is named alone, with its value.
		{"one fold", []string{"--folds", "1"}, "--folds must be 0 (no cross-validation) or >= 2, got 1"},
		{"negative folds", []string{"--folds", "-1"}, "--folds must be 0 (no cross-validation) or >= 2, got -1"},
		{"no epochs", []string{"--epochs", "0"}, "--epochs must be >= 1, got 0"},
		{"no hidden units", []string{"--hidden", "0"}, "--hidden must be >= 1, got 0"},
		{"negative trees", []string{"--trees", "-2"}, "--trees must be >= 0, got -2"},
		{"too deep", []string{"--depth", "9"}, "--depth must be 1 to 8, got 9"},
		{"shrink zero", []string{"--shrink", "0"}, "--shrink must be a finite number > 0, got 0"},
		{"lambda negative", []string{"--lambda", "-1"}, "--lambda must be a finite number >= 0, got -1"},
		{"no workers", []string{"--parallel", "0"}, "--parallel must be >= 1, got 0"},
		{"no workers, older name", []string{"--workers", "0"}, "--parallel must be >= 1, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "model")
			code, _, stderr := runCLI(t, "", append([]string{"train", "--data", data, "--folds", "0", "--epochs", "1", "--out", out}, tt.args...)...)
			assert.Equal(t, 2, code, stderr)
			problem := strings.SplitN(stderr, "\n", 2)[0]
			assert.Contains(t, problem, tt.want, "the error names the flag")
			assert.NotContains(t, stderr, "features:", "training started")
			assert.NoDirExists(t, out)
		})
	}
	t.Run("good flags train", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "model")
		code, _, stderr := runCLI(t, "", "train", "--data", data, "--folds", "0", "--epochs", "1", "--out", out, "--frozen-kinds", "none", "--tree-kinds", "docs,logs")
		require.Equal(t, 0, code, stderr)
		assert.FileExists(t, filepath.Join(out, "model.onnx"))
	})
}
