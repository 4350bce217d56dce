package benchmarks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// referenceFigures are the "Reference figures" of ../shared/bench/README.md: recall at 10, 20
// and 30% of the tokens under the lines accounting for head and bm25, and grep's unbudgeted
// recall and token reduction. They come from an independent implementation that counts
// tokens with a regex stand-in, hence the tolerance.
var referenceFigures = []struct {
	file       string
	head, bm25 [3]float64
	grepRecall float64
	grepReduce float64
}{
	{"code.dev", [3]float64{0.125, 0.202, 0.256}, [3]float64{0.340, 0.441, 0.529}, 0.669, 0.457},
	{"commits.dev", [3]float64{0.047, 0.121, 0.214}, [3]float64{0.385, 0.463, 0.511}, 0.498, 0.744},
	{"logs.dev", [3]float64{0.011, 0.032, 0.051}, [3]float64{0.304, 0.333, 0.343}, 0.350, 0.822},
	{"docs.dev", [3]float64{0.016, 0.033, 0.099}, [3]float64{0.184, 0.215, 0.248}, 0.217, 0.903},
}

const referenceTolerance = 0.05

// sharedBenchDir returns ../shared/bench next to the module root, or skips the test.
func sharedBenchDir(t *testing.T) string {
	t.Helper()
	dir, err := DefaultDataDir("")
	if err != nil {
		t.Skipf("benchmark data absent: %v", err)
	}
	return dir
}

// TestReferenceAgreement proves the lines accounting right: head, bm25 and grep on the dev
// sets land within ±0.05 of the reference figures. With -short only the two smallest sets
// (code, commits) run; logs and docs add ~100 MB of text to tokenize.
func TestReferenceAgreement(t *testing.T) {
	dir := sharedBenchDir(t)
	reg := engine.NewRegistry()
	RegisterBaselines(reg)
	enc, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	for _, ref := range referenceFigures {
		t.Run(ref.file, func(t *testing.T) {
			if testing.Short() && (ref.file == "logs.dev" || ref.file == "docs.dev") {
				t.Skip("-short: large set (tens of MB to tokenize)")
			}
			path := filepath.Join(dir, ref.file+".jsonl.gz")
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s absent", path)
			}
			cases, err := LoadCases(path)
			require.NoError(t, err)
			rows, err := Run(context.Background(), Config{
				Cases: cases, Registry: reg, Tokens: enc, Scorers: []string{"head", "bm25", "grep"},
				Budgets: []float64{0.1, 0.2, 0.3}, Accounting: AccountingLines,
			})
			require.NoError(t, err)
			all := MergeRows(rows, func(r Row) (string, string) { return "", "all" })
			got := map[string]Row{}
			for _, r := range all {
				got[r.Scorer+"/"+budgetLabel(r.Budget)] = r
				assert.Equal(t, len(cases), r.Cases)
				assert.Zero(t, r.Fallbacks)
			}
			for i, b := range []string{"10%", "20%", "30%"} {
				assert.InDelta(t, ref.head[i], got["head/"+b].Recall, referenceTolerance, "head R@%s", b)
				assert.InDelta(t, ref.bm25[i], got["bm25/"+b].Recall, referenceTolerance, "bm25 R@%s", b)
			}
			assert.InDelta(t, ref.grepRecall, got["grep/natural"].Recall, referenceTolerance, "grep recall")
			assert.InDelta(t, ref.grepReduce, got["grep/natural"].Reduction, referenceTolerance, "grep reduction")
		})
	}
}
