package benchmarks

import (
	"bufio"
	"cmp"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"text/tabwriter"
)

// ReadResults reads a --cases file: JSON Lines of CaseResult, as WriteResults writes them.
func ReadResults(r io.Reader) ([]CaseResult, error) {
	var out []CaseResult
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var c CaseResult
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if c.Case == "" || c.Scorer == "" {
			return nil, fmt.Errorf("line %d: not a per-case result (no scorer or case)", n)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// RunDiff compares one scorer's per-case results in two runs (two builds, or one build with
// and without a change) on one group of cases (source type, dataset, mode, budget): the
// Comparison of recall, Other's run minus Base's, case by case, plus the same over each half
// of the cases when they are split, and every case that moved.
type RunDiff struct {
	Comparison
	// Halves are the comparison on half A and half B of the cases (DiffOptions.Split); nil
	// without a split.
	Halves *[2]Comparison
	// Moved are the cases whose recall changed, largest change first (ties by case id).
	Moved []CaseMove
	// Unpaired counts cases with gold lines found in one run only (left out of the figures).
	// Groups that only the other run has (another budget, another data file) are ignored.
	Unpaired int
	// ReductionDiff is the mean difference of the paired cases' token reduction (1 − kept
	// tokens / tokens before), Other's minus Base's: about 0 under a budget, and in natural
	// mode the price of a recall gain (a change that keeps more lines gains recall for free).
	ReductionDiff float64
	// Fallbacks counts the paired cases whose prune fell back (the text returned whole, so
	// its recall is 1 at any budget) in each run, Base's then Other's: a change that makes a
	// scorer fail gains recall that way, and WriteRunDiffs says so.
	Fallbacks [2]int
}

// CaseMove is one case's recall in the two runs.
type CaseMove struct {
	Case        string
	Base, Other float64
}

// DiffOptions selects what DiffRuns pairs.
type DiffOptions struct {
	// BaseScorer and OtherScorer name the scorer whose results are read from each run; both
	// empty: every scorer the two runs share, each against itself.
	BaseScorer, OtherScorer string
	// Split, when set, divides the cases into two halves by a key: the regular expression's
	// first non-empty group in the case id (its whole match when no group matched text), so
	// alternatives can name the key of several id forms. A key whose MD5's
	// last byte is even is half A, odd half B, so every case of one repository or package
	// lands in the same half and a rule chosen on one half can be confirmed on the other.
	// Cases it does not match belong to neither half.
	Split *regexp.Regexp
}

// DiffRuns pairs the per-case results of two runs scorer by scorer and group by group, in
// the order the groups first appear in base.
func DiffRuns(base, other []CaseResult, o DiffOptions) ([]RunDiff, error) {
	if err := sameCounting(base, other); err != nil {
		return nil, err
	}
	type group struct {
		st, ds string
		mode   Mode
		budget float64
	}
	type key struct {
		scorer string
		g      group
		id     string
	}
	groupOf := func(c *CaseResult) group {
		b := -1.0 // natural mode: no budget (a NaN would never equal itself as a map key)
		if c.Budget != nil {
			b = *c.Budget
		}
		return group{c.SourceType, c.Dataset, c.Mode, b}
	}
	pairs := [][2]string{{o.BaseScorer, o.OtherScorer}}
	if o.BaseScorer == "" && o.OtherScorer == "" {
		pairs = pairs[:0]
		inOther := map[string]bool{}
		for _, c := range other {
			inOther[c.Scorer] = true
		}
		seen := map[string]bool{}
		for _, c := range base {
			if inOther[c.Scorer] && !seen[c.Scorer] {
				seen[c.Scorer] = true
				pairs = append(pairs, [2]string{c.Scorer, c.Scorer})
			}
		}
		if len(pairs) == 0 {
			return nil, fmt.Errorf("the two runs share no scorer")
		}
	} else if o.BaseScorer == "" || o.OtherScorer == "" {
		return nil, fmt.Errorf("name both scorers or neither")
	}
	otherResult := map[key]*CaseResult{}
	for i := range other {
		c := &other[i]
		otherResult[key{c.Scorer, groupOf(c), c.Case}] = c
	}
	inBase := map[key]bool{}
	for i := range base {
		c := &base[i]
		inBase[key{c.Scorer, groupOf(c), c.Case}] = true
	}
	var out []RunDiff
	for _, p := range pairs {
		var order []group
		byGroup := map[group]*RunDiff{}
		diffs := map[group]*[3][]float64{} // all, half A, half B
		reduction := map[group]float64{}   // the sum of paired reduction differences
		found := false
		for i := range base {
			c := &base[i]
			if c.Scorer != p[0] {
				continue
			}
			found = true
			g := groupOf(c)
			d := byGroup[g]
			if d == nil {
				b := c.Budget
				d = &RunDiff{Comparison: Comparison{Base: p[0], Other: p[1], SourceType: c.SourceType, Dataset: c.Dataset, Mode: c.Mode, Budget: b}}
				byGroup[g], diffs[g] = d, &[3][]float64{}
				order = append(order, g)
			}
			if c.Recall == nil {
				continue
			}
			oc, ok := otherResult[key{p[1], g, c.Case}]
			if !ok || oc.Recall == nil {
				d.Unpaired++
				continue
			}
			r := oc.Recall
			diff := *r - *c.Recall
			reduction[g] += reductionOf(oc) - reductionOf(c)
			if c.Fallback {
				d.Fallbacks[0]++
			}
			if oc.Fallback {
				d.Fallbacks[1]++
			}
			ds := diffs[g]
			ds[0] = append(ds[0], diff)
			if o.Split != nil {
				if half, ok := halfOf(o.Split, c.Case); ok {
					ds[1+half] = append(ds[1+half], diff)
				}
			}
			if math.Abs(diff) > 1e-9 {
				d.Moved = append(d.Moved, CaseMove{Case: c.Case, Base: *c.Recall, Other: *r})
			}
		}
		if !found {
			return nil, fmt.Errorf("no results of scorer %q in the base run", p[0])
		}
		for i := range other {
			c := &other[i]
			g := groupOf(c)
			if d := byGroup[g]; d != nil && c.Scorer == p[1] && c.Recall != nil && !inBase[key{p[0], g, c.Case}] {
				d.Unpaired++
			}
		}
		for _, g := range order {
			d, ds := byGroup[g], diffs[g]
			all := PairedDiffs(ds[0])
			all.Base, all.Other, all.SourceType, all.Dataset, all.Mode, all.Budget = d.Base, d.Other, d.SourceType, d.Dataset, d.Mode, d.Budget
			d.Comparison = all
			if all.Cases > 0 {
				d.ReductionDiff = reduction[g] / float64(all.Cases)
			}
			if o.Split != nil {
				d.Halves = &[2]Comparison{PairedDiffs(ds[1]), PairedDiffs(ds[2])}
			}
			slices.SortStableFunc(d.Moved, func(a, b CaseMove) int {
				return cmp.Or(cmp.Compare(math.Abs(b.Other-b.Base), math.Abs(a.Other-a.Base)), cmp.Compare(a.Case, b.Case))
			})
			out = append(out, *d)
		}
	}
	return out, nil
}

// reductionOf is a result's token reduction, 1 − kept / before (0 for an empty text).
func reductionOf(c *CaseResult) float64 {
	if c.TokensBefore == 0 {
		return 0
	}
	return 1 - float64(c.KeptTokens)/float64(c.TokensBefore)
}

// halfOf is the half (0: A, 1: B) of the case id's split key, and whether it has one.
func halfOf(split *regexp.Regexp, id string) (int, bool) {
	k, ok := splitKey(split, id)
	if !ok {
		return 0, false
	}
	sum := md5.Sum([]byte(k))
	return int(sum[len(sum)-1] & 1), true
}

// WriteRunDiffs prints ds as an aligned table (with the halves' mean differences when the
// cases were split), then up to moved cases that moved most in each group (0: none).
func WriteRunDiffs(w io.Writer, ds []RunDiff, moved int) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	split := len(ds) > 0 && ds[0].Halves != nil
	head := "scorer\tsource\tdataset\tbudget\tcases\trecall diff\t95% interval\tbetter\tworse\tsame\treduction diff\t"
	if split {
		head += "half A\thalf B\t"
	}
	fmt.Fprintln(tw, head)
	for _, d := range ds {
		name := d.Base
		if d.Other != d.Base {
			name = d.Other + " − " + d.Base
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%+.4f\t%+.4f … %+.4f\t%d\t%d\t%d\t%+.4f\t", name, d.SourceType, d.Dataset, budgetLabel(d.Budget),
			d.Cases, d.MeanDiff, d.Low, d.High, d.Better, d.Worse, d.Same, d.ReductionDiff)
		if split {
			for _, h := range d.Halves {
				if h.Cases == 0 {
					fmt.Fprint(tw, "n/a (no case)\t") // not a difference of zero
					continue
				}
				fmt.Fprintf(tw, "%+.4f (%d: %d/%d)\t", h.MeanDiff, h.Cases, h.Better, h.Worse)
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if split {
		fmt.Fprintln(w, "half columns: mean difference (cases: better/worse)")
	}
	for _, d := range ds {
		if d.Fallbacks[0] != d.Fallbacks[1] {
			fmt.Fprintf(w, "%s %s %s: %d paired cases fell back (text returned whole) in the base run, %d in the other: their recall is not the scorer's\n",
				d.SourceType, d.Dataset, budgetLabel(d.Budget), d.Fallbacks[0], d.Fallbacks[1])
		}
		if d.Halves != nil {
			if out := d.Cases - d.Halves[0].Cases - d.Halves[1].Cases; out > 0 {
				fmt.Fprintf(w, "%s %s %s: %d paired cases match --split in neither half (counted in the whole only)\n", d.SourceType, d.Dataset, budgetLabel(d.Budget), out)
			}
		}
		if d.Unpaired > 0 {
			fmt.Fprintf(w, "%s %s %s: %d cases with gold lines are in one run only (left out)\n", d.SourceType, d.Dataset, budgetLabel(d.Budget), d.Unpaired)
		}
	}
	if moved <= 0 {
		return nil
	}
	for _, d := range ds {
		if len(d.Moved) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s %s %s, %s: most moved of %d\n", d.SourceType, d.Dataset, budgetLabel(d.Budget), d.Other, len(d.Moved))
		for _, m := range d.Moved[:min(moved, len(d.Moved))] {
			fmt.Fprintf(w, "  %+.3f  %.3f → %.3f  %s\n", m.Other-m.Base, m.Base, m.Other, m.Case)
		}
	}
	return nil
}

// sameCounting refuses two runs whose tokens were counted differently (accounting or
// encoding): their budgets differ, so the difference of their recalls is not a scorer's. A run
// counts one way throughout, so its first result says how; results that do not say (files from
// before these were recorded) pass.
func sameCounting(base, other []CaseResult) error {
	if len(base) == 0 || len(other) == 0 {
		return nil
	}
	b, c := base[0], other[0]
	if b.Accounting != "" && c.Accounting != "" && b.Accounting != c.Accounting {
		return fmt.Errorf("the runs count tokens differently: --accounting %s against %s; their figures do not pair", b.Accounting, c.Accounting)
	}
	if b.Encoding != "" && c.Encoding != "" && b.Encoding != c.Encoding {
		return fmt.Errorf("the runs count tokens differently: --encoding %s against %s; their figures do not pair", b.Encoding, c.Encoding)
	}
	return nil
}
