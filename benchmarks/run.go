package benchmarks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// DefaultBudgets are the token shares of budget mode when a run names none.
var DefaultBudgets = []float64{0.1, 0.2, 0.3, 0.5}

// DefaultTimeout bounds one prune in budget mode and one scorer call under lines accounting:
// generous, because the benchmark measures what a scorer keeps, not whether it is fast enough
// for the seed's default timeout (natural mode keeps that default).
const DefaultTimeout = 2 * time.Minute

// minKeepLinesAccounting is the reference accounting's floor of kept lines.
const minKeepLinesAccounting = 5

// Config describes a run. Cases, Registry, Tokens and Scorers are required.
type Config struct {
	Cases []Case
	// Registry resolves scorer names and specs (e.g. "heuristic", "bm25", "plugin:x").
	Registry *engine.Registry
	// Tokens counts tokens exactly (package tokenizer's Encoder).
	Tokens  engine.TokenCounter
	Scorers []string
	// Budgets are shares of the case's tokens in (0, 1]; nil means DefaultBudgets.
	Budgets []float64
	// Modes to run; nil means budget then natural.
	Modes []Mode
	// Accounting is AccountingEngine when empty.
	Accounting Accounting
	// Parallel is the number of cases processed at once; 0 means GOMAXPROCS.
	Parallel int
	// Timeout is DefaultTimeout when 0.
	Timeout time.Duration
	// MaxInputChars is the engine's input limit (engine.Config.MaxInputChars; 0: the
	// default): larger cases fail open, as the server would answer them. Engine accounting
	// only.
	MaxInputChars int
	// Progress, when set, is called after each case with the number done and the total. It
	// is called from worker goroutines, one call at a time.
	Progress func(done, total int)
	// Scores, when set, receives every scorer's per-line scores on every case (`pruner bench
	// --scores`): those the engine received in the case's first prune that got any (under
	// lines accounting, the scorer's answer), so nothing more is run. It is called from worker
	// goroutines, one call at a time: a case's records one after another, in the order of
	// Scorers, cases in no particular order (CaseScores.Index says which).
	Scores func(CaseScores)
}

func (c *Config) normalize() error {
	switch {
	case c.Registry == nil:
		return errors.New("bench: no registry")
	case c.Tokens == nil:
		return errors.New("bench: no token counter")
	case len(c.Scorers) == 0:
		return errors.New("bench: no scorers")
	}
	if c.Budgets == nil {
		c.Budgets = DefaultBudgets
	}
	for _, b := range c.Budgets {
		if !(b > 0 && b <= 1) {
			return fmt.Errorf("bench: budget %v outside (0, 1]", b)
		}
	}
	if c.Modes == nil {
		c.Modes = []Mode{ModeBudget, ModeNatural}
	}
	for _, m := range c.Modes {
		if m != ModeBudget && m != ModeNatural {
			return fmt.Errorf("bench: unknown mode %q", m)
		}
	}
	switch c.Accounting {
	case "":
		c.Accounting = AccountingEngine
	case AccountingEngine, AccountingLines:
	default:
		return fmt.Errorf("bench: unknown accounting %q (want engine or lines)", c.Accounting)
	}
	if c.Parallel <= 0 {
		c.Parallel = runtime.GOMAXPROCS(0)
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	return nil
}

// slot is one mode and budget of a run.
type slot struct {
	mode   Mode
	budget float64 // 0 in natural mode
}

func (c *Config) slots() []slot {
	var out []slot
	for _, m := range c.Modes {
		if m == ModeNatural {
			out = append(out, slot{mode: ModeNatural})
			continue
		}
		for _, b := range c.Budgets {
			out = append(out, slot{mode: ModeBudget, budget: b})
		}
	}
	return out
}

// Run prunes every case with every scorer in every mode and budget and returns one row per
// scorer, source type, dataset, mode and budget, ordered by scorer (as given), source type,
// dataset, mode (as given) and budget. Figures do not depend on Parallel: outcomes are
// aggregated in case order. It returns an error for an unknown scorer, an invalid request
// or a cancelled ctx; scorer failures are fail-open outcomes counted in Row.Fallbacks.
func Run(ctx context.Context, cfg Config) ([]Row, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	scorers := make([]engine.Scorer, len(cfg.Scorers))
	for i, name := range cfg.Scorers {
		s, err := cfg.Registry.Get(ctx, name)
		if err != nil {
			return nil, err
		}
		scorers[i] = s
	}
	slots := cfg.slots()
	results := make([][]outcome, len(cfg.Cases))

	// Largest cases first, so that the last worker does not start a huge log at the end.
	order := make([]int, len(cfg.Cases))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(cfg.Cases[order[a]].Text) > len(cfg.Cases[order[b]].Text) })

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		done     atomic.Int64
		progMu   sync.Mutex
		scoresMu sync.Mutex
	)
	for w := 0; w < cfg.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out, recs, err := runCase(ctx, &cfg, scorers, slots, i)
				if err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					continue
				}
				results[i] = out
				if cfg.Scores != nil {
					scoresMu.Lock()
					for _, r := range recs {
						cfg.Scores(r)
					}
					scoresMu.Unlock()
				}
				if cfg.Progress != nil {
					progMu.Lock()
					cfg.Progress(int(done.Add(1)), len(cfg.Cases))
					progMu.Unlock()
				}
			}
		}()
	}
