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
// (one split per level for all rows) and export to plain ONNX operators.
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

// boost fits cfg.Trees oblivious trees of depth cfg.Depth to the listwise loss of caseGrad,
// starting from logits (one slice per case, the expert's logits without trees; updated in
// place). Each tree is a Newton step: leaf value −shrink·G/(H+λ) over the rows it holds.
func boost(ctx context.Context, data []*caseData, logits [][]float64, caseW []float64, cfg Config) ([]Tree, error) {
	if cfg.Trees <= 0 || len(data) == 0 {
		return nil, nil
	}
	F := linefeat.NumFeatures
	cols := treeColumns()
	// Candidate cuts per column: quantiles of the column over every row.
	total := 0
	for _, d := range data {
		total += d.rows()
	}
	const maxBins = 32
	cuts := make([][]float32, F)
	vals := make([]float32, 0, total)
	for _, f := range cols {
		vals = vals[:0]
		for _, d := range data {
			for i := 0; i < d.rows(); i++ {
				vals = append(vals, d.x[i*F+f])
			}
		}
		slices.Sort(vals)
		var c []float32
		for q := 1; q < maxBins; q++ {
			v := vals[q*len(vals)/maxBins]
			if v == vals[len(vals)-1] {
				break
			}
			if len(c) == 0 || v > c[len(c)-1] {
				c = append(c, v)
			}
		}
		cuts[f] = c
	}
	// bins[row*len(cols)+j] = number of cuts of cols[j] the row's value exceeds.
	bins := make([]uint8, total*len(cols))
	r := 0
	for _, d := range data {
		for i := 0; i < d.rows(); i++ {
			for j, f := range cols {
				c := cuts[f]
				bins[r*len(cols)+j] = uint8(sort.Search(len(c), func(k int) bool { return d.x[i*F+f] <= c[k] }))
			}
			r++
		}
	}

	g := make([]float64, total)
	h := make([]float64, total)
	leaf := make([]int, total)
	var trees []Tree
	for t := 0; t < cfg.Trees; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := 0
		for ci, d := range data {
			n := d.rows()
			caseGradHess(d, logits[ci], g[r:r+n], h[r:r+n])
			for i := r; i < r+n; i++ {
				g[i] *= caseW[ci]
				h[i] *= caseW[ci]
			}
			r += n
		}
		clear(leaf)
		tree := Tree{}
		for l := 0; l < cfg.Depth; l++ {
			L := 1 << l
			nb := maxBins + 1
			hg := make([]float64, len(cols)*nb*L)
			hh := make([]float64, len(cols)*nb*L)
			for row := 0; row < total; row++ {
				gr, hr, lf := g[row], h[row], leaf[row]
				b := bins[row*len(cols) : (row+1)*len(cols)]
				for j, bv := range b {
					k := (j*nb+int(bv))*L + lf
					hg[k] += gr
					hh[k] += hr
				}
			}
			bestGain, bestJ, bestC := 0.0, -1, 0
			GL := make([]float64, L)
			HL := make([]float64, L)
			GT := make([]float64, L)
			HT := make([]float64, L)
			for j, f := range cols {
				clear(GT)
				clear(HT)
				for b := 0; b < nb; b++ {
					for lf := 0; lf < L; lf++ {
						GT[lf] += hg[(j*nb+b)*L+lf]
						HT[lf] += hh[(j*nb+b)*L+lf]
					}
				}
				clear(GL)
				clear(HL)
				for c := 0; c < len(cuts[f]); c++ {
					gain := 0.0
					ok := false
					for lf := 0; lf < L; lf++ {
						GL[lf] += hg[(j*nb+c)*L+lf]
						HL[lf] += hh[(j*nb+c)*L+lf]
						gr, hr := GT[lf]-GL[lf], HT[lf]-HL[lf]
						gain += GL[lf]*GL[lf]/(HL[lf]+cfg.Lambda) + gr*gr/(hr+cfg.Lambda) - GT[lf]*GT[lf]/(HT[lf]+cfg.Lambda)
						if HL[lf] >= cfg.MinLeafHess && hr >= cfg.MinLeafHess {
							ok = true
						}
					}
					if ok && gain > bestGain+1e-12 {
						bestGain, bestJ, bestC = gain, j, c
					}
				}
			}
			if bestJ < 0 {
				break
			}
			tree.Features = append(tree.Features, cols[bestJ])
			tree.Thresholds = append(tree.Thresholds, cuts[cols[bestJ]][bestC])
			for row := 0; row < total; row++ {
				if int(bins[row*len(cols)+bestJ]) > bestC {
					leaf[row] |= 1 << l
				}
			}
		}
		if len(tree.Features) == 0 {
			break
		}
		L := 1 << len(tree.Features)
		G := make([]float64, L)
		H := make([]float64, L)
		for row := 0; row < total; row++ {
			G[leaf[row]] += g[row]
			H[leaf[row]] += h[row]
		}
		tree.Leaves = make([]float32, L)
		for lf := range L {
			v := -cfg.Shrink * G[lf] / (H[lf] + cfg.Lambda)
			tree.Leaves[lf] = float32(math.Max(-1, math.Min(1, v)))
		}
		r = 0
		for ci, d := range data {
			for i := 0; i < d.rows(); i++ {
				logits[ci][i] += float64(tree.Leaves[leaf[r]])
				r++
			}
		}
		trees = append(trees, tree)
	}
	return trees, nil
}

// caseGradHess fills g with caseGrad's gradient (no BCE term) and h with a positive
// diagonal approximation of its Hessian: the softmax's p(1−p) times the squared slope of
// the priority in the logit, ScorePower·(1−σ(z)).
func caseGradHess(d *caseData, logits, g, h []float64) {
	n := d.rows()
	mx := math.Inf(-1)
	u := h
	for i := 0; i < n; i++ {
		u[i] = ScorePower*logSigmoid(logits[i]) - math.Log(float64(d.cost[i])) + math.Log(float64(d.w[i]))
		mx = math.Max(mx, u[i])
	}
	sum := 0.0
	for i := 0; i < n; i++ {
		u[i] = math.Exp(u[i] - mx)
		sum += u[i]
	}
	P := float64(max(1, d.pos))
	for i := 0; i < n; i++ {
		p := u[i] / sum
		a := ScorePower * (1 - sigmoid(logits[i]))
		if d.pos == 0 {
			g[i], h[i] = 0, 0
			continue
		}
		g[i] = (p - float64(d.y[i])/P) * a
		h[i] = math.Max(p*(1-p)*a*a, 1e-9)
	}
}
