package train

import (
	"context"
	"fmt"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
)

// Config is a training run's hyper-parameters. The zero value is not useful; start from
// DefaultConfig.
type Config struct {
	Seed         uint64
	Hidden       int     // hidden units of each expert (>= 1)
	Epochs       int     // passes over the training cases
	Batch        int     // cases per gradient step
	LearningRate float64 // Adam step size at the start (cosine-decayed to 10%)
	L2           float64 // weight decay on W1 and W2
	BCEWeight    float64 // weight of the per-case balanced BCE term next to the listwise loss
	// FrozenKinds lists source kinds (linefeat.Kinds) whose expert is not trained: it stays
	// its base scorer's own score (skip term only). Grouped cross-validation decides.
	FrozenKinds []string
	// StructuralKinds lists source kinds whose expert starts from (and, frozen, returns) the
	// structural scorer's score instead of the heuristic's.
	StructuralKinds []string
	// LinearKinds lists source kinds whose expert learns only its skip weight and bias (a
	// rescaling of the base score's logit, which moves the engine's trade-off between a
	// line's score and its token cost) and keeps its MLP at zero: for kinds with too few
	// groups to learn corrections that survive cross-validation.
	LinearKinds     []string
	HardNegatives   int     // highest-heuristic negatives kept per case
	RandomNegatives int     // uniformly sampled other negatives per case
	KeepShare       float64 // share of lines the default threshold keeps on a typical case
	// Boosting on top of each trained expert: Trees oblivious trees of depth Depth, each
	// leaf a Newton step −Shrink·G/(H+Lambda); a split needs MinLeafHess on both sides.
	Trees       int
	TreeKinds   []string
	Depth       int
	Shrink      float64
	Lambda      float64
	MinLeafHess float64
	Workers     int // feature extraction and cross-validation parallelism
}

// DefaultConfig is the configuration models/linerank is trained with.
func DefaultConfig() Config {
	return Config{
		Seed: 7, Hidden: 16, Epochs: 20, Batch: 8, LearningRate: 0.01, L2: 1e-4, BCEWeight: 0,
		// Grouped 5-fold CV (MODEL_CARD.md): full MLP corrections hurt held-out repositories
		// on every kind once the experts start from the structural score. Rescaling the base
		// logit helps docs and logs; on code it went from +0.010 (code) and −0.001 (commits)
		// at 20% to −0.003 and −0.015 once the structural scorer damped comments, so the code
		// experts are the structural scorer unchanged.
		// Docs: once the heuristic read documentation entries by their heads (docs at 20%:
		// heuristic 0.679 → 0.736, structural 0.684 → 0.731), no learned docs expert beat the
		// heuristic under grouped CV on all the data (structural base with 20 or 30 trees
		// 0.715 / 0.714, linear only 0.731; heuristic base with 20 trees 0.725, linear 0.731),
		// so the docs expert was the heuristic unchanged (models/RESULTS.md, thirty-third
		// round). Once structural took 0.9 of the heuristic's docs score (docs at 10 / 20 /
		// 30%: structural 0.587 / 0.748 / 0.810, the heuristic 0.576 / 0.748 / 0.804), the
		// docs expert is structural unchanged: a linear rescale of it gave 0.591 / 0.739 /
		// 0.816 (seeds 7 and 8 alike), 20 trees 0.580 / 0.735 / 0.826 (seed 7) and 0.598 /
		// 0.741 / 0.831 (seed 8), each below structural at 20%.
		// Logs: the linear rescale of the heuristic, the last trained expert, fell below the
		// heuristic at every budget once the heuristic's logs rules landed (−0.005 [−0.013,
		// +0.002], −0.001, −0.001 at 10 / 20 / 30%), so it is the heuristic unchanged
		// (models/RESULTS.md, thirty-seventh round).
		StructuralKinds: []string{"code_python", "code_other", "docs"},
		FrozenKinds:     []string{"code_python", "code_other", "logs", "docs"},
		LinearKinds:     nil,
		HardNegatives:   150, RandomNegatives: 250, KeepShare: 0.3, Workers: 2,
		// Grouped 5-fold CV at 20% (docs alone): 30 trees lifted docs 0.656 → 0.701 (60 trees at
		// half the step: 0.703). On commits they were within noise (0.554 to 0.586 against
		// 0.569 by tree count), on Python code (6 repositories) they cost 0.06, on logs 0.005;
		// every tree costs every request's rows about 15 ns in onnxruntime. Once the heuristic
		// read documentation entries by their heads (docs at 20%: structural 0.684 → 0.731),
		// 30 trees overfit: seeds 7 and 8, docs alone, 20 trees 0.749 / 0.742, 10 trees 0.742
		// / 0.737, 30 trees 0.723 / 0.726, none 0.732 / 0.733; on all the data (other folds)
		// none of these beat the heuristic, and the docs expert is frozen (above): no kind gets
		// trees by default, and 20 is the count --tree-kinds gets.
		Trees: 20, TreeKinds: nil, Depth: 3, Shrink: 0.2, Lambda: 1, MinLeafHess: 0.01,
	}
}

