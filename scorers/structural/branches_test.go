package structural

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBranchBodyFollowsItsCondition: the condition the goal names is the file's best line;
// the comments and return inside it share no word with the goal, yet come right after it,
// above the other branches of the function.
func TestBranchBodyFollowsItsCondition(t *testing.T) {
	var b strings.Builder
	b.WriteString("package completion\n\nimport \"fmt\"\n\nfunc complete(w io.Writer, directive int, values []string) {\n")
	for i := range 12 {
		if i == 6 {
			b.WriteString("\tif directive&shellCompDirectiveNoFileComp != 0 {\n" +
				"\t\t// Just print an empty string here so the\n" +
				"\t\t// shell does not start to complete paths.\n" +
				"\t\tif len(values) == 0 {\n" +
				"\t\t\tfmt.Fprintln(w, \"\")\n" +
				"\t\t\treturn\n" +
				"\t\t}\n" +
				"\t}\n")
			continue
		}
		fmt.Fprintf(&b, "\tif directive&mode%d != 0 {\n\t\tfmt.Fprintf(w, \"mode %d\\n\")\n\t\twriteMode(w, values, %d)\n\t}\n", i, i, i)
	}
	b.WriteString("}\n")
	lines := engine.SplitLines(b.String())
	resp := scoreCode(t, lines, "fix no file comp directive", "complete.go")
	require.Empty(t, resp.Warnings)
	cond := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "shellCompDirectiveNoFileComp") })
	require.Positive(t, cond)
	require.GreaterOrEqual(t, resp.Scores[cond], branchTop*maxOf(resp.Scores), "the condition is among the best lines")
	other := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "writeMode(w, values, 2)") })
	require.Positive(t, other)
	for j := cond + 1; j <= cond+7; j++ {
		assert.GreaterOrEqual(t, resp.Scores[j], branchShare*resp.Scores[cond]-1e-9, "line %d %q", j+1, lines[j])
		assert.Greater(t, resp.Scores[j], resp.Scores[other], "line %d %q", j+1, lines[j])
		assert.Less(t, resp.Scores[j], resp.Scores[cond], "the body stays below its condition")
	}
}

func TestLiftBranches(t *testing.T) {
	tests := []struct {
		name   string
		lines  []string
		scores []float64
		want   []float64
	}{
		{
			name:   "a best condition lifts its body and closing brace",
			lines:  []string{"if err != nil {", "\t// why", "", "\treturn err", "}", "x := 1"},
			scores: []float64{1, 0.2, 0.1, 0.3, 0.2, 0.5},
			want:   []float64{1, branchShare, 0.1, branchShare, branchShare, 0.5},
		},
		{
			name:   "a weaker condition lifts nothing",
			lines:  []string{"if err != nil {", "\treturn err", "}", "best := 1"},
			scores: []float64{0.8, 0.2, 0.2, 1},
			want:   []float64{0.8, 0.2, 0.2, 1},
		},
		{
			name:   "not a branch keyword",
			lines:  []string{"elsewhere := f(", "\tx)", "y"},
			scores: []float64{1, 0.2, 0.2},
			want:   []float64{1, 0.2, 0.2},
		},
		{
			name:   "Python: else and except open branches",
			lines:  []string{"try:", "    f()", "except ValueError:", "    raise", "g()"},
			scores: []float64{0.1, 0.1, 1, 0.2, 0.3},
			want:   []float64{0.1, 0.1, 1, branchShare, 0.3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := slices.Clone(tt.scores)
			liftBranches(tt.lines, s)
			assert.InDeltaSlice(t, tt.want, s, 1e-9)
		})
	}
	long := []string{"} else {"}
	for range branchLines + 1 {
		long = append(long, "\tstep()")
	}
	s := make([]float64, len(long))
	s[0] = 1
	liftBranches(long, s)
	assert.Zero(t, s[1], "a body longer than branchLines is not lifted")
}
