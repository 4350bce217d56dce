package benchmarks

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Meta describes a run for the reports: what ran, where and how.
type Meta struct {
	Command    string        // the exact command line
	Machine    string        // e.g. "linux/amd64, 2 CPUs, AMD EPYC 7B13"
	GoVersion  string        // runtime.Version()
	Date       time.Time     // when the run started
	Elapsed    time.Duration // wall time of the run
	Files      []string      // data files, base names
	Cases      int           // cases run
	Accounting Accounting
	Encoding   string // tiktoken encoding
	Parallel   int
	SVG        string // path of the chart relative to the Markdown report, if any
	// Load is the machine's 1-minute load average when the run started (Linux), since other
	// work on the machine inflates latencies; "" when unknown.
	Load string
}

// LoadAverage is the 1-minute load average from /proc/loadavg, or "" when unavailable.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return ""
}

// MachineInfo describes this machine: OS/arch, CPU count and, on Linux, the CPU model.
func MachineInfo() string {
	s := fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return s + ", " + strings.TrimSpace(v)
			}
		}
	}
	return s
}

// formatBudget writes a budget share as a percentage, to four decimals at most (0.07 is
// "7%", not the float product's "7.000000000000001%").
func formatBudget(b float64) string {
	return strconv.FormatFloat(math.Round(b*1e6)/1e4, 'f', -1, 64) + "%"
}

// budgetLabel is a row's or a comparison's budget as a percentage, or "natural" (natural
// mode has none).
func budgetLabel(b *float64) string {
	if b == nil {
		return "natural"
	}
	return formatBudget(*b)
}

// WriteTable writes rows as an aligned text table for a terminal.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scorer\tsource\tdataset\tbudget\tcases\trecall\thit\treduction\tkept tok\tp50 ms\tp99 ms\tMB/s\tfallbacks\tover budget\t")
	prev := ""
	for _, r := range rows {
		if prev != "" && prev != r.Scorer {
			fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t\t\t\t")
		}
		prev = r.Scorer
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.0f\t%.2f\t%.2f\t%.2f\t%d\t%d\t\n",
			r.Scorer, r.SourceType, r.Dataset, budgetLabel(r.Budget), r.Cases, r.Recall, r.HitRate, r.Reduction,
			r.KeptTokens, r.P50MS, r.P99MS, r.MBPerS, r.Fallbacks, r.OverBudget)
	}
	return tw.Flush()
}

