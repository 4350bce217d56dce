package benchmarks

import (
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"text/tabwriter"
)

// Spread is how far one group of cases' mean recall could move on other repositories like
// these. The unseen split of the bench draws other repositories of the same sources (the
// other half of LogChunks' repositories, other fixes of the same projects), and cases of one
// repository fail together, so the spread resamples repositories, not cases: a cluster
// bootstrap, where a case-level interval would be too narrow.
type Spread struct {
	Scorer, SourceType string
	// Dataset is the cases' dataset, or "all" for a row pooled over every dataset of its
	// source type in the run (the logs aim is over LogChunks and cidiff together).
	Dataset string
	Mode    Mode
	Budget  *float64
	// Cases counts the cases with gold lines; Groups the repositories (keys) they come from.
	Cases, Groups int
	// Mean is the macro average recall, as the bench reports it.
	Mean float64
	// Low, Median and High are the 2.5th, 50th and 97.5th percentiles of the resampled means.
	Low, Median, High float64
	// Aim is the recall this row is held to (0: none); BelowAim the share of the resampled
	// means under it: how often a draw of other repositories would miss the aim.
	Aim, BelowAim float64
}

// SpreadOptions says how Spreads groups and resamples.
type SpreadOptions struct {
	// By keys a case id to its group (repository), as DiffOptions.Split does: the first
	// non-empty group of the match, or the whole match. A case it does not match (nil By:
	// every case) is a group of its own.
	By *regexp.Regexp
	// Draws is the number of resampled means (0: DefaultDraws); Seed seeds them, so a run
	// is reproducible and every row is drawn alike.
	Draws int
	Seed  uint64
	// Aims maps a dataset name (swe-bench) or a source type (logs) to the recall it is held
	// to at AimBudget. A dataset's own aim comes first; a source type's applies to its pooled
	// row, or to its one dataset when the run holds only one.
	Aims      map[string]float64
	AimBudget float64
}

// DevRepoKey is a key (SpreadOptions.By, DiffOptions.Split) for the repository of every dev
// set's case ids (swebench/astropy__astropy-12907, commits/caddyserver/caddy@45ba3278b582,
// logchunks/C#/NancyFx@Nancy/failed/375658615.log, cidiff/assertfixer_1320); docs ids
// (conala/train/4934806-50) name no page and match none.
const DevRepoKey = `^(?:swebench/(.+)-\d+$|commits/([^@]+)@|logchunks/[^/]+/([^/]+)/|cidiff/(.+)_\d+$)`

// AimSpreads is Spreads over rows' cases with the dev sets' repositories as groups, the
// default aims and seed 1, keeping the rows held to an aim of the scorers that are not
// baselines: what the Markdown report says of the aims.
func AimSpreads(rows []Row) []Spread {
	baseline := map[string]bool{}
	for _, b := range Registered() {
		baseline[b] = true
	}
	results := slices.DeleteFunc(Results(rows), func(c CaseResult) bool {
		return baseline[c.Scorer] || c.Budget == nil || *c.Budget != DefaultAimBudget
	})
	ss := Spreads(results, SpreadOptions{By: regexp.MustCompile(DevRepoKey), Seed: 1, Aims: DefaultAims, AimBudget: DefaultAimBudget})
	return slices.DeleteFunc(ss, func(s Spread) bool { return s.Aim == 0 })
}

// DefaultAimBudget is the budget DefaultAims are set at.
const DefaultAimBudget = 0.2

// DefaultDraws is the number of bootstrap draws when SpreadOptions.Draws is 0.
const DefaultDraws = 2000

// DefaultAims are the quality aims the project set itself, recall at DefaultAimBudget: SWE-bench
// Python files 0.80, multi-language fix commits 0.85, CI logs 0.92, documentation 0.60.
var DefaultAims = map[string]float64{"swe-bench": 0.80, "fix-commits": 0.85, "logs": 0.92, "docs": 0.60}