// Validate reports a configuration training cannot use: too few hidden units or epochs, a
// tree setting out of range or not finite (a NaN step makes every leaf NaN), or a kind list
// naming a kind linefeat does not have (a frozen one would reach the manifest's
// kind_thresholds, which the onnx scorer refuses to load).
func (c Config) Validate() error {
	if c.Hidden < 1 {
		return fmt.Errorf("hidden units must be >= 1, got %d", c.Hidden)
	}
	if c.Epochs < 1 || c.Batch < 1 {
		return fmt.Errorf("epochs and batch must be >= 1, got %d and %d", c.Epochs, c.Batch)
	}
	if c.Trees > 0 && (c.Depth < 1 || c.Depth > MaxTreeDepth) {
		return fmt.Errorf("tree depth must be 1 to %d, got %d", MaxTreeDepth, c.Depth)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(c.Shrink) || !finite(c.Lambda) || !finite(c.MinLeafHess) || c.Shrink <= 0 || c.Lambda < 0 || c.MinLeafHess < 0 {
		return fmt.Errorf("tree shrink must be finite and > 0, lambda and min leaf Hessian finite and >= 0, got %v, %v and %v", c.Shrink, c.Lambda, c.MinLeafHess)
	}
	for _, list := range [][]string{c.FrozenKinds, c.StructuralKinds, c.LinearKinds, c.TreeKinds} {
		for _, k := range list {
			if !slices.Contains(linefeat.Kinds, k) {
				return fmt.Errorf("unknown source kind %q: the kinds are %s", k, strings.Join(linefeat.Kinds, ", "))
			}
		}
	}
	return nil
}

// fit trains the model: one expert per source kind, each on the cases of its kind, with a
// shared standardisation. It is single-threaded and uses only seeded randomness, so the
// result depends on the data and cfg alone.
func fit(ctx context.Context, data []*caseData, cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	F := linefeat.NumFeatures
	m := &Model{F: F, Hidden: cfg.Hidden, Experts: make([]Expert, len(linefeat.Kinds))}
	m.Mean, m.Std = standardise(data, F)
	for k := range linefeat.Kinds {
		var subset []*caseData
		for _, d := range data {
			if d.kind == k {
				subset = append(subset, d)
			}
		}
		if slices.Contains(cfg.FrozenKinds, linefeat.Kinds[k]) {
			subset = nil
		}
		base := cfg.base(linefeat.Kinds[k])
		e, err := fitExpert(ctx, subset, m, cfg, uint64(k), base, slices.Contains(cfg.LinearKinds, linefeat.Kinds[k]))
		if err != nil {
			return nil, err
		}
		if cfg.Trees > 0 && len(subset) > 0 && slices.Contains(cfg.TreeKinds, linefeat.Kinds[k]) {
			if e.Trees, err = boostExpert(ctx, subset, m, e, cfg); err != nil {
				return nil, err
			}
		}
		m.Experts[k] = *e
	}
	return m, m.check()
}

// fitExpert trains one expert on data (possibly empty: the expert is then its base scorer).
func fitExpert(ctx context.Context, data []*caseData, m *Model, cfg Config, stream uint64, base string, linear bool) (*Expert, error) {
	F, H := m.F, m.Hidden
	sc, _ := baseColumns(base)
	// Standardised copies of the rows.
	zs := make([][]float32, len(data))
	for ci, d := range data {
		z := make([]float32, len(d.x))
		for i := range z {
			k := i % F
			z[i] = (d.x[i] - m.Mean[k]) / m.Std[k]
		}
		zs[ci] = z
	}
	caseW := fileWeights(data)

	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6c696e6572616e6b+stream))
	params := make([]float64, F*H+H+H+2) // W1, B1, W2, Skip, B2
	w1, b1, w2 := params[:F*H], params[F*H:F*H+H], params[F*H+H:F*H+2*H]
	for i := range w1 {
		w1[i] = rng.NormFloat64() * math.Sqrt(2/float64(F))
	}
	for i := range w2 {
		w2[i] = 0.01 * rng.NormFloat64() * math.Sqrt(1/float64(H))
	}
	// Start from the base: logit = <base>_logit, so σ(logit) = s (clipped). The MLP never
	// reads the exact columns: their ±1e4 would swamp it.
	params[F*H+2*H] = float64(m.Std[sc])
	params[len(params)-1] = float64(m.Mean[sc])
	for _, c := range exactColumns {
		clear(w1[c*H : (c+1)*H])
	}
	if len(data) == 0 {
		// Untrained: exactly the base, σ(<base>_exact) = s.
		clear(params)
		return &Expert{W1: f32(w1), B1: f32(b1), W2: f32(w2), Exact: 1, Base: base}, nil
	}
	if linear {
		clear(params[:F*H+2*H]) // a zero MLP: W2 = 0 keeps every gradient of W1, B1 and W2 at 0
	}
	frozenRow := func(i int) bool {
		if linear && i < F*H+2*H {
			return true
		}
		for _, c := range exactColumns {
			if i >= c*H && i < (c+1)*H {
				return true
			}
		}
		return false
	}
	grad := make([]float64, len(params))
	adamM := make([]float64, len(params))
	adamV := make([]float64, len(params))
	const beta1, beta2, eps = 0.9, 0.999, 1e-8

	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	steps := cfg.Epochs * ((len(data) + cfg.Batch - 1) / cfg.Batch)
	step := 0
	hbuf := make([]float64, H)
	pre := make([]float64, H)
	var logits, g []float64
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for start := 0; start < len(order); start += cfg.Batch {
			clear(grad)
			batch := order[start:min(len(order), start+cfg.Batch)]
			for _, ci := range batch {
				d, z := data[ci], zs[ci]
				n := d.rows()
				if d.pos == 0 {
					continue
				}
				logits = growTo(logits, n)
				g = growTo(g, n)
				for i := 0; i < n; i++ {
					logits[i] = forward(params, F, H, sc, z[i*F:(i+1)*F], pre, hbuf)
				}
				caseGrad(d, logits, g, cfg.BCEWeight)
				scale := caseW[ci] / float64(len(batch))
				for i := 0; i < n; i++ {
					if g[i] == 0 {
						continue
					}
					backward(params, grad, F, H, sc, z[i*F:(i+1)*F], g[i]*scale, pre, hbuf)
				}
			}
			step++
			lr := cfg.LearningRate * (0.1 + 0.9*0.5*(1+math.Cos(math.Pi*float64(step)/float64(steps))))
			for i := range params {
				if frozenRow(i) {
					continue // W1's exact-column rows (and a linear expert's MLP) stay zero
				}
				gi := grad[i]
				if i < F*H || (i >= F*H+H && i < F*H+2*H) {
					gi += cfg.L2 * params[i]
				}
				adamM[i] = beta1*adamM[i] + (1-beta1)*gi
				adamV[i] = beta2*adamV[i] + (1-beta2)*gi*gi
				mh := adamM[i] / (1 - math.Pow(beta1, float64(step)))
				vh := adamV[i] / (1 - math.Pow(beta2, float64(step)))
				params[i] -= lr * mh / (math.Sqrt(vh) + eps)
			}
		}
	}
	return &Expert{W1: f32(w1), B1: f32(b1), W2: f32(w2), Skip: float32(params[F*H+2*H]), B2: float32(params[len(params)-1]), Base: base}, nil
}

