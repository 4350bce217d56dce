package train

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
)

// Tree is an oblivious decision tree: every level splits all of its nodes on the same
// feature and threshold, so a row's leaf is the binary number of its comparisons (level l
// sets bit l when x[Features[l]] > Thresholds[l]). Oblivious trees are hard to overfit with
// (one split per level for all rows); Model.ONNX writes them as the full binary trees they
// are, in one ONNX-ML TreeEnsembleRegressor.
type Tree struct {
	Features   []int
	Thresholds []float32
	Leaves     []float32 // 2^len(Features) values added to the logit
}

// MaxTreeDepth bounds a tree's depth (its leaves number 2^depth).
const MaxTreeDepth = 8

// eval returns the tree's leaf value for the raw feature row x.
func (t *Tree) eval(x []float32) float32 {
	idx := 0
	for l, f := range t.Features {
		if x[f] > t.Thresholds[l] {
			idx |= 1 << l
		}
	}
	return t.Leaves[idx]
}

// treeColumns are the features trees may split on: all but the exact columns (±1e4
// encodings of the base scores, already in the logits) and the kind one-hot (constant
// within an expert).
func treeColumns() []int {
	var out []int
	for f := range linefeat.NumFeatures {
		if slices.Contains(exactColumns, f) || slices.Contains(linefeat.KindColumns, f) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// maxBins is the most quantile bins a feature is cut into for tree splits.
const maxBins = 32

// boost fits cfg.Trees oblivious trees of depth cfg.Depth to the listwise loss of caseGrad,
// starting from logits (one slice per case, the expert's logits without trees; updated in
// place). Each tree is a Newton step: leaf value −shrink·G/(H+λ) over the rows it holds.
func boost(ctx context.Context, data []*caseData, logits [][]float64, caseW []float64, cfg Config) ([]Tree, error) {
	if cfg.Trees <= 0 || len(data) == 0 {
		return nil, nil
	}
	bo := newBooster(data)
	var trees []Tree
	for range cfg.Trees {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bo.gradients(data, logits, caseW)
		tree, ok := bo.grow(cfg)
		if !ok {
			break // no split gains anything: later trees would be empty too
		}
		r := 0
		for ci, d := range data {
			for i := range d.rows() {
				logits[ci][i] += float64(tree.Leaves[bo.leaf[r]])
				r++
			}
		}
		trees = append(trees, tree)
	}
	return trees, nil
}

// booster holds the rows of one expert's cases, binned for split search, and the per-row
// gradient, Hessian and leaf of the tree being grown.
type booster struct {
	cols  []int       // the columns trees may split on (treeColumns)
	cuts  [][]float32 // per feature: ascending candidate thresholds (quantiles)
	bins  []uint8     // bins[row*len(cols)+j]: how many cuts of cols[j] the row's value exceeds
	rows  int
	g, h  []float64
	leaf  []int
	F     int
	nbins int
}

func newBooster(data []*caseData) *booster {
	bo := &booster{cols: treeColumns(), F: linefeat.NumFeatures, nbins: maxBins + 1}
	for _, d := range data {
		bo.rows += d.rows()
	}
	bo.cuts = make([][]float32, bo.F)
	vals := make([]float32, 0, bo.rows)
	for _, f := range bo.cols {
		vals = vals[:0]
		for _, d := range data {
			for i := range d.rows() {
				vals = append(vals, d.x[i*bo.F+f])
			}
		}
		bo.cuts[f] = quantileCuts(vals)
	}
	bo.bins = make([]uint8, bo.rows*len(bo.cols))
	r := 0
	for _, d := range data {
		for i := range d.rows() {
			for j, f := range bo.cols {
				c, v := bo.cuts[f], d.x[i*bo.F+f]
				bo.bins[r*len(bo.cols)+j] = uint8(sort.Search(len(c), func(k int) bool { return v <= c[k] }))
			}
			r++
		}
	}
	bo.g, bo.h, bo.leaf = make([]float64, bo.rows), make([]float64, bo.rows), make([]int, bo.rows)
	return bo
}

// quantileCuts returns up to maxBins−1 distinct ascending thresholds at the quantiles of vals
// (sorted in place), none at the maximum (a split there would leave one side empty).
func quantileCuts(vals []float32) []float32 {
	slices.Sort(vals)
	var c []float32
	for q := 1; q < maxBins && len(vals) > 0; q++ {
		v := vals[q*len(vals)/maxBins]
		if v == vals[len(vals)-1] {
			break
		}
		if len(c) == 0 || v > c[len(c)-1] {
			c = append(c, v)
		}
	}
	return c
}

// gradients fills g and h from the current logits, each case weighted by caseW.
func (bo *booster) gradients(data []*caseData, logits [][]float64, caseW []float64) {
	r := 0
	for ci, d := range data {
		n := d.rows()
		caseGradHess(d, logits[ci], bo.g[r:r+n], bo.h[r:r+n])
		for i := r; i < r+n; i++ {
			bo.g[i] *= caseW[ci]
			bo.h[i] *= caseW[ci]
		}
		r += n
	}
}

// grow grows one oblivious tree level by level (each level the split of best Newton gain
// over all current leaves), leaving every row's leaf in bo.leaf; false when no first split
// gains anything.
func (bo *booster) grow(cfg Config) (Tree, bool) {
	clear(bo.leaf)
	var tree Tree
	for l := range cfg.Depth {
		j, c, ok := bo.bestSplit(1<<l, cfg)
		if !ok {
			break
		}
		tree.Features = append(tree.Features, bo.cols[j])
		tree.Thresholds = append(tree.Thresholds, bo.cuts[bo.cols[j]][c])
		for row := range bo.rows {
			if int(bo.bins[row*len(bo.cols)+j]) > c {
				bo.leaf[row] |= 1 << l
			}
		}
	}
	if len(tree.Features) == 0 {
		return tree, false
	}
	L := 1 << len(tree.Features)
	G, H := make([]float64, L), make([]float64, L)
	for row := range bo.rows {
		G[bo.leaf[row]] += bo.g[row]
		H[bo.leaf[row]] += bo.h[row]
	}
	tree.Leaves = make([]float32, L)
	for lf := range L {
		v := -cfg.Shrink * G[lf] / (H[lf] + cfg.Lambda)
		tree.Leaves[lf] = float32(math.Max(-1, math.Min(1, v)))
	}
	return tree, true
}

// bestSplit returns the column index j and cut c (rows with bin > c go right) whose split of
// all L current leaves has the best total Newton gain, with at least cfg.MinLeafHess of
// Hessian on both sides of some leaf.
func (bo *booster) bestSplit(L int, cfg Config) (j, c int, ok bool) {
	nb, nc := bo.nbins, len(bo.cols)
	// Gradient and Hessian histograms per (column, bin, leaf).
	hg := make([]float64, nc*nb*L)
	hh := make([]float64, nc*nb*L)
	for row := range bo.rows {
		gr, hr, lf := bo.g[row], bo.h[row], bo.leaf[row]
		for j, bv := range bo.bins[row*nc : (row+1)*nc] {
			k := (j*nb+int(bv))*L + lf
			hg[k] += gr
			hh[k] += hr
		}
	}
	best := 0.0
	GL, HL, GT, HT := make([]float64, L), make([]float64, L), make([]float64, L), make([]float64, L)
	for cj, f := range bo.cols {
		clear(GT)
		clear(HT)
		for b := range nb {
			for lf := range L {
				GT[lf] += hg[(cj*nb+b)*L+lf]
				HT[lf] += hh[(cj*nb+b)*L+lf]
			}
		}
		clear(GL)
		clear(HL)
		for cc := range bo.cuts[f] {
			gain, allowed := 0.0, false
			for lf := range L {
				GL[lf] += hg[(cj*nb+cc)*L+lf]
				HL[lf] += hh[(cj*nb+cc)*L+lf]
				gr, hr := GT[lf]-GL[lf], HT[lf]-HL[lf]
				gain += GL[lf]*GL[lf]/(HL[lf]+cfg.Lambda) + gr*gr/(hr+cfg.Lambda) - GT[lf]*GT[lf]/(HT[lf]+cfg.Lambda)
				allowed = allowed || (HL[lf] >= cfg.MinLeafHess && hr >= cfg.MinLeafHess)
			}
			if allowed && gain > best+1e-12 {
				best, j, c, ok = gain, cj, cc, true
			}
		}
	}
	return j, c, ok
}

// caseGradHess fills g with caseGrad's gradient (no BCE term) and h with a positive
// diagonal approximation of its Hessian: the softmax's p(1−p) times the squared slope of
// the priority in the logit, ScorePower·(1−σ(z)).
func caseGradHess(d *caseData, logits, g, h []float64) {
	n := d.rows()
	if d.pos == 0 {
		clear(g[:n])
		clear(h[:n])
		return
	}
	p := h // the softmax, then each row's Hessian in its place
	selectionSoftmax(d, logits, p)
	P := float64(d.pos)
	for i := 0; i < n; i++ {
		a := ScorePower * (1 - sigmoid(logits[i]))
		g[i] = (p[i] - float64(d.y[i])/P) * a
		h[i] = math.Max(p[i]*(1-p[i])*a*a, 1e-9)
	}
}
