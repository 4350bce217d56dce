package benchmarks

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// result is one per-case result; recall < 0 is a case without gold lines.
func result(scorer string, budget float64, id string, recall float64) CaseResult {
	c := CaseResult{Scorer: scorer, SourceType: "code", Dataset: "d", Mode: ModeBudget, Budget: &budget, Case: id}
	if recall >= 0 {
		c.Recall = &recall
	}
	return c
}

func TestDiffRunsPairsCaseByCase(t *testing.T) {
	base := []CaseResult{
		result("s", 0.1, "x/1", 0.5), result("s", 0.1, "x/2", 1), result("s", 0.1, "x/3", 0.2),
		result("s", 0.1, "x/4", -1),  // no gold lines: left out
		result("s", 0.1, "x/5", 0.4), // not in the other run: unpaired
		result("s", 0.2, "x/1", 0.5),
		result("t", 0.1, "x/1", 0.9), // a scorer the other run lacks: not compared
	}
	other := []CaseResult{
		result("s", 0.2, "x/1", 0.5),
		result("s", 0.1, "x/3", 0.7), result("s", 0.1, "x/2", 0.75), result("s", 0.1, "x/1", 0.5),
		result("s", 0.1, "x/4", -1),
		result("s", 0.1, "x/6", 1),   // not in the base run: unpaired
		result("s", 0.3, "x/1", 0.1), // a budget the base run lacks: ignored
	}
	ds, err := DiffRuns(base, other, DiffOptions{})
	require.NoError(t, err)
	require.Len(t, ds, 2, "one group per budget the base run holds")

	d := ds[0]
	assert.Equal(t, "s", d.Base)
	assert.Equal(t, 0.1, *d.Budget)
	assert.Equal(t, 3, d.Cases)
	assert.InDelta(t, (0-0.25+0.5)/3, d.MeanDiff, 1e-12)
	assert.Equal(t, [3]int{1, 1, 1}, [3]int{d.Better, d.Worse, d.Same})
	assert.Equal(t, 2, d.Unpaired)
	assert.Nil(t, d.Halves)
	assert.Equal(t, []CaseMove{{"x/3", 0.2, 0.7}, {"x/2", 1, 0.75}}, d.Moved, "largest change first")

	assert.Equal(t, 1, ds[1].Cases)
	assert.Equal(t, 0.0, ds[1].MeanDiff)
	assert.Empty(t, ds[1].Moved)
}

// TestDiffRunsRefusesOtherCounting: runs whose tokens were counted another way (accounting,
// encoding) have other budgets, so their difference is not a scorer's: refused. Results from
// files that do not say how they were counted still pair.
func TestDiffRunsRefusesOtherCounting(t *testing.T) {
	counted := func(acc Accounting, enc string) []CaseResult {
		c := result("s", 0.1, "x/1", 0.5)
		c.Accounting, c.Encoding = acc, enc
		return []CaseResult{c}
	}
	_, err := DiffRuns(counted(AccountingEngine, "cl100k_base"), counted(AccountingLines, "cl100k_base"), DiffOptions{})
	assert.ErrorContains(t, err, "--accounting engine against lines")
	_, err = DiffRuns(counted(AccountingEngine, "cl100k_base"), counted(AccountingEngine, "o200k_base"), DiffOptions{})
	assert.ErrorContains(t, err, "--encoding cl100k_base against o200k_base")
	_, err = DiffRuns(counted(AccountingEngine, "cl100k_base"), counted(AccountingEngine, "cl100k_base"), DiffOptions{})
	assert.NoError(t, err)
	_, err = DiffRuns(counted("", ""), counted(AccountingLines, "o200k_base"), DiffOptions{})
	assert.NoError(t, err, "an older file does not say: it pairs")
}