// boostExpert fits cfg.Trees boosted trees on top of the trained expert e.
func boostExpert(ctx context.Context, data []*caseData, m *Model, e *Expert, cfg Config) ([]Tree, error) {
	F := m.F
	logits := make([][]float64, len(data))
	z := make([]float32, F)
	h := make([]float32, m.Hidden)
	for ci, d := range data {
		logits[ci] = make([]float64, d.rows())
		for i := range logits[ci] {
			logits[ci][i] = float64(m.expertLogit(e, d.x[i*F:(i+1)*F], z, h))
		}
	}
	return boost(ctx, data, logits, fileWeights(data), cfg)
}

// fileWeights weighs each case so every data file weighs the same in the loss, whatever
// its number of cases (mean weight 1).
func fileWeights(data []*caseData) []float64 {
	perFile := map[string]int{}
	for _, d := range data {
		perFile[d.file]++
	}
	caseW := make([]float64, len(data))
	for ci, d := range data {
		caseW[ci] = float64(len(data)) / float64(len(perFile)*perFile[d.file])
	}
	return caseW
}

// forward computes the logit of one standardised row, leaving pre-activations in pre and
// activations in h; sc is the column of the skip term.
func forward(p []float64, F, H, sc int, z []float32, pre, h []float64) float64 {
	w1, b1, w2 := p[:F*H], p[F*H:F*H+H], p[F*H+H:F*H+2*H]
	copy(pre, b1)
	for k := 0; k < F; k++ {
		zk := float64(z[k])
		if zk == 0 {
			continue
		}
		row := w1[k*H : (k+1)*H]
		for j, w := range row {
			pre[j] += zk * w
		}
	}
	s := p[len(p)-1] + p[F*H+2*H]*float64(z[sc])
	for j := 0; j < H; j++ {
		h[j] = math.Max(0, pre[j])
		s += h[j] * w2[j]
	}
	return s
}

