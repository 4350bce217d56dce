package train

import (
	"fmt"
	"math"

	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/onnxpb"
)

// MLP is the line-relevance model: standardised features, one ReLU hidden layer, a sigmoid
// output. With Hidden == 0 it is a logistic regression.
type MLP struct {
	F, Hidden int
	Mean, Std []float32 // per feature; Std is never 0
	W1        []float32 // F×Hidden, row-major
	B1        []float32 // Hidden
	W2        []float32 // Hidden (or F when Hidden == 0)
	B2        float32
}

// Logit returns the model's pre-sigmoid output for one feature row. It computes in float32
// in the graph's order of operations so it agrees with onnxruntime to rounding.
func (m *MLP) Logit(x []float32, z, h []float32) float32 {
	for k := 0; k < m.F; k++ {
		z[k] = (x[k] - m.Mean[k]) / m.Std[k]
	}
	if m.Hidden == 0 {
		s := float32(0)
		for k := 0; k < m.F; k++ {
			s += z[k] * m.W2[k]
		}
		return s + m.B2
	}
	for j := 0; j < m.Hidden; j++ {
		h[j] = 0
	}
	for k := 0; k < m.F; k++ {
		zk := z[k]
		if zk == 0 {
			continue
		}
		row := m.W1[k*m.Hidden : (k+1)*m.Hidden]
		for j, w := range row {
			h[j] += zk * w
		}
	}
	s := float32(0)
	for j := 0; j < m.Hidden; j++ {
		v := h[j] + m.B1[j]
		if v > 0 {
			s += v * m.W2[j]
		}
	}
	return s + m.B2
}

// Predict returns sigmoid(logit) for each row of the n×F matrix x.
func (m *MLP) Predict(x []float32, n int) []float64 {
	out := make([]float64, n)
	z := make([]float32, m.F)
	h := make([]float32, max(1, m.Hidden))
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

// ONNX exports m as an ONNX graph: (x - mean) / std, MatMul, Add, Relu, MatMul, Add, Sigmoid,
// Reshape to [N]. Input "features" is float32 [N, F]; output "relevance" is float32 [N].
func (m *MLP) ONNX(doc string, metadata [][2]string) []byte {
	F, H := int64(m.F), int64(m.Hidden)
	g := onnxpb.Graph{
		Name:    "linerank",
		Inputs:  []onnxpb.ValueInfo{{Name: InputName, Type: onnxpb.Float, Dims: []onnxpb.Dim{{Param: "N"}, {Value: F}}}},
		Outputs: []onnxpb.ValueInfo{{Name: OutputName, Type: onnxpb.Float, Dims: []onnxpb.Dim{{Param: "N"}}}},
		Initializers: []onnxpb.Tensor{
			onnxpb.FloatTensor("mean", m.Mean, F),
			onnxpb.FloatTensor("std", m.Std, F),
			onnxpb.Int64Tensor("flat", []int64{-1}, 1),
		},
		Nodes: []onnxpb.Node{
			{Name: "center", OpType: "Sub", Inputs: []string{InputName, "mean"}, Outputs: []string{"centered"}},
			{Name: "scale", OpType: "Div", Inputs: []string{"centered", "std"}, Outputs: []string{"z"}},
		},
	}
	last := "z"
	if H > 0 {
		g.Initializers = append(g.Initializers,
			onnxpb.FloatTensor("w1", m.W1, F, H),
			onnxpb.FloatTensor("b1", m.B1, H),
			onnxpb.FloatTensor("w2", m.W2, H, 1),
		)
		g.Nodes = append(g.Nodes,
			onnxpb.Node{Name: "hidden", OpType: "MatMul", Inputs: []string{"z", "w1"}, Outputs: []string{"h0"}},
			onnxpb.Node{Name: "hidden_bias", OpType: "Add", Inputs: []string{"h0", "b1"}, Outputs: []string{"h1"}},
			onnxpb.Node{Name: "relu", OpType: "Relu", Inputs: []string{"h1"}, Outputs: []string{"h"}},
		)
		last = "h"
	} else {
		g.Initializers = append(g.Initializers, onnxpb.FloatTensor("w2", m.W2, F, 1))
	}
	g.Initializers = append(g.Initializers, onnxpb.FloatTensor("b2", []float32{m.B2}, 1))
	g.Nodes = append(g.Nodes,
		onnxpb.Node{Name: "out", OpType: "MatMul", Inputs: []string{last, "w2"}, Outputs: []string{"o0"}},
		onnxpb.Node{Name: "out_bias", OpType: "Add", Inputs: []string{"o0", "b2"}, Outputs: []string{"logit"}},
		onnxpb.Node{Name: "squash", OpType: "Sigmoid", Inputs: []string{"logit"}, Outputs: []string{"p"}},
		onnxpb.Node{Name: "flatten", OpType: "Reshape", Inputs: []string{"p", "flat"}, Outputs: []string{OutputName}},
	)
	model := onnxpb.Model{ProducerName: "mcp-pruner train", ProducerVersion: "1", Doc: doc, Graph: g, Metadata: metadata}
	return model.Marshal()
}

func (m *MLP) check() error {
	wantW2 := m.Hidden
	if m.Hidden == 0 {
		wantW2 = m.F
	}
	if len(m.Mean) != m.F || len(m.Std) != m.F || len(m.W1) != m.F*m.Hidden || len(m.B1) != m.Hidden || len(m.W2) != wantW2 {
		return fmt.Errorf("mlp: inconsistent shapes (F=%d, hidden=%d)", m.F, m.Hidden)
	}
	return nil
}
