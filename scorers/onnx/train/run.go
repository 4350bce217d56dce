package train

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
)

// Options are the inputs of a training run besides the hyper-parameters.
type Options struct {
	Config Config
	// Folds is the number of cross-validation folds; 0 or 1 skips cross-validation.
	Folds int
	// Tokens counts tokens for line costs in the loss and for the cross-validation bench
	// (package tokenizer's Encoder); without it a line costs len/4+1.
	Tokens engine.TokenCounter
	// Baselines are compared with the model in cross-validation, resolved in Registry.
	Baselines []string
	Registry  *engine.Registry
	// Budgets for cross-validation (default 0.1, 0.2, 0.3).
	Budgets []float64
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Result is a trained model with its cross-validated figures.
type Result struct {
	Model     *Model
	Threshold float64
	// KindThresholds are the per-kind keep thresholds (manifest features.kind_thresholds).
	KindThresholds map[string]float64
	// CV holds one row per scorer, data file and budget, macro-averaged over held-out cases.
	CV []CVRow
	// Paired compares the model with each baseline case by case over the held-out folds.
	Paired []CVPair
	Cases  int
	// Files lists the data files trained on with their case counts.
	Files map[string]int
}

// CVRow is a cross-validated figure: every case scored by a model that never saw its group.
type CVRow struct {
	Scorer    string  `json:"scorer"`
	File      string  `json:"file"`
	Budget    float64 `json:"budget"`
	Cases     int     `json:"cases"`
	Recall    float64 `json:"recall"`
	HitRate   float64 `json:"hit_rate"`
	Reduction float64 `json:"reduction"`
}

// CVPair is the model's recall minus a baseline's, paired case by case over every held-out
// fold, with its 95% interval: an interval above 0 is a gain the data supports.
type CVPair struct {
	Base   string  `json:"base"`
	File   string  `json:"file"`
	Budget float64 `json:"budget"`
	Cases  int     `json:"cases"`
	Diff   float64 `json:"diff"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Better int     `json:"better"`
	Worse  int     `json:"worse"`
}

// ModelScorerName is the model's name in cross-validation rows.
const ModelScorerName = "linerank"

// Run trains on cases: cross-validation first (when opts.Folds > 1), then the final model
// on every case.
func Run(ctx context.Context, cases []benchmarks.Case, opts Options) (*Result, error) {
	if len(cases) == 0 {
		return nil, errors.New("train: no cases")
	}
	cfg := opts.Config
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	logf := func(format string, a ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", a...)
		}
	}
	start := time.Now()
	data, err := sampleAll(ctx, cases, &cfg, opts.Tokens)
	if err != nil {
		return nil, fmt.Errorf("train: features: %w", err)
	}
	rows := 0
	for _, d := range data {
		rows += d.rows()
	}
	logf("features: %d cases, %d sampled rows × %d features in %s", len(cases), rows, linefeat.NumFeatures, time.Since(start).Round(time.Millisecond))

	res := &Result{Cases: len(cases), Files: map[string]int{}}
	for i := range cases {
		res.Files[cases[i].File]++
	}
	if opts.Folds > 1 {
		if opts.Tokens == nil {
			return nil, errors.New("train: cross-validation needs a token counter")
		}
		cv, paired, err := crossValidate(ctx, cases, data, opts, logf)
		if err != nil {
			return nil, err
		}
		res.CV, res.Paired = cv, paired
	}
	t0 := time.Now()
	m, err := fit(ctx, data, cfg)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	res.Model = m
	res.Threshold, res.KindThresholds = threshold(m, data, cfg)
	logf("final model: %d cases in %s, threshold %.4f", len(data), time.Since(t0).Round(time.Millisecond), res.Threshold)
	return res, nil
}

func crossValidate(ctx context.Context, cases []benchmarks.Case, data []*caseData, opts Options, logf func(string, ...any)) ([]CVRow, []CVPair, error) {
	folds := Folds(cases, opts.Folds)
	budgets := opts.Budgets
	if budgets == nil {
		budgets = []float64{0.1, 0.2, 0.3}
	}
	type acc struct {
		cases                      int
		recall, hitRate, reduction float64
	}
	sums := map[cvKey]*acc{}
	var keys []cvKey
	diffs := map[cvKey][]float64{} // baseline, file, budget -> per-case model minus baseline
	var pairKeys []cvKey
	ran := 0
	defer func() {
		// Groups (a repository, a page) never split, so there may be fewer folds than asked.
		switch {
		case ran == 0:
			logf("warning: no cross-validation: the cases form a single repository or page group, and a group is never split between folds")
		case ran < opts.Folds:
			logf("warning: only %d of the %d folds asked for held cases out: the cases form %d repository or page groups, and a group is never split", ran, opts.Folds, ran)
		}
	}()
	for f := 0; f < opts.Folds; f++ {
		var train []*caseData
		var held []benchmarks.Case
		for i := range cases {
			if folds[i] == f {
				held = append(held, cases[i])
			} else {
				train = append(train, data[i])
			}
		}
		if len(held) == 0 || len(train) == 0 {
			continue
		}
		ran++
		t0 := time.Now()
		m, err := fit(ctx, train, opts.Config)
		if err != nil {
			return nil, nil, fmt.Errorf("train: fold %d: %w", f, err)
		}
		reg := engine.NewRegistry()
		t, kinds := threshold(m, train, opts.Config)
		reg.Register(ModelScorerName, &Scorer{Model: m, Thresh: t, KindThresh: kinds})
		names := []string{ModelScorerName}
		for _, b := range opts.Baselines {
			s, err := opts.Registry.Get(ctx, b)
			if err != nil {
				return nil, nil, fmt.Errorf("train: baseline: %w", err)
			}
			reg.Register(b, s)
			names = append(names, b)
		}
		rows, err := benchmarks.Run(ctx, benchmarks.Config{
			Cases: held, Registry: reg, Tokens: opts.Tokens, Scorers: names, Budgets: budgets,
			Modes: []benchmarks.Mode{benchmarks.ModeBudget}, Parallel: max(1, opts.Config.Workers),
		})
		if err != nil {
			return nil, nil, fmt.Errorf("train: fold %d bench: %w", f, err)
		}
		byDataset := map[string]string{}
		for i := range held {
			byDataset[held[i].Dataset] = fileLabel(held[i].File)
		}
		fileOf := func(dataset string) string {
			if f := byDataset[dataset]; f != "" {
				return f
			}
			return dataset
		}
		for _, r := range rows {
			k := cvKey{r.Scorer, fileOf(r.Dataset), *r.Budget}
			a := sums[k]
			if a == nil {
				a = &acc{}
				sums[k] = a
				keys = append(keys, k)
			}
			w := float64(r.Cases)
			a.cases += r.Cases
			a.recall += w * r.Recall
			a.hitRate += w * r.HitRate
			a.reduction += w * r.Reduction
		}
		for _, b := range opts.Baselines {
			for _, c := range benchmarks.Compare(rows, b, ModelScorerName) {
				k := cvKey{b, fileOf(c.Dataset), *c.Budget}
				if _, ok := diffs[k]; !ok {
					pairKeys = append(pairKeys, k)
				}
				diffs[k] = append(diffs[k], c.Diffs...)
			}
		}
		logf("fold %d/%d: trained on %d cases, held out %d, in %s", f+1, opts.Folds, len(train), len(held), time.Since(t0).Round(time.Millisecond))
	}
	slices.SortStableFunc(keys, cvKey.compare)
	out := make([]CVRow, 0, len(keys))
	for _, k := range keys {
		a := sums[k]
		c := float64(max(1, a.cases))
		out = append(out, CVRow{Scorer: k.scorer, File: k.file, Budget: k.budget, Cases: a.cases, Recall: a.recall / c, HitRate: a.hitRate / c, Reduction: a.reduction / c})
	}
	slices.SortStableFunc(pairKeys, cvKey.compare)
	var paired []CVPair
	for _, k := range pairKeys {
		c := benchmarks.PairedDiffs(diffs[k])
		paired = append(paired, CVPair{Base: k.scorer, File: k.file, Budget: k.budget, Cases: c.Cases, Diff: c.MeanDiff, Low: c.Low, High: c.High, Better: c.Better, Worse: c.Worse})
	}
	return out, paired, nil
}

// cvKey groups cross-validation figures: a scorer (a baseline, for paired figures), a data
// file and a budget.
type cvKey struct {
	scorer, file string
	budget       float64
}

// compare orders keys by file, budget, then scorer: the card's table order.
func (k cvKey) compare(o cvKey) int {
	return cmp.Or(strings.Compare(k.file, o.file), cmp.Compare(k.budget, o.budget), strings.Compare(k.scorer, o.scorer))
}

// Scorer runs an MLP in pure Go on linefeat features. It is what cross-validation measures;
// the shipped model runs the same computation through onnxruntime.
type Scorer struct {
	Model  *Model
	Thresh float64
	// KindThresh replaces Thresh for requests of a listed source kind, as the exported
	// manifest's kind_thresholds do in the onnx scorer.
	KindThresh map[string]float64
}

var (
	_ engine.Scorer    = (*Scorer)(nil)
	_ engine.Describer = (*Scorer)(nil)
)

// Score implements engine.Scorer.
func (s *Scorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	m, err := linefeat.Compute(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := &engine.ScoreResponse{Scores: s.Model.Predict(m.X, m.N), Focus: m.Focus}
	if t, ok := s.KindThresh[m.Kind()]; ok {
		resp.Threshold = &t
	}
	return resp, nil
}

// Describe implements engine.Describer.
func (s *Scorer) Describe() engine.ScorerInfo {
	return engine.ScorerInfo{Name: ModelScorerName, Description: "line-features MLP in pure Go", Where: "in-process", Threshold: s.Thresh}
}
