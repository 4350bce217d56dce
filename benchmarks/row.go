package benchmarks

import (
	"math"
	"sort"
)

// Mode says how a scorer's scores become kept lines.
type Mode string

// The two modes of a run.
const (
	// ModeBudget keeps the best-scored lines until a share of the case's tokens is used.
	ModeBudget Mode = "budget"
	// ModeNatural applies the scorer's own default threshold under engine.DefaultOptions.
	ModeNatural Mode = "natural"
)

// Accounting says what is counted as kept.
type Accounting string

// The two accountings of a run.
const (
	// AccountingEngine prunes through the real engine: kept tokens are the exact tokens of
	// pruned_text, markers, protected lines and line prefixes included, as an agent reads them.
	AccountingEngine Accounting = "engine"
	// AccountingLines is the reference figures' accounting: rank lines best first and keep
	// them until the share of the case's tokens, counted on the kept lines only, is reached
	// (at least 5 lines; no markers, no protection).
	AccountingLines Accounting = "lines"
)

// Row aggregates the outcomes of one scorer on one group of cases in one mode and budget.
// Its JSON form is the documented schema of `pruner bench --json`.
type Row struct {
	Scorer     string     `json:"scorer"`
	SourceType string     `json:"source_type"`
	Dataset    string     `json:"dataset"`
	Mode       Mode       `json:"mode"`
	Budget     *float64   `json:"budget"` // share of the case's tokens; null in natural mode
	Accounting Accounting `json:"accounting"`
	// Encoding is the tiktoken encoding the tokens were counted in.
	Encoding string `json:"encoding,omitempty"`
	Cases    int    `json:"cases"`
	// Recall is the macro average over cases of the share of gold lines kept.
	Recall float64 `json:"recall"`
	// HitRate is the share of cases with at least one gold line kept.
	HitRate float64 `json:"hit_rate"`
	// Reduction is the macro average of 1 - kept tokens / tokens before.
	Reduction float64 `json:"reduction"`
	// KeptTokens and TokensBefore are means over cases.
	KeptTokens   float64 `json:"kept_tokens"`
	TokensBefore float64 `json:"tokens_before"`
	// P50MS and P99MS are percentiles of the per-case latency (engine.Prune, or the scorer
	// call under lines accounting).
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
	// MBPerS is the input megabytes (10^6 bytes) processed per second of latency.
	MBPerS float64 `json:"mb_per_s"`
	// Fallbacks counts fail-open results (timeout, scorer error, unmet constraints): the
	// whole text was kept. OverBudget counts results above their token budget.
	Fallbacks  int `json:"fallbacks"`
	OverBudget int `json:"over_budget"`

	outcomes []outcome
}

// outcome is one prune of one case.
type outcome struct {
	id           string // the case's id
	recall       float64
	hasGold      bool
	hit          bool
	tokensBefore int
	keptTokens   int
	bytes        int
	ms           float64
	fallback     bool
	overBudget   bool
}

// newOutcome scores a kept set (1-based ascending line numbers) against the gold lines.
func newOutcome(gold, kept []int, tokensBefore, keptTokens int) outcome {
	o := outcome{tokensBefore: tokensBefore, keptTokens: keptTokens}
	if len(gold) == 0 {
		return o
	}
	o.hasGold = true
	in := make(map[int]struct{}, len(kept))
	for _, k := range kept {
		in[k] = struct{}{}
	}
	found := 0
	seen := map[int]struct{}{}
	for _, g := range gold {
		if _, dup := seen[g]; dup {
			continue
		}
		seen[g] = struct{}{}
		if _, ok := in[g]; ok {
			found++
		}
	}
	o.recall = float64(found) / float64(len(seen))
	o.hit = found > 0
	return o
}

// reduction is 1 - kept/before; an empty input reduces nothing.
func (o outcome) reduction() float64 {
	if o.tokensBefore == 0 {
		return 0
	}
	return 1 - float64(o.keptTokens)/float64(o.tokensBefore)
}

// finish computes the row's figures from its outcomes.
func (r *Row) finish() {
	r.Cases = len(r.outcomes)
	r.Recall, r.HitRate, r.Reduction, r.KeptTokens, r.TokensBefore = 0, 0, 0, 0, 0
	r.Fallbacks, r.OverBudget = 0, 0
	if r.Cases == 0 {
		r.P50MS, r.P99MS, r.MBPerS = 0, 0, 0
		return
	}
	gold := 0
	bytes, ms := 0, 0.0
	lat := make([]float64, 0, r.Cases)
	for _, o := range r.outcomes {
		if o.hasGold {
			gold++
			r.Recall += o.recall
			if o.hit {
				r.HitRate++
			}
		}
		r.Reduction += o.reduction()
		r.KeptTokens += float64(o.keptTokens)
		r.TokensBefore += float64(o.tokensBefore)
		bytes += o.bytes
		ms += o.ms
		lat = append(lat, o.ms)
		if o.fallback {
			r.Fallbacks++
		}
		if o.overBudget {
			r.OverBudget++
		}
	}
	if gold > 0 {
		r.Recall /= float64(gold)
		r.HitRate /= float64(gold)
	}
	n := float64(r.Cases)
	r.Reduction /= n
	r.KeptTokens /= n
	r.TokensBefore /= n
	sort.Float64s(lat)
	r.P50MS = percentile(lat, 0.50)
	r.P99MS = percentile(lat, 0.99)
	if ms > 0 {
		r.MBPerS = float64(bytes) / 1e6 / (ms / 1e3)
	}
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// MergeRows combines rows that share a scorer, mode, budget and accounting and the key
// returned by group (e.g. the source type, or "" for everything) into one row per key,
// recomputing every figure from the underlying cases. Rows read back from JSON carry no
// cases and cannot be merged. The merged rows' Dataset is "all" unless group keeps it.
func MergeRows(rows []Row, group func(Row) (sourceType, dataset string)) []Row {
	type key struct {
		scorer, st, ds string
		mode           Mode
		budget         float64
		acc            Accounting
	}
	var order []key
	merged := map[key]*Row{}
	for _, r := range rows {
		st, ds := group(r)
		k := key{r.Scorer, st, ds, r.Mode, budgetOf(r), r.Accounting}
		m, ok := merged[k]
		if !ok {
			m = &Row{Scorer: r.Scorer, SourceType: st, Dataset: ds, Mode: r.Mode, Budget: r.Budget, Accounting: r.Accounting, Encoding: r.Encoding}
			merged[k] = m
			order = append(order, k)
		}
		m.outcomes = append(m.outcomes, r.outcomes...)
	}
	out := make([]Row, 0, len(order))
	for _, k := range order {
		m := merged[k]
		m.finish()
		out = append(out, *m)
	}
	return out
}

func budgetOf(r Row) float64 {
	if r.Budget == nil {
		return -1
	}
	return *r.Budget
}