// backward adds the gradient of gl·logit to grad, given forward's pre and h for the row.
func backward(p, grad []float64, F, H, sc int, z []float32, gl float64, pre, h []float64) {
	last := len(p) - 1
	grad[last] += gl
	grad[F*H+2*H] += gl * float64(z[sc])
	// The forward pass of this row must be recomputed: callers run forward for every row
	// first, so pre/h hold the last row. Recompute here for this one.
	forward(p, F, H, sc, z, pre, h)
	w2 := p[F*H+H : F*H+2*H]
	gw1, gb1, gw2 := grad[:F*H], grad[F*H:F*H+H], grad[F*H+H:F*H+2*H]
	for j := 0; j < H; j++ {
		gw2[j] += gl * h[j]
		if pre[j] > 0 {
			dh := gl * w2[j]
			gb1[j] += dh
			pre[j] = dh
		} else {
			pre[j] = 0
		}
	}
	for k := 0; k < F; k++ {
		zk := float64(z[k])
		if zk == 0 {
			continue
		}
		row := gw1[k*H : (k+1)*H]
		for j := range row {
			row[j] += zk * pre[j]
		}
	}
}

// ScorePower is the engine's budget-selection power: lines are kept by
// score^ScorePower per token, so the loss optimises that ranking.
const ScorePower = engine.ScorePower

// caseGrad fills g with d(loss)/d(logit) for one case: a listwise softmax cross entropy over
// each line's selection priority u = ScorePower·log σ(z) − log cost (+ log of its sampling
// weight), so gold lines should win the engine's value-per-token auction, plus a balanced
// binary cross entropy that keeps σ(z) meaningful for the default threshold.
func caseGrad(d *caseData, logits, g []float64, bceWeight float64) {
	n := d.rows()
	p := g // the softmax, then each row's gradient in its place
	selectionSoftmax(d, logits, p)
	negW := 0.0
	for i := 0; i < n; i++ {
		if d.y[i] == 0 {
			negW += float64(d.w[i])
		}
	}
	P := float64(d.pos)
	for i := 0; i < n; i++ {
		s := sigmoid(logits[i])
		gi := (p[i] - float64(d.y[i])/P) * ScorePower * (1 - s)
		if d.y[i] == 1 {
			gi += bceWeight * 0.5 / P * (s - 1)
		} else if negW > 0 {
			gi += bceWeight * 0.5 * float64(d.w[i]) / negW * s
		}
		g[i] = gi
	}
}

