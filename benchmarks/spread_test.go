package benchmarks

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inDataset is result with another source type and dataset.
func inDataset(c CaseResult, st, ds string) CaseResult {
	c.SourceType, c.Dataset = st, ds
	return c
}

func TestSpreadsResampleRepositoriesNotCases(t *testing.T) {
	// Repository a keeps everything, b nothing: a draw of two repositories is a, a (mean 1),
	// b, b (0) or one of each (0.5, half the draws). Over cases, four would be drawn.
	results := []CaseResult{
		result("s", 0.2, "r/a/1", 1), result("s", 0.2, "r/b/1", 0), result("s", 0.2, "r/a/2", 1),
		result("s", 0.2, "r/b/2", 0), result("s", 0.2, "r/b/3", -1), // no gold lines: left out
	}
	o := SpreadOptions{By: regexp.MustCompile(`^r/(\w+)/`), Draws: 20000, Seed: 3, Aims: map[string]float64{"d": 0.6}, AimBudget: 0.2}
	ss := Spreads(results, o)
	require.Len(t, ss, 1)
	s := ss[0]
	assert.Equal(t, 4, s.Cases)
	assert.Equal(t, 2, s.Groups)
	assert.InDelta(t, 0.5, s.Mean, 1e-12)
	assert.Equal(t, [3]float64{0, 0.5, 1}, [3]float64{s.Low, s.Median, s.High})
	assert.InDelta(t, 0.6, s.Aim, 1e-12)
	assert.InDelta(t, 0.75, s.BelowAim, 0.02, "a draw misses 0.6 unless it is a, a")

	// Without a key every case is its own repository, and a case mean of 1/3 or 2/3 can be drawn.
	o.By = nil
	s = Spreads(results, o)[0]
	assert.Equal(t, 4, s.Groups)
	assert.InDelta(t, 0.5, s.Median, 1e-12)

	// Repository means weigh by their cases: a's one case at 1 against b's three at 0.
	uneven := []CaseResult{result("s", 0.2, "r/a/1", 1), result("s", 0.2, "r/b/1", 0), result("s", 0.2, "r/b/2", 0), result("s", 0.2, "r/b/3", 0)}
	s = Spreads(uneven, SpreadOptions{By: regexp.MustCompile(`^r/(\w+)/`), Draws: 4000, Seed: 1})[0]
	assert.InDelta(t, 0.25, s.Mean, 1e-12)
	assert.InDelta(t, 0.25, s.Median, 1e-12, "one of each repository: 1 of 4 cases")
	assert.Zero(t, s.Aim, "no aims: none shown")
}

func TestSpreadsAreReproducible(t *testing.T) {
	var results []CaseResult
	for i, r := range []float64{0.1, 0.9, 0.4, 0.7, 0.3, 1, 0, 0.65} {
		results = append(results, result("s", 0.1, "r/"+string(rune('a'+i%5))+"/x", r))
	}
	o := SpreadOptions{By: regexp.MustCompile(`^r/(\w)/`), Draws: 500, Seed: 9}
	a, b := Spreads(results, o), Spreads(results, o)
	assert.Equal(t, a, b)
	o.Seed = 10
	c := Spreads(results, o)
	assert.NotEqual(t, a[0].Low, c[0].Low, "another seed, other draws")
	assert.Equal(t, a[0].Mean, c[0].Mean)
}

func TestSpreadsPoolDatasetsOfOneSourceType(t *testing.T) {
	natural := result("s", 0, "q/1", 0.5)
	natural.Budget, natural.Mode = nil, ModeNatural
	results := []CaseResult{
		inDataset(result("s", 0.2, "q/1", 1), "logs", "ci-a"),
		inDataset(result("s", 0.2, "q/2", 0), "logs", "ci-b"),
		inDataset(result("s", 0.2, "q/3", 0.5), "logs", "ci-b"),
		inDataset(result("s", 0.2, "q/4", 0.5), "docs", "pages"),
		inDataset(result("s", 0.1, "q/4", 0.25), "docs", "pages"),
		inDataset(natural, "docs", "pages"),
		inDataset(result("t", 0.2, "q/1", 1), "logs", "ci-a"),
	}
	o := SpreadOptions{Draws: 100, Aims: map[string]float64{"logs": 0.9, "ci-b": 0.4, "docs": 0.3}, AimBudget: 0.2}
	ss := Spreads(results, o)
	var got []string
	for _, s := range ss {
		got = append(got, s.Scorer+" "+s.Dataset+" "+budgetLabel(s.Budget))
	}
	assert.Equal(t, []string{"s ci-a 20%", "s ci-b 20%", "s all 20%", "s pages 20%", "s pages 10%", "s pages natural", "t ci-a 20%"}, got)
	pooled := ss[2]
	assert.Equal(t, "logs", pooled.SourceType)
	assert.Equal(t, 3, pooled.Cases)
	assert.InDelta(t, 0.5, pooled.Mean, 1e-12)
	assert.InDelta(t, 0.9, pooled.Aim, 1e-12, "the source type's aim holds its pooled row")
	assert.Zero(t, ss[0].Aim, "a dataset that is part of its source type has no aim of its own")
	assert.InDelta(t, 0.4, ss[1].Aim, 1e-12, "a dataset's own aim")
	assert.InDelta(t, 0.3, ss[3].Aim, 1e-12, "the one dataset of its source type takes the source type's aim")
	assert.Zero(t, ss[4].Aim, "aims are set at one budget")
	assert.Zero(t, ss[5].Aim)
	assert.InDelta(t, 0.9, ss[6].Aim, 1e-12, "t's one logs dataset holds every logs case of t")

	var out bytes.Buffer
	require.NoError(t, WriteSpreads(&out, ss))
	assert.Regexp(t, `(?m)^\s*s\s+logs\s+all\s+20%\s+3\s+3\s+0\.500\s+\S+\s+\S+\s+\S+\s+0\.90\s+\d+\.\d%\s*$`, out.String())
	assert.Contains(t, out.String(), "repositories drawn with replacement")
}
