package benchmarks

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// Comparison is a paired comparison of two scorers on the same cases in one group (source
// type, dataset, mode, budget): per-case differences of recall, Other minus Base, so the
// cases' difficulty cancels out. A difference whose 95% interval excludes 0 is unlikely to
// be the luck of which cases the data holds.
type Comparison struct {
	Base, Other string
	SourceType  string
	Dataset     string
	Mode        Mode
	Budget      *float64
	Cases       int // cases with gold lines, the ones recall is averaged over
	// MeanDiff is Other's recall minus Base's; Low and High bound its 95% interval (normal
	// approximation, ±1.96 standard errors of the mean difference).
	MeanDiff, Low, High float64
	// Better, Worse and Same count cases by the sign of the difference.
	Better, Worse, Same int
	// Diffs are the per-case differences, in case order, so comparisons of several runs
	// (cross-validation folds) can be pooled with PairedDiffs.
	Diffs []float64 `json:"-"`
}

// PairedDiffs summarises per-case recall differences (other minus base) into a Comparison
// with only the statistics set: mean, 95% interval and counts by sign.
func PairedDiffs(diffs []float64) Comparison {
	c := Comparison{Cases: len(diffs), Diffs: diffs}
	for _, d := range diffs {
		switch {
		case d > 1e-9:
			c.Better++
		case d < -1e-9:
			c.Worse++
		default:
			c.Same++
		}
	}
	c.MeanDiff, c.Low, c.High = meanInterval(diffs)
	return c
}

// Compare pairs the rows of scorers base and other (run together, so their outcomes are in
// the same case order) group by group, in the order of base's rows.
func Compare(rows []Row, base, other string) []Comparison {
	type key struct {
		st, ds string
		mode   Mode
		budget float64
	}
	keyOf := func(r *Row) key { return key{r.SourceType, r.Dataset, r.Mode, budgetOf(*r)} }
	others := map[key]*Row{}
	for i := range rows {
		if rows[i].Scorer == other {
			others[keyOf(&rows[i])] = &rows[i]
		}
	}
	var out []Comparison
	for i := range rows {
		b := &rows[i]
		o := others[keyOf(b)]
		if b.Scorer != base || o == nil || len(o.outcomes) != len(b.outcomes) {
			continue
		}
		var diffs []float64
		for k, bo := range b.outcomes {
			if bo.hasGold {
				diffs = append(diffs, o.outcomes[k].recall-bo.recall)
			}
		}
		c := PairedDiffs(diffs)
		c.Base, c.Other, c.SourceType, c.Dataset, c.Mode, c.Budget = base, other, b.SourceType, b.Dataset, b.Mode, b.Budget
		out = append(out, c)
	}
	return out
}

// meanInterval returns the mean of xs and its 95% interval (±1.96 standard errors).
func meanInterval(xs []float64) (mean, low, high float64) {
	n := float64(len(xs))
	if n == 0 {
		return 0, 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if n < 2 {
		return mean, mean, mean
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	se := math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	return mean, mean - 1.96*se, mean + 1.96*se
}

// WriteComparisons prints cs as an aligned table.
func WriteComparisons(w io.Writer, cs []Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "other − base\tsource\tdataset\tbudget\tcases\trecall diff\t95% interval\tbetter\tworse\tsame\t")
	for _, c := range cs {
		fmt.Fprintf(tw, "%s − %s\t%s\t%s\t%s\t%d\t%+.3f\t%+.3f … %+.3f\t%d\t%d\t%d\t\n",
			c.Other, c.Base, c.SourceType, c.Dataset, budgetLabel(c.Budget), c.Cases, c.MeanDiff, c.Low, c.High, c.Better, c.Worse, c.Same)
	}
	return tw.Flush()
}