feed:
	for _, i := range order {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return collect(&cfg, slots, results), nil
}

// collect groups outcomes into rows, in case order so sums do not depend on scheduling.
func collect(cfg *Config, slots []slot, results [][]outcome) []Row {
	type key struct {
		scorer int
		st, ds string
		slot   int
	}
	rows := map[key]*Row{}
	var keys []key
	for ci, outs := range results {
		c := &cfg.Cases[ci]
		for si := range cfg.Scorers {
			for k, sl := range slots {
				kk := key{si, string(c.SourceType), c.Dataset, k}
				r, ok := rows[kk]
				if !ok {
					r = &Row{Scorer: cfg.Scorers[si], SourceType: string(c.SourceType), Dataset: c.Dataset, Mode: sl.mode,
						Accounting: cfg.Accounting, Encoding: encodingName(cfg.Tokens)}
					if sl.mode == ModeBudget {
						b := sl.budget
						r.Budget = &b
					}
					rows[kk] = r
					keys = append(keys, kk)
				}
				o := outs[si*len(slots)+k]
				o.id = c.ID
				r.outcomes = append(r.outcomes, o)
			}
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.scorer, b.scorer), strings.Compare(a.st, b.st), strings.Compare(a.ds, b.ds), cmp.Compare(a.slot, b.slot))
	})
	out := make([]Row, 0, len(keys))
	for _, k := range keys {
		r := rows[k]
		r.finish()
		out = append(out, *r)
	}
	return out
}

// runCase returns the outcomes of case index, indexed scorer-major then slot, and, when
// cfg.Scores is set, each scorer's scores on it.
func runCase(ctx context.Context, cfg *Config, scorers []engine.Scorer, slots []slot, index int) ([]outcome, []CaseScores, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	c := &cfg.Cases[index]
	ctx = withGold(ctx, c.GoldLines)
	lines := engine.SplitLines(c.Text)
	counter := newCaseCounter(cfg.Tokens, c.Text)
	whole, perLine, prices := counter.warm(lines)
	if cfg.Accounting == AccountingLines {
		return linesCase(ctx, cfg, scorers, slots, c, index, lines, perLine, prices)
	}
	if slices.ContainsFunc(slots, func(s slot) bool { return s.mode == ModeNatural }) && engine.DefaultOptions().AnnotateLines {
		for i := range lines {
			counter.Count(engine.LinePrefix(i + 1))
		}
	}
	eng, err := engine.New(engine.Config{Registry: cfg.Registry, Store: discardStore{}, Tokens: counter, MaxInputChars: cfg.MaxInputChars})
	if err != nil {
		return nil, nil, err
	}
	out := make([]outcome, 0, len(scorers)*len(slots))
	var recs []CaseScores
	zero := 0.0
	for _, name := range cfg.Scorers {
		// The record comes from the first prune that got scores, copied at once (a scorer may
		// reuse its buffers); failed gathers the warnings of the prunes before it.
		var rec CaseScores
		var scored bool
		var failed []string
		for _, sl := range slots {
			req := &engine.Request{
				Text: c.Text, GoalHint: c.GoalHint, SourceType: c.SourceType, Path: c.Path, Scorer: name,
			}
			if sl.mode == ModeNatural {
				req.Options = engine.DefaultOptions()
			} else {
				req.Options = engine.Options{
					MaxPruneRatio: 1, MinKeepLines: 0, TimeoutMS: int(cfg.Timeout / time.Millisecond),
					AnnotateLines: false, IncludeMarkers: true,
				}
				req.Threshold = &zero
				// A budget of 0 would mean "no budget" to the engine: keep at least one token.
				req.TokenBudget = max(1, int(math.Floor(sl.budget*float64(whole))))
			}
			start := time.Now()
			res, err := eng.Prune(ctx, req)
			elapsed := time.Since(start)
			if err != nil {
				return nil, nil, fmt.Errorf("case %s, scorer %s: %w", c.ID, name, err)
			}
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			switch {
			case cfg.Scores == nil || scored:
			case res.Scores == nil:
				failed = append(failed, res.Warnings...)
			default:
				rec, scored = newCaseScores(c, index, name, prices, res.Scores, res.Warnings, ""), true
			}
			o := newOutcome(c.GoldLines, res.Kept, res.Stats.TokensEstBefore, res.Stats.TokensEstAfter)
			o.bytes = len(c.Text)
			o.ms = float64(elapsed) / float64(time.Millisecond)
			o.fallback = res.Stats.UsedFallback
			o.overBudget = req.TokenBudget > 0 && res.Stats.TokensEstAfter > req.TokenBudget
			out = append(out, o)
		}
		switch {
		case cfg.Scores == nil:
		case scored:
			recs = append(recs, rec)
		default:
			why := slices.Compact(slices.Sorted(slices.Values(failed)))
			recs = append(recs, newCaseScores(c, index, name, prices, nil, nil, "no scores: every prune failed open ("+strings.Join(why, ", ")+")"))
		}
	}
	return out, recs, nil
}