func TestDiffRunsSplitsByKey(t *testing.T) {
	halfOfKey := func(k string) int {
		sum := md5.Sum([]byte(k))
		return int(sum[15] & 1)
	}
	// Two repositories in each half, three cases each, and one case the split does not match.
	var keys [2][]string
	for i := 0; len(keys[0]) < 2 || len(keys[1]) < 2; i++ {
		k := fmt.Sprintf("repo%d", i)
		if h := halfOfKey(k); len(keys[h]) < 2 {
			keys[h] = append(keys[h], k)
		}
	}
	var base, other []CaseResult
	for h, ks := range keys {
		for _, k := range ks {
			for j := range 3 {
				id := fmt.Sprintf("set/%s@owner/%d", k, j)
				base = append(base, result("s", 0.2, id, 0.5))
				other = append(other, result("s", 0.2, id, 0.5+0.25*float64(h))) // half B gains
			}
		}
	}
	base = append(base, result("s", 0.2, "elsewhere", 0))
	other = append(other, result("s", 0.2, "elsewhere", 1))

	ds, err := DiffRuns(base, other, DiffOptions{Split: regexp.MustCompile(`^set/([^@]+)@`)})
	require.NoError(t, err)
	require.Len(t, ds, 1)
	d := ds[0]
	require.NotNil(t, d.Halves)
	assert.Equal(t, 13, d.Cases)
	a, b := d.Halves[0], d.Halves[1]
	assert.Equal(t, 6, a.Cases)
	assert.Equal(t, 0.0, a.MeanDiff)
	assert.Equal(t, 6, b.Cases)
	assert.InDelta(t, 0.25, b.MeanDiff, 1e-12)
	assert.Equal(t, 6, b.Better)
	var out bytes.Buffer
	require.NoError(t, WriteRunDiffs(&out, ds, 0))
	assert.Contains(t, out.String(), "1 paired cases match --split in neither half", "the unmatched case is said")

	// Without a group, the whole match is the key.
	ds, err = DiffRuns(base, other, DiffOptions{Split: regexp.MustCompile(`^elsewhere$`)})
	require.NoError(t, err)
	assert.Equal(t, 1, ds[0].Halves[halfOfKey("elsewhere")].Cases)
	assert.Equal(t, 0, ds[0].Halves[1-halfOfKey("elsewhere")].Cases)
	out.Reset()
	require.NoError(t, WriteRunDiffs(&out, ds, 0))
	assert.Contains(t, out.String(), "n/a (no case)", "an empty half is no difference of zero")
}

func TestDiffRunsNamedScorers(t *testing.T) {
	run := []CaseResult{result("a", 0.2, "c1", 0.25), result("b", 0.2, "c1", 1)}
	ds, err := DiffRuns(run, run, DiffOptions{BaseScorer: "a", OtherScorer: "b"})
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, "a", ds[0].Base)
	assert.Equal(t, "b", ds[0].Other)
	assert.Equal(t, 0.75, ds[0].MeanDiff)

	_, err = DiffRuns(run, run, DiffOptions{BaseScorer: "a"})
	assert.ErrorContains(t, err, "both scorers or neither")
	_, err = DiffRuns(run, run, DiffOptions{BaseScorer: "z", OtherScorer: "b"})
	assert.ErrorContains(t, err, `no results of scorer "z"`)
	_, err = DiffRuns(run, []CaseResult{result("q", 0.2, "c1", 1)}, DiffOptions{})
	assert.ErrorContains(t, err, "share no scorer")
}

func TestReadResultsRoundTrip(t *testing.T) {
	b10 := 0.1
	rows := []Row{{Scorer: "s", SourceType: "logs", Dataset: "d", Mode: ModeBudget, Budget: &b10,
		outcomes: []outcome{{id: "c1", recall: 0.5, hasGold: true, keptTokens: 7}, {id: "c2"}}}}
	var buf bytes.Buffer
	require.NoError(t, WriteResults(&buf, rows))
	got, err := ReadResults(&buf)
	require.NoError(t, err)
	assert.Equal(t, Results(rows), got)

	_, err = ReadResults(strings.NewReader("{\"scorer\":\"s\",\"case\":\"c\"}\n{oops\n"))
	assert.ErrorContains(t, err, "line 2")
	_, err = ReadResults(strings.NewReader("{\"scorer\":\"s\",\"recall\":1}\n"))
	assert.ErrorContains(t, err, "not a per-case result")
}

