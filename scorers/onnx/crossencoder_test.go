package onnx_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/manifest"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/onnxpb"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probeGraph is a stand-in cross-encoder whose output reveals its inputs exactly:
// score = 1 / (1 + Σ input_ids·mask + 1000 · Σ token_type_ids·mask) per pair, shape [batch, 1].
// Its inputs have shape [batch, seq] (a Param for a dynamic axis).
func probeGraph(batch, seqLen onnxpb.Dim) []byte {
	seq := []onnxpb.Dim{batch, seqLen}
	g := onnxpb.Graph{
		Name: "probe",
		Inputs: []onnxpb.ValueInfo{
			{Name: "input_ids", Type: onnxpb.Int64, Dims: seq},
			{Name: "attention_mask", Type: onnxpb.Int64, Dims: seq},
			{Name: "token_type_ids", Type: onnxpb.Int64, Dims: seq},
		},
		Outputs: []onnxpb.ValueInfo{{Name: "logits", Type: onnxpb.Float, Dims: []onnxpb.Dim{batch, {Value: 1}}}},
		Initializers: []onnxpb.Tensor{
			onnxpb.FloatTensor("thousand", []float32{1000}, 1),
			onnxpb.FloatTensor("one", []float32{1}, 1),
			onnxpb.Int64Tensor("axis1", []int64{1}, 1),
		},
		Nodes: []onnxpb.Node{
			{OpType: "Cast", Inputs: []string{"input_ids"}, Outputs: []string{"ids"}, Attrs: []onnxpb.Attr{onnxpb.IntAttr("to", int64(onnxpb.Float))}},
			{OpType: "Cast", Inputs: []string{"attention_mask"}, Outputs: []string{"mask"}, Attrs: []onnxpb.Attr{onnxpb.IntAttr("to", int64(onnxpb.Float))}},
			{OpType: "Cast", Inputs: []string{"token_type_ids"}, Outputs: []string{"types"}, Attrs: []onnxpb.Attr{onnxpb.IntAttr("to", int64(onnxpb.Float))}},
			{OpType: "Mul", Inputs: []string{"ids", "mask"}, Outputs: []string{"a"}},
			{OpType: "Mul", Inputs: []string{"types", "mask"}, Outputs: []string{"b0"}},
			{OpType: "Mul", Inputs: []string{"b0", "thousand"}, Outputs: []string{"b"}},
			{OpType: "Add", Inputs: []string{"a", "b"}, Outputs: []string{"c"}},
			{OpType: "ReduceSum", Inputs: []string{"c", "axis1"}, Outputs: []string{"s"}, Attrs: []onnxpb.Attr{onnxpb.IntAttr("keepdims", 1)}},
			{OpType: "Add", Inputs: []string{"s", "one"}, Outputs: []string{"s1"}},
			{OpType: "Reciprocal", Inputs: []string{"s1"}, Outputs: []string{"logits"}},
		},
	}
	m := onnxpb.Model{ProducerName: "mcp-pruner tests", Graph: g}
	return m.Marshal()
}

func writeCrossEncoder(t testing.TB, maxLen, batch int) string {
	t.Helper()
	dir := t.TempDir()
	tokJSON, err := os.ReadFile("hftok/testdata/wordpiece.json")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), tokJSON, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), probeGraph(onnxpb.Dim{Param: "batch"}, onnxpb.Dim{Param: "sequence"}), 0o644))
	seq := []manifest.Dim{{Param: "batch"}, {Param: "sequence"}}
	man := &manifest.Manifest{
		Name: "probe", Version: "0", Family: manifest.FamilyCrossEncoder, Threshold: 0.5,
		Inputs: []manifest.Tensor{
			{Name: "input_ids", Role: manifest.RoleInputIDs, Type: "int64", Shape: seq},
			{Name: "attention_mask", Role: manifest.RoleAttentionMask, Type: "int64", Shape: seq},
			{Name: "token_type_ids", Role: manifest.RoleTokenTypeIDs, Type: "int64", Shape: seq},
		},
		Outputs:      []manifest.Tensor{{Name: "logits", Role: manifest.RoleScores, Type: "float32", Shape: []manifest.Dim{{Param: "batch"}, {Size: 1}}}},
		CrossEncoder: &manifest.CrossEncoder{Tokenizer: "tokenizer.json", MaxLength: maxLen, BatchSize: batch, ContextLines: 1, Activation: "none"},
	}
	writeManifest(t, dir, man)
	return dir
}

func TestCrossEncoder(t *testing.T) {
	req := &engine.ScoreRequest{Lines: []string{"return x", "the bugs", "in parser"}, Goal: "find bug", SourceType: engine.SourceCode}
	// Pair ids (fixture vocabulary): goal [CLS] find bug [SEP] = 2 4 6 3; then the line with
	// one line of context each side, type id 1, closed by [SEP].
	//   line 1: return x \n the bugs            -> 20 17 5 6 7 3          (6 tokens of type 1)
	//   line 2: return x \n the bugs \n in parser -> 20 17 5 6 7 8 9 10 3 (9)
	//   line 3: the bugs \n in parser           -> 5 6 7 8 9 10 3        (7)
	want := []float64{1.0 / (1 + 15 + 58 + 6000), 1.0 / (1 + 15 + 85 + 9000), 1.0 / (1 + 15 + 48 + 7000)}
	tests := []struct {
		name          string
		maxLen, batch int
		want          []float64
	}{
		{"batches of two, padded", 32, 2, want},
		{"one batch", 32, 8, want},
		// max_length 8: 8 - 3 specials leaves 5; the line side is cut first (longest first):
		// line 2 keeps 20 17 5 -> [CLS] find bug [SEP] 20 17 5 [SEP].
		{"truncated", 8, 3, []float64{1.0 / (1 + 15 + 20 + 17 + 5 + 3 + 4000), 1.0 / (1 + 15 + 20 + 17 + 5 + 3 + 4000), 1.0 / (1 + 15 + 5 + 6 + 7 + 3 + 4000)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, writeCrossEncoder(t, tt.maxLen, tt.batch))
			resp, err := s.Score(context.Background(), req)
			require.NoError(t, err)
			require.Len(t, resp.Scores, 3)
			for i := range tt.want {
				assert.InEpsilon(t, tt.want[i], resp.Scores[i], 1e-6, "line %d", i+1)
			}
		})
	}
}

func TestCrossEncoderContract(t *testing.T) {
	dir := writeCrossEncoder(t, 64, 4)
	lib := library(t)
	scorertest.Run(t, func() engine.Scorer {
		s, err := onnx.Open(context.Background(), dir, onnx.Options{LibraryPath: lib})
		require.NoError(t, err)
		return s
	})
}