// linesCase is the reference accounting: scores straight from the scorer, lines ranked best
// first (ties by position), kept while the kept lines' own tokens fit the budget, at least
// minKeepLinesAccounting lines; natural mode keeps the lines at or above the threshold.
func linesCase(ctx context.Context, cfg *Config, scorers []engine.Scorer, slots []slot, c *Case, index int, lines []string, perLine, prices []int) ([]outcome, []CaseScores, error) {
	content := make([]string, len(lines))
	total := 0
	for i, l := range lines {
		content[i] = strings.TrimSuffix(l, "\r")
		total += perLine[i]
	}
	out := make([]outcome, 0, len(scorers)*len(slots))
	var recs []CaseScores
	for si, s := range scorers {
		sctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		start := time.Now()
		resp, err := s.Score(sctx, &engine.ScoreRequest{
			Lines: content, Goal: c.GoalHint, SourceType: c.SourceType, Path: c.Path,
		})
		elapsed := time.Since(start)
		cancel()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		fallback := err != nil || resp == nil || len(resp.Scores) != len(lines)
		var scores []float64
		if !fallback {
			scores = resp.Scores
		}
		if cfg.Scores != nil {
			failure, warnings := "", []string(nil)
			switch {
			case err != nil:
				failure = err.Error()
			case fallback:
				failure = "the scorer returned no score for some lines"
			default:
				warnings = resp.Warnings
			}
			recs = append(recs, newCaseScores(c, index, cfg.Scorers[si], prices, scores, warnings, failure))
		}
		rank := rankLines(scores, len(lines))
		for _, sl := range slots {
			var keep []int
			switch {
			case fallback:
				keep = rank
			case sl.mode == ModeNatural:
				th := resp.ThresholdOr(engine.ThresholdOf(s))
				for _, i := range rank {
					if scores[i] >= th {
						keep = append(keep, i)
					}
				}
			default:
				keep = keepWithin(rank, perLine, sl.budget*float64(total), minKeepLinesAccounting)
			}
			kept, keptTokens := make([]int, len(keep)), 0
			for j, i := range keep {
				kept[j] = i + 1
				keptTokens += perLine[i]
			}
			sort.Ints(kept)
			o := newOutcome(c.GoldLines, kept, total, keptTokens)
			o.bytes = len(c.Text)
			o.ms = float64(elapsed) / float64(time.Millisecond)
			o.fallback = fallback
			out = append(out, o)
		}
	}
	return out, recs, nil
}

// rankLines orders line indexes best first, ties by position; nil scores keep text order.
func rankLines(scores []float64, n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if scores != nil {
		sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	}
	return idx
}

// keepWithin takes lines in rank order until the next one would exceed limit tokens, but at
// least minLines lines.
func keepWithin(rank []int, cost []int, limit float64, minLines int) []int {
	used := 0
	var keep []int
	for _, i := range rank {
		if len(keep) >= minLines && float64(used+cost[i]) > limit {
			break
		}
		keep = append(keep, i)
		used += cost[i]
	}
	return keep
}

// discardStore is the engine's recovery store for benchmark runs, which never recover: it
// keeps nothing, so a long run does not hold every input in memory.
type discardStore struct{}

func (discardStore) Put(context.Context, string, string) error { return nil }

func (discardStore) Get(_ context.Context, id string) (string, error) {
	return "", fmt.Errorf("benchmark store keeps nothing (%s): %w", id, engine.ErrPruneIDNotFound)
}

// encodingName is the name of the counter's encoding (tokenizer.Encoder's Name), or "".
func encodingName(t engine.TokenCounter) string {
	if n, ok := t.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}
