package onnx_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/onnxpb"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/train"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowGraph is a line-features graph that does `layers` dense layers of width 1024 per line
// before it answers: about 2 MFLOP per line and layer, so 512 lines take about 4 s on one
// thread of this machine and a single line about 10 ms.
func slowGraph(layers int) []byte {
	const width = 1024
	f := int64(linefeat.NumFeatures)
	w0 := make([]float32, int(f)*width)
	for i := range w0 {
		w0[i] = float32(math.Sin(float64(i))) * 0.1
	}
	w := make([]float32, width*width)
	for i := range w {
		w[i] = float32(math.Cos(float64(i))) / width
	}
	nodes := []onnxpb.Node{{OpType: "MatMul", Inputs: []string{train.InputName, "w0"}, Outputs: []string{"h0"}}}
	for k := range layers {
		in, mid, out := fmt.Sprintf("h%d", k), fmt.Sprintf("m%d", k), fmt.Sprintf("h%d", k+1)
		nodes = append(nodes,
			onnxpb.Node{OpType: "MatMul", Inputs: []string{in, "w"}, Outputs: []string{mid}},
			onnxpb.Node{OpType: "Tanh", Inputs: []string{mid}, Outputs: []string{out}})
	}
	nodes = append(nodes,
		onnxpb.Node{OpType: "ReduceMean", Inputs: []string{fmt.Sprintf("h%d", layers)}, Outputs: []string{"mean"},
			Attrs: []onnxpb.Attr{onnxpb.IntsAttr("axes", 1), onnxpb.IntAttr("keepdims", 0)}},
		onnxpb.Node{OpType: "Sigmoid", Inputs: []string{"mean"}, Outputs: []string{train.OutputName}})
	m := onnxpb.Model{Graph: onnxpb.Graph{
		Inputs:       []onnxpb.ValueInfo{{Name: train.InputName, Type: onnxpb.Float, Dims: []onnxpb.Dim{{Param: "N"}, {Value: f}}}},
		Outputs:      []onnxpb.ValueInfo{{Name: train.OutputName, Type: onnxpb.Float, Dims: []onnxpb.Dim{{Param: "N"}}}},
		Initializers: []onnxpb.Tensor{onnxpb.FloatTensor("w0", w0, f, width), onnxpb.FloatTensor("w", w, width, width)},
		Nodes:        nodes,
	}}
	return m.Marshal()
}

// TestRunStopsAtCancel cancels a request while its model runs: the run stops between graph
// nodes and Score returns the context's error, instead of running the whole graph and
// answering a request nobody waits for. The session still serves the next request.
// (Before the run honoured ctx, Score returned scores after the full run, about 4 s here.)
func TestRunStopsAtCancel(t *testing.T) {
	dir := writeLineModel(t, tinyModel(), nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), slowGraph(400), 0o644))
	s := open(t, dir)

	lines := make([]string, 512)
	for i := range lines {
		lines[i] = fmt.Sprintf("func parse%d(b []byte) error { return nil }", i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// linefeat computes 512 lines' features in about a millisecond, so the cancel lands in the run.
	time.AfterFunc(100*time.Millisecond, cancel)
	resp, err := s.Score(ctx, &engine.ScoreRequest{Lines: lines, Goal: "parse error", SourceType: engine.SourceCode})
	require.ErrorIs(t, err, context.Canceled, "the run must stop at the cancel, not finish")
	assert.Nil(t, resp)

	resp, err = s.Score(context.Background(), &engine.ScoreRequest{Lines: lines[:1], Goal: "parse error", SourceType: engine.SourceCode})
	require.NoError(t, err, "a terminated run leaves the session usable")
	require.Len(t, resp.Scores, 1)
	assert.InDelta(t, 0.5, resp.Scores[0], 0.5)
}
