package train

import (
	"fmt"
	"math"

	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/onnxpb"
)

// Model is the line-relevance model: standardised features feeding one small MLP expert per
// source kind (linefeat.Kinds: Python code, other code, logs, docs), each with one ReLU hidden
// layer and a sigmoid output. The row's source-kind one-hot (linefeat.KindColumns) picks the
// expert, inside the graph as in Go.
type Model struct {
	F, Hidden int
	Mean, Std []float32 // per feature; Std is never 0
	Experts   []Expert  // one per linefeat.Kinds
}

// Expert is one kind's MLP plus a linear skip term on the standardised logit of its base
// scorer's score (the heuristic's or the structural scorer's): training starts from the base's
// own scores (σ(logit s) = s) and the MLP learns corrections to them.
type Expert struct {
	W1   []float32 // F×Hidden, row-major
	B1   []float32 // Hidden
	W2   []float32 // Hidden
	Skip float32   // weight of z[<base>_logit] (trained experts)
	// Exact is the weight of <base>_exact: 1 for an untrained expert, whose output is then
	// exactly the base scorer's score (zeros and ties included), else 0.
	Exact float32
	B2    float32
	// Base is the scorer the skip term reads: BaseHeuristic ("" means it too) or
	// BaseStructural.
	Base string
	// Trees are boosted oblivious trees on the raw features, fitted after the rest of the
	// expert; their leaves add to its logit.
	Trees []Tree
}

// Base scorers an expert can start from.
const (
	BaseHeuristic  = "heuristic"
	BaseStructural = "structural"
)

// Bases lists the base scorers; each has a <base>_logit and a <base>_exact feature.
var Bases = []string{BaseHeuristic, BaseStructural}

// baseColumns returns the logit and exact feature columns of base; -1 for an unknown base.
func baseColumns(base string) (logitCol, exactCol int) {
	switch base {
	case "", BaseHeuristic:
		return heuristicColumn, exactColumn
	case BaseStructural:
		return structuralColumn, structuralExactColumn
	}
	return -1, -1
}

// The features the skip terms read. The exact columns are never MLP inputs (their ±1e4
// would swamp it).
var (
	heuristicColumn, exactColumn            = column("heuristic_logit"), column("heuristic_exact")
	structuralColumn, structuralExactColumn = column("structural_logit"), column("structural_exact")
	exactColumns                            = []int{exactColumn, structuralExactColumn}
)

func column(name string) int {
	for i, n := range linefeat.Names {
		if n == name {
			return i
		}
	}
	panic("linefeat has no column " + name)
}

// Logit returns the model's pre-sigmoid output for one feature row, computing in float32 in
// the graph's order of operations so it agrees with onnxruntime to rounding.
func (m *Model) Logit(x []float32, z, h []float32) float32 {
	k := linefeat.KindOf(x)
	if k < 0 {
		return 0
	}
	e := &m.Experts[k]
	v := m.expertLogit(e, x, z, h)
	for t := range e.Trees {
		v += e.Trees[t].eval(x)
	}
	return v
}

// expertLogit is e's logit for x without its trees.
func (m *Model) expertLogit(e *Expert, x []float32, z, h []float32) float32 {
	for i := 0; i < m.F; i++ {
		z[i] = (x[i] - m.Mean[i]) / m.Std[i]
	}
	for j := 0; j < m.Hidden; j++ {
		h[j] = 0
	}
	for i := 0; i < m.F; i++ {
		zi := z[i]
		if zi == 0 {
			continue
		}
		row := e.W1[i*m.Hidden : (i+1)*m.Hidden]
		for j, w := range row {
			h[j] += zi * w
		}
	}
	s := float32(0)
	for j := 0; j < m.Hidden; j++ {
		if v := h[j] + e.B1[j]; v > 0 {
			s += v * e.W2[j]
		}
	}
	lc, ec := baseColumns(e.Base)
	return s + e.B2 + e.Skip*z[lc] + e.Exact*z[ec]
}