// Spreads resamples each scorer's recall per source type, dataset, mode and budget (in the
// order the groups first appear), with a row pooled over the datasets of a source type that
// has more than one.
func Spreads(results []CaseResult, o SpreadOptions) []Spread {
	type rowKey struct {
		scorer, st, ds string
		mode           Mode
		budget         float64
	}
	type row struct {
		s      Spread
		sums   map[string]float64
		counts map[string]int
		keys   []string // groups in first-appearance order, for reproducible draws
	}
	budgetKey := func(b *float64) float64 {
		if b == nil {
			return -1
		}
		return *b
	}
	var order []rowKey
	rows := map[rowKey]*row{}
	datasets := map[rowKey][]string{} // per pooled key, the datasets seen
	add := func(k rowKey, c *CaseResult, group string) {
		r := rows[k]
		if r == nil {
			r = &row{s: Spread{Scorer: c.Scorer, SourceType: c.SourceType, Dataset: k.ds, Mode: c.Mode, Budget: c.Budget},
				sums: map[string]float64{}, counts: map[string]int{}}
			rows[k] = r
			order = append(order, k)
		}
		if _, ok := r.counts[group]; !ok {
			r.keys = append(r.keys, group)
		}
		r.sums[group] += *c.Recall
		r.counts[group]++
		r.s.Cases++
		r.s.Mean += *c.Recall
	}
	for i := range results {
		c := &results[i]
		if c.Recall == nil {
			continue
		}
		group := c.Case
		if o.By != nil {
			if k, ok := splitKey(o.By, c.Case); ok {
				group = k
			}
		}
		k := rowKey{c.Scorer, c.SourceType, c.Dataset, c.Mode, budgetKey(c.Budget)}
		add(k, c, group)
		pk := k
		pk.ds = ""
		if !slices.Contains(datasets[pk], c.Dataset) {
			datasets[pk] = append(datasets[pk], c.Dataset)
		}
	}
	// Pooled rows follow the last dataset row of their source type.
	lastOf := map[rowKey]int{}
	for i, k := range order {
		k.ds = ""
		lastOf[k] = i
	}
	var out []Spread
	draws := o.Draws
	if draws <= 0 {
		draws = DefaultDraws
	}
	// whole: the row holds every case of its source type (pooled, or its one dataset).
	finish := func(r *row, whole bool) {
		s := r.s
		s.Groups = len(r.keys)
		s.Mean /= float64(s.Cases)
		s.Aim = s.aim(o, whole)
		s.Low, s.Median, s.High, s.BelowAim = bootstrapMeans(r.keys, r.sums, r.counts, draws, o.Seed, s.Aim)
		out = append(out, s)
	}
	for i, k := range order {
		pk := k
		pk.ds = ""
		finish(rows[k], len(datasets[pk]) == 1)
		if len(datasets[pk]) < 2 || lastOf[pk] != i {
			continue
		}
		pooled := &row{sums: map[string]float64{}, counts: map[string]int{}}
		pooled.s = Spread{Scorer: k.scorer, SourceType: k.st, Dataset: "all", Mode: k.mode, Budget: rows[k].s.Budget}
		for _, ds := range datasets[pk] {
			dk := pk
			dk.ds = ds
			r := rows[dk]
			for _, g := range r.keys {
				// A repository's key could repeat across datasets; keep them apart.
				pg := dk.ds + "\x00" + g
				pooled.keys = append(pooled.keys, pg)
				pooled.sums[pg] = r.sums[g]
				pooled.counts[pg] = r.counts[g]
			}
			pooled.s.Cases += r.s.Cases
			pooled.s.Mean += r.s.Mean
		}
		finish(pooled, true)
	}
	return out
}

// aim is the recall s is held to under o (0: none): its dataset's, else its source type's
// when s holds every case of that source type (whole).
func (s *Spread) aim(o SpreadOptions, whole bool) float64 {
	if s.Budget == nil || *s.Budget != o.AimBudget {
		return 0
	}
	if a, ok := o.Aims[s.Dataset]; ok {
		return a
	}
	if a, ok := o.Aims[s.SourceType]; ok && whole {
		return a
	}
	return 0
}

// bootstrapMeans draws len(keys) groups with replacement, draws times, and returns the 2.5th,
// 50th and 97.5th percentiles of the drawn means (each the drawn cases' macro average) and the
// share of draws under aim (0 without one).
func bootstrapMeans(keys []string, sums map[string]float64, counts map[string]int, draws int, seed uint64, aim float64) (low, median, high, below float64) {
	g := len(keys)
	sum := make([]float64, g)
	cnt := make([]float64, g)
	for i, k := range keys {
		sum[i], cnt[i] = sums[k], float64(counts[k])
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	means := make([]float64, draws)
	under := 0
	for d := range means {
		s, n := 0.0, 0.0
		for range g {
			j := rng.IntN(g)
			s += sum[j]
			n += cnt[j]
		}
		means[d] = s / n
		// A mean that equals the aim meets it, whatever the last bit of its division says.
		if aim > 0 && means[d] < aim-1e-9 {
			under++
		}
	}
	slices.Sort(means)
	at := func(q float64) float64 { return means[int(q*float64(draws-1)+0.5)] }
	if aim > 0 {
		below = float64(under) / float64(draws)
	}
	return at(0.025), at(0.5), at(0.975), below
}

// splitKey is the case id's key under re (the first non-empty group, else the whole match),
// and whether re matches it.
func splitKey(re *regexp.Regexp, id string) (string, bool) {
	m := re.FindStringSubmatch(id)
	if m == nil {
		return "", false
	}
	for _, g := range m[1:] {
		if g != "" {
			return g, true
		}
	}
	return m[0], true
}

// WriteSpreads prints ss as an aligned table.
func WriteSpreads(w io.Writer, ss []Spread) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scorer\tsource\tdataset\tbudget\tcases\trepos\trecall\t2.5%\tmedian\t97.5%\taim\tP(< aim)\t")
	for _, s := range ss {
		aim, below := "", ""
		if s.Aim > 0 {
			aim, below = fmt.Sprintf("%.2f", s.Aim), fmt.Sprintf("%.1f%%", 100*s.BelowAim)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\t\n", s.Scorer, s.SourceType, s.Dataset, budgetLabel(s.Budget),
			s.Cases, s.Groups, s.Mean, s.Low, s.Median, s.High, aim, below)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "percentiles of the mean recall over repositories drawn with replacement (every case of a drawn repository in); P(< aim): the share of draws under the aim")
	return err
}
