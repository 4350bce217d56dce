package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// runBench is `pruner bench`: a thin flag layer over package benchmarks.
func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "build-commits" {
		return runBuildCommits(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "diff" {
		return runBenchDiff(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "spread" {
		return runBenchSpread(args[1:], stdout, stderr)
	}
	fs := benchFlagSet("bench", stdout, stderr)
	var (
		cfg        engineConfig
		data       []string
		dataDir    = fs.String("data-dir", "", "directory whose *.jsonl.gz are the default cases (default: shared/bench beside the module root that holds the working directory, or under a directory above it) (env MCP_PRUNER_BENCH_DATA)")
		scorers    = fs.String("scorers", "", "comma-separated scorer names or specs (plugin:…, onnx:…); default: every registered scorer and the baselines")
		budgets    = fs.String("budgets", "0.1,0.2,0.3,0.5", "comma-separated token shares for budget mode, each in (0, 1]")
		modes      = fs.String("modes", "budget,natural", "comma-separated modes: budget (keep the best lines up to each budget) and natural (the scorer's threshold, default options)")
		accounting = fs.String("accounting", string(benchmarks.AccountingEngine), "engine (through the real engine: markers and protected lines count) or lines (the reference figures' accounting)")
		jsonPath   = fs.String("json", "", "write the rows as JSON to this file")
		casesPath  = fs.String("cases", "", "write every scorer's result on every case (recall, kept tokens, latency) as JSON Lines to this file")
		scoresPath = fs.String("scores", "", "write every scorer's per-line scores on every case, with the gold lines, the lines' prices and the rank of the best gold line, as JSON Lines to this file (the scores the run's prunes got; figures unchanged)")
		mdPath     = fs.String("markdown", "", "write a Markdown report to this file")
		svgPath    = fs.String("svg", "", "write an SVG chart of recall against budget to this file")
		results    = fs.String("results", "", "replace the harness's section (between <!-- bench:begin --> and <!-- bench:end -->) of this Markdown file, e.g. benchmarks/RESULTS.md")
		limit      = fs.Int("limit", 0, "at most N cases from each data file, spread evenly over it (0: all)")
		filter     = fs.String("filter", "", "only cases whose id matches this regular expression")
		parallel   = fs.Int("parallel", runtime.GOMAXPROCS(0), "cases processed at once")
		timeout    = fs.Duration("timeout", benchmarks.DefaultTimeout, "deadline of one prune in budget mode (natural mode keeps the default options' 1500 ms)")
		quiet      = fs.Bool("quiet", false, "no progress bar and no table")
		compare    = fs.String("compare", "", "BASE,OTHER: also print OTHER's recall minus BASE's, paired case by case, with a 95% interval and the cases each wins (both must be among --scorers)")
	)
	fs.Func("data", "a JSONL or JSONL.gz case file (repeatable; default: every *.jsonl.gz of --data-dir)", func(s string) error {
		data = append(data, s)
		return nil
	})
	cfg.register(fs, benchFlags)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: pruner bench [flags]
       pruner bench build-commits --repo PATH --out FILE [flags]
       pruner bench diff BASE.jsonl OTHER.jsonl [flags]
       pruner bench spread RUN.jsonl [flags]

Runs scorers on labelled cases through the real engine and reports, per scorer, source type,
dataset, mode and budget: recall of the gold lines, hit rate, token reduction, kept tokens,
latency p50/p99 and throughput. The baselines head, tail, head_tail, random, grep, bm25 and
reference are always available, and so is oracle: the case's gold lines score 1 (the rest far
less, by their distance to one), so its recall is the most the engine's selection can keep at
a budget (named in --scorers only; a run without --scorers leaves it out). See benchmarks/README.md for the metrics and the JSON schema.

Examples:
  pruner bench --scorers heuristic,structural --limit 20 --parallel 1
  pruner bench --scorers heuristic,structural --modes budget --budgets 0.2 --compare heuristic,structural

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.applyEnv(explicitFlags(fs)); err != nil {
		return err
	}
	if v, ok := lookupEnv("MCP_PRUNER_BENCH_DATA"); ok && *dataDir == "" {
		*dataDir = v
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q (case files go in --data)", pos[0])
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	budgetList, err := benchFloats(*budgets)
	if err != nil {
		return usagef("--budgets: %v", err)
	}
	for _, b := range budgetList {
		if !(b > 0 && b <= 1) {
			return usagef("--budgets: %v is outside (0, 1]", b)
		}
	}
	if b, twice := firstRepeat(budgetList); twice {
		return usagef("--budgets: %v twice (each row once)", b)
	}
	var modeList []benchmarks.Mode
	for _, m := range benchList(*modes) {
		if m != string(benchmarks.ModeBudget) && m != string(benchmarks.ModeNatural) {
			return usagef("--modes: unknown mode %q (want budget and/or natural)", m)
		}
		modeList = append(modeList, benchmarks.Mode(m))
	}
	if len(modeList) == 0 {
		return usagef("--modes: empty")
	}
	if *svgPath != "" && !slices.Contains(modeList, benchmarks.ModeBudget) {
		return usagef("--svg plots recall against budget: add budget to --modes, or leave --svg out")
	}
	if a := benchmarks.Accounting(*accounting); a != benchmarks.AccountingEngine && a != benchmarks.AccountingLines {
		return usagef("--accounting must be engine or lines, got %q", *accounting)
	}
	var re *regexp.Regexp
	if *filter != "" {
		if re, err = regexp.Compile(*filter); err != nil {
			return usagef("--filter: %v", err)
		}
	}
	if *parallel < 1 {
		return usagef("--parallel must be >= 1, got %d", *parallel)
	}
	if *limit < 0 {
		return usagef("--limit must be >= 0 (0: every case), got %d", *limit)
	}

	tok, err := tokenizer.Load(cfg.encoding)
	if err != nil {
		return usagef("--encoding: %v", err)
	}
	if *timeout < time.Millisecond {
		return usagef("--timeout must be at least 1ms (the engine counts its deadline in milliseconds), got %v", *timeout)
	}
	reg, err := benchRegistry(&cfg)
	if err != nil {
		return err
	}
	defer reg.Close()
	names := benchList(*scorers)
	if len(names) == 0 {
		names = defaultBenchScorers(reg)
	}
	if n, twice := firstRepeat(names); twice {
		return usagef("--scorers: %s twice (each row once)", n)
	}
	var pair []string
	if *compare != "" {
		pair = benchList(*compare)
		if len(pair) != 2 || pair[0] == pair[1] || !slices.Contains(names, pair[0]) || !slices.Contains(names, pair[1]) {
			return usagef("--compare wants two different scorers of the run, BASE,OTHER; got %q (scorers: %s)", *compare, strings.Join(names, ","))
		}
	}
	for _, n := range names {
		// Resolve before the run so a typo fails fast rather than after loading every case.
		if _, err := reg.Get(ctx, n); err != nil {
			return usagef("--scorers: %v (see 'pruner scorers')", err)
		}
	}

	files := data
	if len(files) == 0 {
		dir := *dataDir
		if dir == "" {
			if dir, err = benchmarks.DefaultDataDir(""); err != nil {
				return usagef("no --data given and no default data (%v); pass --data FILE or --data-dir DIR", err)
			}
		}
		if files, err = benchmarks.DataFiles(dir); err != nil {
			return err
		}
	}
	cases, err := benchmarks.LoadCases(files...)
	if err != nil {
		return err
	}
	cases = benchmarks.Select(cases, re, *limit)
	if len(cases) == 0 {
		return errors.New("no cases selected (check --data, --filter, --limit)")
	}

	load := benchmarks.LoadAverage()
	bar := newBenchProgress(stderr, *quiet)
	start := time.Now()
	var scoreRecs []benchmarks.CaseScores
	var onScores func(benchmarks.CaseScores)
	if *scoresPath != "" {
		onScores = func(r benchmarks.CaseScores) { scoreRecs = append(scoreRecs, r) }
	}
	rows, err := benchmarks.Run(ctx, benchmarks.Config{
		Cases: cases, Registry: reg, Tokens: tok, Scorers: names, Budgets: budgetList, Modes: modeList,
		Accounting: benchmarks.Accounting(*accounting), Parallel: *parallel, Timeout: *timeout, Progress: bar.update,
		MaxInputChars: cfg.maxInputChars, Scores: onScores,
	})
	bar.finish()
	if err != nil {
		if errors.Is(err, engine.ErrUnknownScorer) {
			return usagef("--scorers: %v (see 'pruner scorers')", err)
		}
		return err
	}
	meta := benchmarks.Meta{
		Command: benchCommandLine(args), Machine: benchmarks.MachineInfo(), GoVersion: runtime.Version(),
		Date: start, Elapsed: time.Since(start), Cases: len(cases), Accounting: benchmarks.Accounting(*accounting),
		Encoding: tok.Name(), Parallel: *parallel, Load: load,
	}
	if meta.Accounting == "" {
		meta.Accounting = benchmarks.AccountingEngine
	}
	for _, f := range files {
		meta.Files = append(meta.Files, filepath.Base(f))
	}
	if !*quiet {
		if err := benchmarks.WriteTable(stdout, rows); err != nil {
			return err
		}
	}
	if w := benchmarks.FailOpenWarning(rows); w != "" {
		fmt.Fprintln(stderr, w)
	}
	if pair != nil {
		fmt.Fprintln(stdout)
		if err := benchmarks.WriteComparisons(stdout, benchmarks.Compare(rows, pair[0], pair[1])); err != nil {
			return err
		}
	}
	if *casesPath != "" {
		if err := benchWriteFile(*casesPath, func(w io.Writer) error { return benchmarks.WriteResults(w, rows) }); err != nil {
			return err
		}
	}
	if *scoresPath != "" {
		// Case order, whatever order the workers finished in; a case's records arrive together,
		// in the order of --scorers.
		slices.SortStableFunc(scoreRecs, func(a, b benchmarks.CaseScores) int { return cmp.Compare(a.Index, b.Index) })
		if err := benchWriteFile(*scoresPath, func(w io.Writer) error { return benchmarks.WriteScores(w, scoreRecs) }); err != nil {
			return err
		}
	}
	return writeBenchOutputs(rows, meta, *jsonPath, *mdPath, *svgPath, *results)
}

// benchRegistry is the binary's registry (newRegistry: built-ins, plugins, model families)
// plus the baselines and the oracle.
func benchRegistry(cfg *engineConfig) (*engine.Registry, error) {
	reg, err := newRegistry(cfg)
	if err != nil {
		return nil, err
	}
	for _, info := range reg.List() {
		for _, b := range benchmarks.Registered() {
			if info.Name == b {
				reg.Close()
				return nil, fmt.Errorf("bench: scorer %q is registered and is also a baseline name", b)
			}
		}
	}
	benchmarks.RegisterBaselines(reg)
	return reg, nil
}

// defaultBenchScorers is every registered scorer (families need an argument and are left
// out), the binary's own first, then the baselines in their report order; not the oracle.
func defaultBenchScorers(reg *engine.Registry) []string {
	isBaseline := map[string]bool{}
	for _, b := range benchmarks.Registered() {
		isBaseline[b] = true
	}
	var out []string
	for _, info := range reg.List() {
		if info.Where != "family" && !isBaseline[info.Name] {
			out = append(out, info.Name)
		}
	}
	return append(out, benchmarks.Baselines()...)
}

func writeBenchOutputs(rows []benchmarks.Row, meta benchmarks.Meta, jsonPath, mdPath, svgPath, results string) error {
	if jsonPath != "" {
		if err := benchWriteFile(jsonPath, func(w io.Writer) error { return benchmarks.WriteJSON(w, rows) }); err != nil {
			return err
		}
	}
	if svgPath != "" {
		if err := benchWriteFile(svgPath, func(w io.Writer) error { return benchmarks.WriteSVG(w, rows) }); err != nil {
			return err
		}
	}
	if mdPath != "" {
		m := meta
		m.SVG = benchRelPath(mdPath, svgPath)
		if err := benchWriteFile(mdPath, func(w io.Writer) error { return benchmarks.WriteMarkdown(w, rows, m) }); err != nil {
			return err
		}
	}
	if results != "" {
		m := meta
		m.SVG = benchRelPath(results, svgPath)
		var b strings.Builder
		b.WriteString("## Harness: scorers and baselines on the dev sets\n\n")
		if err := benchmarks.WriteMarkdown(&b, rows, m); err != nil {
			return err
		}
		old, err := os.ReadFile(results)
		if errors.Is(err, os.ErrNotExist) {
			old, err = []byte("# Benchmark results\n\nEach section says which command produced it, when and on what machine.\n"), nil
		}
		if err != nil {
			return err
		}
		doc, err := benchmarks.ReplaceSection(string(old), b.String())
		if err != nil {
			return err
		}
		if err := os.WriteFile(results, []byte(doc), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchRelPath is target's path from the directory of doc, for links; "" when target is "".
func benchRelPath(doc, target string) string {
	if target == "" {
		return ""
	}
	absDoc, err1 := filepath.Abs(filepath.Dir(doc))
	absTarget, err2 := filepath.Abs(target)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(target)
	}
	rel, err := filepath.Rel(absDoc, absTarget)
	if err != nil {
		return filepath.ToSlash(target)
	}
	return filepath.ToSlash(rel)
}

// benchWriteFile writes path atomically enough for reports: to a temporary file renamed into
// place, gzip-compressed when the name ends in .gz.
func benchWriteFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bench-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	var w io.Writer = bw
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw = gzip.NewWriter(bw)
		w = zw
	}
	err = write(w)
	if zw != nil && err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func runBuildCommits(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := benchFlagSet("bench build-commits", stdout, stderr)
	var (
		repo    = fs.String("repo", "", "local git repository to mine (required)")
		since   = fs.String("since", "", "only commits after this date (git log --since, e.g. \"2 years ago\")")
		grep    = fs.String("grep", benchmarks.DefaultFixPattern, "regular expression (Go syntax) a fix commit's message matches")
		maxSize = fs.Int("max-file-bytes", benchmarks.DefaultMaxFileBytes, "skip files larger than this before the fix")
		limit   = fs.Int("limit", 0, "stop after N cases, newest commits first (0: no limit)")
		out     = fs.String("out", "", "output case file, JSONL (gzip-compressed if it ends in .gz) (required)")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: pruner bench build-commits --repo PATH --out FILE [flags]

Mines a local repository's bug-fix commits into benchmark cases: goal = the commit message,
text = each modified file before the fix, gold = the lines the fix removed or modified, plus the
nearest non-blank line on each side of a pure insertion. Binary, oversized, new, deleted and
renamed files are skipped. Then: pruner bench --data FILE.

Examples:
  pruner bench build-commits --repo ~/src/caddy --since "2 years ago" --out /tmp/caddy.jsonl.gz
  pruner bench build-commits --repo . --limit 50 --out /tmp/own.jsonl

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected argument %q", pos[0])
	case *repo == "":
		return usagef("--repo is required")
	case *out == "":
		return usagef("--out is required")
	case *limit < 0:
		return usagef("--limit must be >= 0 (0: no limit), got %d", *limit)
	case *maxSize < 1:
		return usagef("--max-file-bytes must be >= 1, got %d", *maxSize)
	}
	cases, st, err := benchmarks.BuildCommits(ctx, benchmarks.CommitOptions{
		Repo: *repo, Since: *since, Grep: *grep, MaxFileBytes: *maxSize, Limit: *limit,
	})
	if err != nil {
		return err
	}
	if err := benchWriteFile(*out, func(w io.Writer) error { return benchmarks.WriteCases(w, cases) }); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s: %d cases from %d fix commits (of %d); skipped %d binary, %d too large, %d without old lines\n",
		*out, st.Cases, st.FixCommits, st.Commits, st.SkippedBinary, st.SkippedLarge, st.SkippedNoLines)
	return err
}

// devRepoSplit is the key of the dev sets' repositories (benchmarks.DevRepoKey).
const devRepoSplit = benchmarks.DevRepoKey

func runBenchDiff(args []string, stdout, stderr io.Writer) error {
	fs := benchFlagSet("bench diff", stdout, stderr)
	var (
		scorer = fs.String("scorer", "", "SCORER or BASE,OTHER: the scorer whose results are read from each run (default: every scorer both runs hold, each against itself)")
		split  = fs.String("split", "", "also compare on two halves of the cases: the regular expression's first non-empty group in each case id (its whole match without one) is a key, and a key whose MD5 ends in an even byte is half A, else half B; the dev sets' repositories: "+devRepoSplit)
		moved  = fs.Int("moved", 5, "list this many of the cases that moved most in each group (0: none)")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: pruner bench diff BASE.jsonl OTHER.jsonl [flags]

Compares two runs' per-case results (the files 'pruner bench --cases' writes): two builds, or
one build with and without a change. Each case's recall in OTHER minus its recall in BASE, per
scorer, source type, dataset and budget: the mean difference with its 95%% interval, the cases
that gained, lost or stayed, the mean difference of token reduction (about 0 under a budget; in
natural mode, what a recall gain cost), with --split the same on two halves of the cases (a
change chosen on one half is confirmed on the other), and the cases that moved most. Cases
whose prune fell back (the text returned whole, recall 1 at any budget) in one run and not the
other are called out: a change that makes a scorer fail would otherwise look like a gain. Cases with gold lines
found in one run only are left out and counted.

Examples:
  pruner bench --scorers structural --modes budget --budgets 0.1,0.2,0.3 --quiet --cases /tmp/base.jsonl
  pruner bench diff /tmp/base.jsonl /tmp/new.jsonl --split '^commits/([^@]+)@'
  pruner bench diff /tmp/run.jsonl /tmp/run.jsonl --scorer heuristic,structural --moved 0

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want two --cases files, BASE and OTHER, got %d arguments", len(pos))
	}
	if *moved < 0 {
		return usagef("--moved must be >= 0, got %d", *moved)
	}
	var o benchmarks.DiffOptions
	if *scorer != "" {
		names := benchList(*scorer)
		switch len(names) {
		case 1:
			o.BaseScorer, o.OtherScorer = names[0], names[0]
		case 2:
			o.BaseScorer, o.OtherScorer = names[0], names[1]
		default:
			return usagef("--scorer wants SCORER or BASE,OTHER, got %q", *scorer)
		}
	}
	if *split != "" {
		if o.Split, err = regexp.Compile(*split); err != nil {
			return usagef("--split: %v", err)
		}
	}
	var runs [2][]benchmarks.CaseResult
	for i, path := range pos {
		if runs[i], err = readRunFile(path); err != nil {
			return err
		}
	}
	diffs, err := benchmarks.DiffRuns(runs[0], runs[1], o)
	if err != nil {
		return err
	}
	return benchmarks.WriteRunDiffs(stdout, diffs, *moved)
}

func runBenchSpread(args []string, stdout, stderr io.Writer) error {
	fs := benchFlagSet("bench spread", stdout, stderr)
	var (
		scorer    = fs.String("scorer", "", "only this scorer's results (default: every scorer of the run)")
		by        = fs.String("by", devRepoSplit, "what a repository is: the regular expression's first non-empty group in each case id (its whole match without one); a case it does not match is a repository of its own (the default matches the dev sets' ids; docs ids name no page); '' draws cases, for a split that holds other cases of the same repositories")
		aims      = fs.String("aims", formatAims(benchmarks.DefaultAims), "comma-separated NAME=RECALL: the recall a dataset (swe-bench) or a source type (logs) is held to at --aim-budget; \"\" for none")
		aimBudget = fs.Float64("aim-budget", benchmarks.DefaultAimBudget, "the budget the aims are set at")
		draws     = fs.Int("draws", benchmarks.DefaultDraws, "bootstrap draws per row")
		seed      = fs.Uint64("seed", 1, "seed of the draws (the same seed gives the same figures)")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: pruner bench spread RUN.jsonl [flags]

How sure is a recall figure on repositories the bench has not seen? Reads one run's per-case
results (the file 'pruner bench --cases' writes) and, per scorer, source type, dataset and
budget, resamples the repositories with replacement (every case of a drawn repository in) and
prints the mean recall with the 2.5th, 50th and 97.5th percentiles of the resampled means, and
where the row has an aim, the share of draws under it. Cases of one repository succeed or fail
together, so this is wider than an interval over cases, and it is the error the unseen split
(other repositories of the same sources) is exposed to. A source type with several datasets
also gets a row pooled over them (dataset "all").

Examples:
  pruner bench --scorers structural,heuristic --modes budget --budgets 0.1,0.2,0.3 --quiet --cases /tmp/run.jsonl
  pruner bench spread /tmp/run.jsonl
  pruner bench spread /tmp/run.jsonl --scorer heuristic --aims logs=0.95 --draws 10000

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one --cases file, got %d arguments", len(pos))
	}
	if *draws < 1 {
		return usagef("--draws must be >= 1, got %d", *draws)
	}
	if !(*aimBudget > 0 && *aimBudget <= 1) {
		return usagef("--aim-budget must be in (0, 1], got %g", *aimBudget)
	}
	o := benchmarks.SpreadOptions{Draws: *draws, Seed: *seed, AimBudget: *aimBudget}
	if *by != "" {
		if o.By, err = regexp.Compile(*by); err != nil {
			return usagef("--by: %v", err)
		}
	}
	if o.Aims, err = parseAims(*aims); err != nil {
		return err
	}
	results, err := readRunFile(pos[0])
	if err != nil {
		return err
	}
	if *scorer != "" {
		results = slices.DeleteFunc(results, func(c benchmarks.CaseResult) bool { return c.Scorer != *scorer })
		if len(results) == 0 {
			return usagef("no results of scorer %q in %s", *scorer, pos[0])
		}
	}
	spreads := benchmarks.Spreads(results, o)
	if len(spreads) == 0 {
		return fmt.Errorf("%s: no case with gold lines", pos[0])
	}
	// An aim asked for that names no dataset or source type of the run (a typo, swebench for
	// swe-bench), or a budget the run lacks, would leave its column empty without a word.
	asked := explicitFlags(fs).explicit
	names := map[string]bool{}
	hasBudget := false
	for _, c := range results {
		names[c.Dataset], names[c.SourceType] = true, true
		hasBudget = hasBudget || c.Budget != nil && *c.Budget == *aimBudget
	}
	for _, name := range slices.Sorted(maps.Keys(o.Aims)) {
		if asked["aims"] && !names[name] {
			fmt.Fprintf(stderr, "pruner bench spread: warning: aim %q names no dataset or source type of %s\n", name, pos[0])
		}
	}
	if (asked["aims"] || asked["aim-budget"]) && len(o.Aims) > 0 && !hasBudget {
		fmt.Fprintf(stderr, "pruner bench spread: warning: %s has no result at --aim-budget %g, so no aim applies\n", pos[0], *aimBudget)
	}
	return benchmarks.WriteSpreads(stdout, spreads)
}

// readRunFile reads a --cases file of per-case results, refusing one that holds none.
func readRunFile(path string) ([]benchmarks.CaseResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	results, err := benchmarks.ReadResults(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("%s: no per-case results", path)
	}
	return results, nil
}

// formatAims writes aims as --aims takes them, in name order.
func formatAims(aims map[string]float64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(aims)) {
		parts = append(parts, fmt.Sprintf("%s=%.2f", k, aims[k]))
	}
	return strings.Join(parts, ",")
}

// parseAims reads --aims: NAME=RECALL pairs, each recall in (0, 1].
func parseAims(s string) (map[string]float64, error) {
	aims := map[string]float64{}
	for _, part := range benchList(s) {
		name, v, ok := strings.Cut(part, "=")
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if name = strings.TrimSpace(name); !ok || name == "" || err != nil || !(r > 0 && r <= 1) {
			return nil, usagef("--aims wants NAME=RECALL pairs with recalls in (0, 1], e.g. swe-bench=0.8,logs=0.92; got %q", part)
		}
		aims[name] = r
	}
	return aims, nil
}

// firstRepeat returns the first element of xs that an earlier one equals, if any.
func firstRepeat[T comparable](xs []T) (T, bool) {
	for i, x := range xs {
		if slices.Contains(xs[:i], x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

func benchFlagSet(name string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(newFlagOutput(stdout, stderr))
	return fs
}

func benchList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func benchFloats(s string) ([]float64, error) {
	var out []float64
	for _, p := range benchList(s) {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("empty list")
	}
	return out, nil
}

// benchCommandLine renders the command for reports, quoting arguments that need it.
func benchCommandLine(args []string) string {
	parts := []string{"pruner", "bench"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$`\\|&;<>()*?[]") {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// benchProgress draws a bar on stderr when it is a terminal; otherwise it stays silent.
type benchProgress struct {
	w     io.Writer
	on    bool
	start time.Time
	mu    sync.Mutex
	last  time.Time
}

func newBenchProgress(stderr io.Writer, quiet bool) *benchProgress {
	p := &benchProgress{w: stderr, start: time.Now()}
	if f, ok := stderr.(*os.File); ok && !quiet {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *benchProgress) update(done, total int) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	filled := done * width / max(1, total)
	elapsed := now.Sub(p.start)
	eta := ""
	if done > 0 && done < total {
		eta = fmt.Sprintf(", ~%s left", (elapsed * time.Duration(total-done) / time.Duration(done)).Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d cases, %s%s\033[K", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		done, total, elapsed.Round(time.Second), eta)
}

func (p *benchProgress) finish() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