// Predict returns sigmoid(logit) for each row of the n×F matrix x.
func (m *Model) Predict(x []float32, n int) []float64 {
	out := make([]float64, n)
	z := make([]float32, m.F)
	h := make([]float32, m.Hidden)
	for i := 0; i < n; i++ {
		out[i] = sigmoid(float64(m.Logit(x[i*m.F:(i+1)*m.F], z, h)))
	}
	return out
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Graph I/O names of the exported model; the manifest repeats them.
const (
	InputName  = "features"
	OutputName = "relevance"
)

// ONNX exports m as an ONNX graph. Input "features" is float32 [N, F]; output "relevance" is
// float32 [N]. With E experts of H units:
//
//	z    = (features - mean) / std                         Sub, Div
//	h    = Relu(z · W1 + b1)                  [N, E·H]     MatMul, Add, Relu (h, hg: only when an expert has an MLP)
//	g    = features · S                       [N, E]       MatMul (S selects the kind one-hot)
//	hg   = h ⊙ (g · X)                        [N, E·H]     MatMul, Mul (X spreads g over each block)
//	skip = (z · K ⊙ g) · 1                    [N, 1]       MatMul, Mul, MatMul (K: each expert's base columns × Skip, Exact)
//	out  = Sigmoid(hg · W2 + g · B2 + skip    [N, 1]       MatMul, MatMul, Add, Add, Sigmoid
//	               + trees)                                (treeNodes, when there are trees)
//	relevance = Reshape(out, [-1])            [N]
func (m *Model) ONNX(doc string, metadata [][2]string) []byte {
	F, H, E := m.F, m.Hidden, len(m.Experts)
	EH := E * H
	w1 := make([]float32, F*EH)
	b1 := make([]float32, EH)
	w2 := make([]float32, EH)
	b2 := make([]float32, E)
	sel := make([]float32, F*E)
	spread := make([]float32, E*EH)
	skip := make([]float32, F*E)
	ones := make([]float32, E)
	for k, e := range m.Experts {
		for i := 0; i < F; i++ {
			copy(w1[i*EH+k*H:i*EH+(k+1)*H], e.W1[i*H:(i+1)*H])
		}
		copy(b1[k*H:], e.B1)
		copy(w2[k*H:], e.W2)
		b2[k] = e.B2
		lc, ec := baseColumns(e.Base)
		skip[lc*E+k] = e.Skip
		skip[ec*E+k] = e.Exact
		ones[k] = 1
		sel[linefeat.KindColumns[k]*E+k] = 1
		for j := 0; j < H; j++ {
			spread[k*EH+k*H+j] = 1
		}
	}
	f, eh, ne := int64(F), int64(EH), int64(E)
	g := onnxpb.Graph{
		Name:    "linerank",
		Inputs:  []onnxpb.ValueInfo{{Name: InputName, Type: onnxpb.Float, Dims: []onnxpb.Dim{{Param: "N"}, {Value: f}}}},
		Outputs: []onnxpb.ValueInfo{{Name: OutputName, Type: onnxpb.Float, Dims: []onnxpb.Dim{{Param: "N"}}}},
		Initializers: []onnxpb.Tensor{
			onnxpb.FloatTensor("mean", m.Mean, f),
			onnxpb.FloatTensor("std", m.Std, f),
			onnxpb.FloatTensor("kind_select", sel, f, ne),
			onnxpb.FloatTensor("b2", b2, ne, 1),
			onnxpb.FloatTensor("skip", skip, f, ne),
			onnxpb.FloatTensor("ones", ones, ne, 1),
			onnxpb.Int64Tensor("flat", []int64{-1}, 1),
		},
		Nodes: []onnxpb.Node{
			{Name: "center", OpType: "Sub", Inputs: []string{InputName, "mean"}, Outputs: []string{"centered"}},
			{Name: "scale", OpType: "Div", Inputs: []string{"centered", "std"}, Outputs: []string{"z"}},
			{Name: "kind", OpType: "MatMul", Inputs: []string{InputName, "kind_select"}, Outputs: []string{"g"}},
			{Name: "out_bias", OpType: "MatMul", Inputs: []string{"g", "b2"}, Outputs: []string{"ob"}},
			{Name: "skip", OpType: "MatMul", Inputs: []string{"z", "skip"}, Outputs: []string{"s0"}},
			{Name: "skip_route", OpType: "Mul", Inputs: []string{"s0", "g"}, Outputs: []string{"s1"}},
			{Name: "skip_sum", OpType: "MatMul", Inputs: []string{"s1", "ones"}, Outputs: []string{"s2"}},
		},
	}
	if m.hasMLP() {
		g.Initializers = append(g.Initializers,
			onnxpb.FloatTensor("w1", w1, f, eh),
			onnxpb.FloatTensor("b1", b1, eh),
			onnxpb.FloatTensor("kind_spread", spread, ne, eh),
			onnxpb.FloatTensor("w2", w2, eh, 1))
		g.Nodes = append(g.Nodes,
			onnxpb.Node{Name: "hidden", OpType: "MatMul", Inputs: []string{"z", "w1"}, Outputs: []string{"h0"}},
			onnxpb.Node{Name: "hidden_bias", OpType: "Add", Inputs: []string{"h0", "b1"}, Outputs: []string{"h1"}},
			onnxpb.Node{Name: "relu", OpType: "Relu", Inputs: []string{"h1"}, Outputs: []string{"h"}},
			onnxpb.Node{Name: "kind_mask", OpType: "MatMul", Inputs: []string{"g", "kind_spread"}, Outputs: []string{"gx"}},
			onnxpb.Node{Name: "route", OpType: "Mul", Inputs: []string{"h", "gx"}, Outputs: []string{"hg"}},
			onnxpb.Node{Name: "out", OpType: "MatMul", Inputs: []string{"hg", "w2"}, Outputs: []string{"o0"}},
			onnxpb.Node{Name: "mlp_bias", OpType: "Add", Inputs: []string{"o0", "ob"}, Outputs: []string{"o1"}})
	} else {
		// Every expert is linear (its W2 is 0): the hidden layer would add exact zeros at the
		// cost of an [N, F]·[F, E·H] product, so the graph leaves it out.
		g.Nodes = append(g.Nodes, onnxpb.Node{Name: "mlp_bias", OpType: "Identity", Inputs: []string{"ob"}, Outputs: []string{"o1"}})
	}
	g.Nodes = append(g.Nodes, onnxpb.Node{Name: "logit", OpType: "Add", Inputs: []string{"o1", "s2"}, Outputs: []string{"logit"}})
	final := "logit"
	if m.trees() > 0 {
		final = m.treeNodes(&g, "logit", "g")
	}
	g.Nodes = append(g.Nodes,
		onnxpb.Node{Name: "squash", OpType: "Sigmoid", Inputs: []string{final}, Outputs: []string{"p"}},
		onnxpb.Node{Name: "flatten", OpType: "Reshape", Inputs: []string{"p", "flat"}, Outputs: []string{OutputName}})
	model := onnxpb.Model{ProducerName: "mcp-pruner train", ProducerVersion: "1", Doc: doc, Graph: g, Metadata: metadata}
	if m.trees() > 0 {
		model.Imports = []onnxpb.OpsetImport{{Domain: onnxpb.MLDomain, Version: 3}}
	}
	return model.Marshal()
}

// trees is the number of boosted trees over all experts.
func (m *Model) trees() int {
	n := 0
	for _, e := range m.Experts {
		n += len(e.Trees)
	}
	return n
}

// treeNodes appends to g the nodes that add the experts' boosted trees to the logit named
// in and returns the sum's name; kind is the graph's [N, E] kind one-hot. The trees become
// one ONNX-ML TreeEnsembleRegressor with a target per expert (each oblivious tree written as
// the full binary tree it is), whose [N, E] sums the kind one-hot picks. They run only when
// a row is of a kind that has trees (If): a request is of one kind, and the ensemble visits
// every tree for every row, 0.65 of onnxruntime's 0.9 ms on 2,000 lines of code whose
// expert has none.
//
//	has   = ReduceMax(kind · T) > 0.5                  scalar   MatMul, ReduceMax, Greater (T: experts with trees)
//	trees = If(has,                                    [N, 1]
//	          then: (TreeEnsembleRegressor(features) ⊙ kind) · 1   (ai.onnx.ml), Mul, MatMul
//	          else: zeros)                                          Shape, ConstantOfShape
//
// onnxruntime's tree kernel is several times faster than the same trees built from Gather,
// Greater and Cast (about 0.3 against 2.5 ms for 120 trees on 2,000 rows).
func (m *Model) treeNodes(g *onnxpb.Graph, in, kind string) string {
	var treeIDs, nodeIDs, featureIDs, trueIDs, falseIDs, tTreeIDs, tNodeIDs, tIDs []int64
	var values, weights []float32
	var modes []string
	t := int64(0)
	for k, e := range m.Experts {
		for _, tr := range e.Trees {
			D := len(tr.Features)
			// Node (level l, prefix p) has id 2^l−1+p; its true branch (x > threshold) sets
			// bit l of the leaf index, as Tree.eval does.
			for l := 0; l <= D; l++ {
				for p := 0; p < 1<<l; p++ {
					id := int64(1<<l - 1 + p)
					treeIDs = append(treeIDs, t)
					nodeIDs = append(nodeIDs, id)
					if l == D {
						featureIDs = append(featureIDs, 0)
						modes = append(modes, "LEAF")
						values = append(values, 0)
						trueIDs = append(trueIDs, 0)
						falseIDs = append(falseIDs, 0)
						tTreeIDs = append(tTreeIDs, t)
						tNodeIDs = append(tNodeIDs, id)
						tIDs = append(tIDs, int64(k))
						weights = append(weights, tr.Leaves[p])
						continue
					}
					featureIDs = append(featureIDs, int64(tr.Features[l]))
					modes = append(modes, "BRANCH_GT")
					values = append(values, tr.Thresholds[l])
					trueIDs = append(trueIDs, int64(1<<(l+1)-1+(p|1<<l)))
					falseIDs = append(falseIDs, int64(1<<(l+1)-1+p))
				}
			}
			t++
		}
	}
	E := len(m.Experts)
	ones := make([]float32, E)
	withTrees := make([]float32, E)
	for k, e := range m.Experts {
		ones[k] = 1
		if len(e.Trees) > 0 {
			withTrees[k] = 1
		}
	}
	column := []onnxpb.Dim{{Param: "N"}, {Value: 1}}
	then := &onnxpb.Graph{
		Name:         "with_trees",
		Initializers: []onnxpb.Tensor{onnxpb.FloatTensor("tree_ones", ones, int64(E), 1)},
		Outputs:      []onnxpb.ValueInfo{{Name: "ts_then", Type: onnxpb.Float, Dims: column}},
	}
	then.Nodes = append(then.Nodes,
		onnxpb.Node{Name: "trees", OpType: "TreeEnsembleRegressor", Domain: onnxpb.MLDomain, Inputs: []string{InputName}, Outputs: []string{"tsum"}, Attrs: []onnxpb.Attr{
			onnxpb.IntAttr("n_targets", int64(E)),
			onnxpb.StringAttr("aggregate_function", "SUM"),
			onnxpb.StringAttr("post_transform", "NONE"),
			onnxpb.IntsAttr("nodes_treeids", treeIDs...),
			onnxpb.IntsAttr("nodes_nodeids", nodeIDs...),
			onnxpb.IntsAttr("nodes_featureids", featureIDs...),
			onnxpb.StringsAttr("nodes_modes", modes...),
			onnxpb.FloatsAttr("nodes_values", values...),
			onnxpb.IntsAttr("nodes_truenodeids", trueIDs...),
			onnxpb.IntsAttr("nodes_falsenodeids", falseIDs...),
			onnxpb.IntsAttr("target_treeids", tTreeIDs...),
			onnxpb.IntsAttr("target_nodeids", tNodeIDs...),
			onnxpb.IntsAttr("target_ids", tIDs...),
			onnxpb.FloatsAttr("target_weights", weights...),
		}},
		onnxpb.Node{Name: "tree_route", OpType: "Mul", Inputs: []string{"tsum", kind}, Outputs: []string{"tk"}},
		onnxpb.Node{Name: "tree_sum", OpType: "MatMul", Inputs: []string{"tk", "tree_ones"}, Outputs: []string{"ts_then"}},
	)
	none := &onnxpb.Graph{
		Name:    "without_trees",
		Outputs: []onnxpb.ValueInfo{{Name: "ts_else", Type: onnxpb.Float, Dims: column}},
		Nodes: []onnxpb.Node{
			{Name: "zeros_shape", OpType: "Shape", Inputs: []string{in}, Outputs: []string{"in_shape"}},
			{Name: "zeros", OpType: "ConstantOfShape", Inputs: []string{"in_shape"}, Outputs: []string{"ts_else"}},
		},
	}
	g.Initializers = append(g.Initializers, onnxpb.FloatTensor("tree_kinds", withTrees, int64(E), 1))
	g.Nodes = append(g.Nodes,
		onnxpb.Node{Name: "tree_rows", OpType: "MatMul", Inputs: []string{kind, "tree_kinds"}, Outputs: []string{"tree_rows"}},
		onnxpb.Node{Name: "tree_any", OpType: "ReduceMax", Inputs: []string{"tree_rows"}, Outputs: []string{"tree_any"}, Attrs: []onnxpb.Attr{onnxpb.IntAttr("keepdims", 0)}},
		onnxpb.Node{Name: "tree_half", OpType: "Constant", Outputs: []string{"half"}, Attrs: []onnxpb.Attr{{Name: "value_float", Kind: onnxpb.AttrFloat, Float: 0.5}}},
		onnxpb.Node{Name: "tree_has", OpType: "Greater", Inputs: []string{"tree_any", "half"}, Outputs: []string{"tree_has"}},
		onnxpb.Node{Name: "tree_if", OpType: "If", Inputs: []string{"tree_has"}, Outputs: []string{"ts"}, Attrs: []onnxpb.Attr{
			onnxpb.GraphAttr("then_branch", then),
			onnxpb.GraphAttr("else_branch", none),
		}},
		onnxpb.Node{Name: "tree_add", OpType: "Add", Inputs: []string{in, "ts"}, Outputs: []string{"logit_trees"}},
	)
	return "logit_trees"
}

// hasMLP reports whether any expert's hidden layer contributes (a nonzero output weight).
func (m *Model) hasMLP() bool {
	for _, e := range m.Experts {
		for _, w := range e.W2 {
			if w != 0 {
				return true
			}
		}
	}
	return false
}

func (m *Model) check() error {
	if len(m.Mean) != m.F || len(m.Std) != m.F || len(m.Experts) != len(linefeat.Kinds) || m.Hidden < 1 {
		return fmt.Errorf("model: inconsistent shapes (F=%d, hidden=%d, experts=%d)", m.F, m.Hidden, len(m.Experts))
	}
	for k, e := range m.Experts {
		if len(e.W1) != m.F*m.Hidden || len(e.B1) != m.Hidden || len(e.W2) != m.Hidden {
			return fmt.Errorf("model: expert %s has inconsistent shapes", linefeat.Kinds[k])
		}
		if lc, _ := baseColumns(e.Base); lc < 0 {
			return fmt.Errorf("model: expert %s has unknown base %q (want one of %v)", linefeat.Kinds[k], e.Base, Bases)
		}
	}
	for k, e := range m.Experts {
		for i, t := range e.Trees {
			d := len(t.Features)
			if d == 0 || d > MaxTreeDepth || len(t.Thresholds) != d || len(t.Leaves) != 1<<d {
				return fmt.Errorf("model: expert %s: tree %d has inconsistent shapes (depth %d, %d thresholds, %d leaves)", linefeat.Kinds[k], i, d, len(t.Thresholds), len(t.Leaves))
			}
			for _, f := range t.Features {
				if f < 0 || f >= m.F {
					return fmt.Errorf("model: expert %s: tree %d splits on feature %d of %d", linefeat.Kinds[k], i, f, m.F)
				}
			}
		}
	}
	return nil
}