// selectionSoftmax fills p with the softmax over one case's rows of each line's selection
// priority, ScorePower·log σ(z) − log cost + log sampling weight: the share of the engine's
// value-per-token auction each row would win.
func selectionSoftmax(d *caseData, logits, p []float64) {
	n := d.rows()
	mx := math.Inf(-1)
	for i := 0; i < n; i++ {
		p[i] = ScorePower*logSigmoid(logits[i]) - math.Log(float64(d.cost[i])) + math.Log(float64(d.w[i]))
		mx = math.Max(mx, p[i])
	}
	sum := 0.0
	for i := 0; i < n; i++ {
		p[i] = math.Exp(p[i] - mx)
		sum += p[i]
	}
	for i := 0; i < n; i++ {
		p[i] /= sum
	}
}

// logSigmoid is log σ(x), stable for large |x|.
func logSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

// standardise returns the mean and standard deviation of every feature over the rows.
func standardise(data []*caseData, F int) (mean, std []float32) {
	sum := make([]float64, F)
	sq := make([]float64, F)
	n := 0
	for _, d := range data {
		for i := 0; i < d.rows(); i++ {
			for k := 0; k < F; k++ {
				v := float64(d.x[i*F+k])
				sum[k] += v
				sq[k] += v * v
			}
		}
		n += d.rows()
	}
	mean, std = make([]float32, F), make([]float32, F)
	for k := 0; k < F; k++ {
		mu := sum[k] / float64(max(1, n))
		v := sq[k]/float64(max(1, n)) - mu*mu
		mean[k] = float32(mu)
		std[k] = 1
		if v > 1e-8 {
			std[k] = float32(math.Sqrt(v))
		}
		if slices.Contains(exactColumns, k) {
			mean[k], std[k] = 0, 1 // read by untrained experts' skip term only, as is
		}
	}
	return mean, std
}

// threshold picks the keep thresholds. The default: for each source kind, the score above
// which share of the lines lie on its median training case (estimated from the weighted
// samples), and the highest of those, so no kind keeps much more than share in natural mode.
// Per kind: a frozen expert is its base scorer, so requests of its kind get that scorer's
// default threshold and the model prunes them in natural mode as the base scorer does
// (except where structural defers to the heuristic and answers with the heuristic's
// threshold: the features do not carry a per-request threshold).
func threshold(m *Model, data []*caseData, cfg Config) (float64, map[string]float64) {
	share := cfg.KeepShare
	perKind := map[int][]float64{}
	for _, d := range data {
		n := d.rows()
		if n == 0 || d.kind < 0 {
			continue
		}
		s := m.Predict(d.x, n)
		idx := make([]int, n)
		total := 0.0
		for i := range idx {
			idx[i] = i
			total += float64(d.w[i])
		}
		sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
		acc := 0.0
		q := s[idx[n-1]]
		for _, i := range idx {
			acc += float64(d.w[i])
			if acc >= share*total {
				q = s[i]
				break
			}
		}
		perKind[d.kind] = append(perKind[d.kind], q)
	}
	t := 0.0
	for _, qs := range perKind {
		sort.Float64s(qs)
		t = math.Max(t, qs[len(qs)/2])
	}
	if t <= 0 || t >= 1 {
		t = 0.5
	}
	var kinds map[string]float64
	if len(cfg.FrozenKinds) > 0 {
		kinds = make(map[string]float64, len(cfg.FrozenKinds))
	}
	for _, kind := range cfg.FrozenKinds {
		kinds[kind] = heuristic.Threshold
		if cfg.base(kind) == BaseStructural {
			kinds[kind] = structural.Threshold
		}
	}
	return math.Round(t*1e4) / 1e4, kinds
}

func growTo(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// base is the scorer an expert of kind starts from: structural for StructuralKinds, else the
// heuristic.
func (c Config) base(kind string) string {
	if slices.Contains(c.StructuralKinds, kind) {
		return BaseStructural
	}
	return BaseHeuristic
}