// WriteJSON writes rows as a JSON list (the schema is Row's).
func WriteJSON(w io.Writer, rows []Row) error {
	if rows == nil {
		rows = []Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// CaseResult is one scorer's prune of one case in one mode and budget: the per-case figures
// a Row averages, for finding the cases a scorer wins or loses.
type CaseResult struct {
	Scorer       string   `json:"scorer"`
	SourceType   string   `json:"source_type"`
	Dataset      string   `json:"dataset"`
	Mode         Mode     `json:"mode"`
	Budget       *float64 `json:"budget"`
	Case         string   `json:"case"`
	Recall       *float64 `json:"recall"` // null for a case without gold lines
	KeptTokens   int      `json:"kept_tokens"`
	TokensBefore int      `json:"tokens_before"`
	MS           float64  `json:"ms"`
	Fallback     bool     `json:"fallback"`
	OverBudget   bool     `json:"over_budget"`
	// Accounting and Encoding say how tokens were counted: results counted otherwise do not
	// pair (DiffRuns refuses them). Empty in files written before they were recorded.
	Accounting Accounting `json:"accounting,omitempty"`
	Encoding   string     `json:"encoding,omitempty"`
}

// Results lists the per-case results behind rows, row by row, in case order.
func Results(rows []Row) []CaseResult {
	var out []CaseResult
	for _, r := range rows {
		for _, o := range r.outcomes {
			c := CaseResult{Scorer: r.Scorer, SourceType: r.SourceType, Dataset: r.Dataset, Mode: r.Mode, Budget: r.Budget,
				Case: o.id, KeptTokens: o.keptTokens, TokensBefore: o.tokensBefore, MS: o.ms, Fallback: o.fallback, OverBudget: o.overBudget,
				Accounting: r.Accounting, Encoding: r.Encoding}
			if o.hasGold {
				c.Recall = &o.recall
			}
			out = append(out, c)
		}
	}
	return out
}

// WriteResults writes the per-case results behind rows as JSON Lines, one object per line.
func WriteResults(w io.Writer, rows []Row) error {
	enc := json.NewEncoder(w)
	for _, c := range Results(rows) {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return nil
}

// bySourceType merges datasets of a source type; the group key for summaries and charts.
func bySourceType(r Row) (string, string) { return r.SourceType, "all" }

// budgetsOf lists the budgets present in rows, ascending.
func budgetsOf(rows []Row) []float64 {
	var bs []float64
	for _, r := range rows {
		if r.Budget != nil && !slices.Contains(bs, *r.Budget) {
			bs = append(bs, *r.Budget)
		}
	}
	slices.Sort(bs)
	return bs
}

// orderedKeys returns the distinct values of key over rows, in first-seen order.
func orderedKeys(rows []Row, key func(Row) string) []string {
	var out []string
	for _, r := range rows {
		if k := key(r); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// WriteMarkdown writes a report: how the run was made, a summary per source type (recall at
// each budget, and what the natural threshold keeps), the chart if any, and every row.
func WriteMarkdown(w io.Writer, rows []Row, m Meta) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Generated by `%s` on %s; machine: %s, %s; %d cases from %s; accounting `%s`, tokens `%s`, %d cases in parallel; took %s.\n\n",
		m.Command, m.Date.UTC().Format("2006-01-02 15:04 UTC"), m.Machine, m.GoVersion,
		m.Cases, strings.Join(m.Files, ", "), m.Accounting, m.Encoding, m.Parallel, m.Elapsed.Round(time.Second))
	b.WriteString("Recall is the macro average over cases of the share of gold lines kept; reduction is the macro average of 1 - kept tokens / tokens before, ")
	if m.Accounting == AccountingLines {
		b.WriteString("kept tokens counted on the kept lines only (the reference accounting: no markers, no protection, at least 5 lines).\n\n")
	} else {
		b.WriteString("kept tokens being the exact tokens of pruned_text (markers, protected lines and, in natural mode, line-number prefixes included). " +
			"Budget mode: token budget = floor(share x tokens before), threshold 0, max_prune_ratio 1, min_keep_lines 0, markers on, no line numbers. " +
			"Natural mode: the scorer's own threshold under the default options (max_prune_ratio 0.55, min_keep_lines 40, timeout 1500 ms, line numbers and markers on).\n\n")
	}
	b.WriteString("Latency is per case (engine.Prune, input lines' token counts cached per case; under lines accounting, the scorer call); MB/s is input megabytes per second of latency")
	if m.Load != "" {
		fmt.Fprintf(&b, " (load average %s when the run started: other work on the machine inflates latencies)", m.Load)
	}
	b.WriteString(".\n\n")
	if slices.ContainsFunc(rows, func(r Row) bool { return r.Scorer == BaselineOracle }) {
		b.WriteString("`oracle` scores each case's gold lines 1 and the rest far less, by their distance to one: its recall is the most the engine's selection keeps at that budget, the ceiling the other rows are read against.\n\n")
	}

	merged := MergeRows(rows, bySourceType)
	budgets := budgetsOf(rows)
	for _, st := range orderedKeys(merged, func(r Row) string { return r.SourceType }) {
		var sub []Row
		for _, r := range merged {
			if r.SourceType == st {
				sub = append(sub, r)
			}
		}
		datasets := orderedKeys(filterRows(rows, func(r Row) bool { return r.SourceType == st }), func(r Row) string { return r.Dataset })
		fmt.Fprintf(&b, "#### %s (%s; %d cases)\n\n", st, strings.Join(datasets, ", "), sub[0].Cases)
		b.WriteString("| scorer |")
		for _, bu := range budgets {
			fmt.Fprintf(&b, " R@%s |", formatBudget(bu))
		}
		b.WriteString(" natural recall | natural reduction | natural p50 ms | natural p99 ms | natural MB/s |\n|---|")
		for range budgets {
			b.WriteString("---:|")
		}
		b.WriteString("---:|---:|---:|---:|---:|\n")
		marked := false
		for _, sc := range orderedKeys(sub, func(r Row) string { return r.Scorer }) {
			fmt.Fprintf(&b, "| %s |", sc)
			var nat *Row
			for i := range sub {
				if sub[i].Scorer == sc && sub[i].Budget == nil {
					nat = &sub[i]
				}
			}
			for _, bu := range budgets {
				cell := " |"
				for _, r := range sub {
					if r.Scorer == sc && r.Budget != nil && *r.Budget == bu {
						cell = fmt.Sprintf(" %.3f |", r.Recall)
						if r.Fallbacks > 0 {
							cell = fmt.Sprintf(" %.3f ⚠ %d |", r.Recall, r.Fallbacks)
							marked = true
						}
					}
				}
				b.WriteString(cell)
			}
			if nat != nil {
				fmt.Fprintf(&b, " %.3f | %.3f | %.2f | %.2f | %.2f |\n", nat.Recall, nat.Reduction, nat.P50MS, nat.P99MS, nat.MBPerS)
			} else {
				b.WriteString(" | | | | |\n")
			}
		}
		b.WriteString("\n")
		if marked {
			b.WriteString("⚠ N: N cases of the cell failed open (the text came back whole, over its budget), so the cell's recall overstates the scorer.\n\n")
		}
	}
	if m.SVG != "" {
		fmt.Fprintf(&b, "![recall against token budget, per scorer and source type](%s)\n\n", m.SVG)
	}
	if ss := AimSpreads(rows); len(ss) > 0 {
		writeAimSpreads(&b, ss)
	}
	b.WriteString("<details><summary>Every row (per dataset)</summary>\n\n")
	b.WriteString("| scorer | source | dataset | budget | cases | recall | hit rate | reduction | kept tokens | p50 ms | p99 ms | MB/s | fallbacks | over budget |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %.3f | %.3f | %.3f | %.0f | %.2f | %.2f | %.2f | %d | %d |\n",
			r.Scorer, r.SourceType, r.Dataset, budgetLabel(r.Budget), r.Cases, r.Recall, r.HitRate, r.Reduction,
			r.KeptTokens, r.P50MS, r.P99MS, r.MBPerS, r.Fallbacks, r.OverBudget)
	}
	b.WriteString("\n</details>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAimSpreads writes the report's table of how often other repositories would miss
// each aim.
func writeAimSpreads(b *strings.Builder, ss []Spread) {
	b.WriteString("#### How sure: the aims on other repositories\n\n")
	b.WriteString("The unseen split draws other repositories of the same sources, and one repository's cases succeed or fail together, " +
		"so each row's repositories are drawn with replacement (every case of a drawn repository in; docs ids name no page, so there each case is drawn alone), " +
		"2,000 times with seed 1 (`pruner bench spread`): the percentiles of the drawn mean recall, and the share of draws under the aim.\n\n")
	b.WriteString("| scorer | source | dataset | repositories | recall | 2.5% | median | 97.5% | aim | draws under the aim |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range ss {
		fmt.Fprintf(b, "| %s | %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.2f @ %s | %.1f%% |\n", s.Scorer, s.SourceType, s.Dataset, s.Groups,
			s.Mean, s.Low, s.Median, s.High, s.Aim, budgetLabel(s.Budget), 100*s.BelowAim)
	}
	b.WriteString("\n")
}

// FailOpenWarning returns a warning when budget-mode results failed open (a scorer error, a
// timeout, scores out of range): such a result is the whole text, which keeps every gold line
// and breaks its budget, so the recall it adds is not the scorer's. It returns "" when none
// did.
func FailOpenWarning(rows []Row) string {
	n := 0
	var where []string
	for _, r := range rows {
		if r.Mode == ModeBudget && r.Fallbacks > 0 {
			n += r.Fallbacks
			where = append(where, fmt.Sprintf("%s %s %s %s: %d", r.Scorer, r.SourceType, r.Dataset, budgetLabel(r.Budget), r.Fallbacks))
		}
	}
	if n == 0 {
		return ""
	}
	const most = 5
	more := ""
	if len(where) > most {
		more = fmt.Sprintf("; and %d more rows", len(where)-most)
		where = where[:most]
	}
	results, their := "results", "their"
	if n == 1 {
		results, their = "result", "its"
	}
	return fmt.Sprintf("warning: %d budget-mode %s failed open and kept the whole text, which counts every gold line as kept: %s recall is not the scorer's (%s%s). --cases FILE names them (field fallback).",
		n, results, their, strings.Join(where, "; "), more)
}

func filterRows(rows []Row, keep func(Row) bool) []Row {
	var out []Row
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Section markers delimit the harness's part of benchmarks/RESULTS.md.
const (
	SectionBegin = "<!-- bench:begin -->"
	SectionEnd   = "<!-- bench:end -->"
)

// ReplaceSection returns doc with the text between SectionBegin and SectionEnd replaced by
// section, leaving the rest untouched; without markers, the section is appended.
func ReplaceSection(doc, section string) (string, error) {
	block := SectionBegin + "\n" + strings.TrimRight(section, "\n") + "\n" + SectionEnd
	i := strings.Index(doc, SectionBegin)
	j := strings.Index(doc, SectionEnd)
	switch {
	case i < 0 && j < 0:
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		if doc != "" {
			doc += "\n"
		}
		return doc + block + "\n", nil
	case i < 0 || j < i:
		return "", fmt.Errorf("results: %s and %s are not in order", SectionBegin, SectionEnd)
	}
	return doc[:i] + block + doc[j+len(SectionEnd):], nil
}