func TestWriteRunDiffs(t *testing.T) {
	base := []CaseResult{result("s", 0.2, "r1/a", 0.5), result("s", 0.2, "r2/b", 1)}
	other := []CaseResult{result("s", 0.2, "r1/a", 1), result("s", 0.2, "r2/b", 1)}
	ds, err := DiffRuns(base, other, DiffOptions{Split: regexp.MustCompile(`^(r\d)/`)})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteRunDiffs(&buf, ds, 1))
	out := buf.String()
	assert.Contains(t, out, "+0.2500")
	assert.Contains(t, out, "half A")
	assert.Contains(t, out, "code d 20%, s: most moved of 1\n  +0.500  0.500 → 1.000  r1/a\n")

	buf.Reset()
	require.NoError(t, WriteRunDiffs(&buf, ds, 0))
	assert.NotContains(t, buf.String(), "most moved")
}

func TestFormatBudget(t *testing.T) {
	assert.Equal(t, "7%", formatBudget(0.07))
	assert.Equal(t, "20%", formatBudget(0.2))
	assert.Equal(t, "12.5%", formatBudget(0.125))
}

// TestSplitKeyOfAlternatives: with one group per alternative, the group that matched is the key.
func TestSplitKeyOfAlternatives(t *testing.T) {
	re := regexp.MustCompile(`^(?:a/([^/]+)/|b/([^@]+)@)`)
	for _, c := range []struct{ id, key string }{{"a/x/1", "x"}, {"b/y@2", "y"}} {
		h, ok := halfOf(re, c.id)
		require.True(t, ok, c.id)
		want, _ := halfOf(regexp.MustCompile(`.+`), c.key)
		assert.Equal(t, want, h, c.id)
	}
	_, ok := halfOf(re, "c/z")
	assert.False(t, ok)
}

// TestDiffRunsReduction: the reduction difference is the paired cases' mean, so a change that
// gains recall by keeping more tokens shows its price.
func TestDiffRunsReduction(t *testing.T) {
	mk := func(id string, recall float64, kept int) CaseResult {
		c := result("s", 0.2, id, recall)
		c.TokensBefore, c.KeptTokens = 100, kept
		return c
	}
	base := []CaseResult{mk("a", 0.5, 20), mk("b", 0.5, 40), mk("c", 1, 10)}
	other := []CaseResult{mk("a", 1, 60), mk("b", 0.5, 40), mk("c", 1, 30), mk("d", 1, 100)}
	ds, err := DiffRuns(base, other, DiffOptions{})
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.InDelta(t, (-0.4+0-0.2)/3, ds[0].ReductionDiff, 1e-12)
	assert.Equal(t, 1, ds[0].Unpaired)
}

// TestDiffRunsFallbacks: cases that fell back in one run are counted and called out, since a
// prune that fails open keeps every gold line.
func TestDiffRunsFallbacks(t *testing.T) {
	base := []CaseResult{result("s", 0.2, "a", 0.5), result("s", 0.2, "b", 0.5)}
	other := []CaseResult{result("s", 0.2, "a", 1), result("s", 0.2, "b", 0.5)}
	other[0].Fallback = true
	ds, err := DiffRuns(base, other, DiffOptions{})
	require.NoError(t, err)
	assert.Equal(t, [2]int{0, 1}, ds[0].Fallbacks)
	var buf bytes.Buffer
	require.NoError(t, WriteRunDiffs(&buf, ds, 0))
	assert.Contains(t, buf.String(), "0 paired cases fell back (text returned whole) in the base run, 1 in the other")

	ds, err = DiffRuns(base, base, DiffOptions{})
	require.NoError(t, err)
	buf.Reset()
	require.NoError(t, WriteRunDiffs(&buf, ds, 0))
	assert.NotContains(t, buf.String(), "fell back")
}

// TestDiffRunsNaturalMode: natural-mode results, which have no budget, pair as one group.
func TestDiffRunsNaturalMode(t *testing.T) {
	nat := func(id string, recall float64) CaseResult {
		return CaseResult{Scorer: "s", SourceType: "docs", Dataset: "d", Mode: ModeNatural, Case: id, Recall: &recall}
	}
	ds, err := DiffRuns([]CaseResult{nat("a", 0.5), nat("b", 1)}, []CaseResult{nat("a", 1), nat("b", 1)}, DiffOptions{})
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Nil(t, ds[0].Budget)
	assert.Equal(t, 2, ds[0].Cases)
	assert.Equal(t, 0.25, ds[0].MeanDiff)
	var buf bytes.Buffer
	require.NoError(t, WriteRunDiffs(&buf, ds, 0))
	assert.Contains(t, buf.String(), "natural")
}
