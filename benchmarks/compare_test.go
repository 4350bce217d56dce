package benchmarks

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompare(t *testing.T) {
	b20, b10 := 0.2, 0.1
	row := func(scorer string, budget *float64, recalls ...float64) Row {
		r := Row{Scorer: scorer, SourceType: "code", Dataset: "d", Mode: ModeBudget, Budget: budget}
		for _, x := range recalls {
			r.outcomes = append(r.outcomes, outcome{recall: x, hasGold: x >= 0})
		}
		return r
	}
	rows := []Row{
		row("a", &b10, 0.5, 0.5, 1, -1), // the last case has no gold lines: left out
		row("a", &b20, 0, 1, 0.5, 0.5),
		row("b", &b10, 1, 0.5, 0.5, -1),
		row("b", &b20, 0.5, 1, 1, 1),
		row("c", &b20, 0, 0, 0, 0),
	}
	cs := Compare(rows, "a", "b")
	require.Len(t, cs, 2)
	first := cs[0]
	assert.Equal(t, 0.1, *first.Budget)
	assert.Equal(t, 3, first.Cases)
	assert.InDelta(t, 0, first.MeanDiff, 1e-12, "+0.5, 0, -0.5")
	assert.Equal(t, [3]int{1, 1, 1}, [3]int{first.Better, first.Worse, first.Same})
	assert.Less(t, first.Low, 0.0)
	assert.Greater(t, first.High, 0.0)

	second := cs[1]
	assert.Equal(t, 4, second.Cases)
	assert.InDelta(t, 0.375, second.MeanDiff, 1e-12, "+0.5, 0, +0.5, +0.5")
	assert.Equal(t, [3]int{3, 0, 1}, [3]int{second.Better, second.Worse, second.Same})
	assert.InDelta(t, second.MeanDiff-second.Low, second.High-second.MeanDiff, 1e-12)
	assert.Greater(t, second.Low, 0.0, "a consistent gain's interval excludes 0")

	assert.Empty(t, Compare(rows, "a", "missing"))
	var out bytes.Buffer
	require.NoError(t, WriteComparisons(&out, cs))
	assert.Contains(t, out.String(), "b − a")
	assert.Contains(t, out.String(), "+0.375")
}
