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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFixedCrossEncoder writes the probe cross-encoder with the given input dimensions
// (0: dynamic) in the graph and, when inManifest, in the manifest too.
func writeFixedCrossEncoder(t *testing.T, maxLen, batchSize int, batch, seq int64, inManifest bool) string {
	t.Helper()
	dir := writeCrossEncoder(t, maxLen, batchSize)
	gdim := func(v int64, p string) onnxpb.Dim {
		if v > 0 {
			return onnxpb.Dim{Value: v}
		}
		return onnxpb.Dim{Param: p}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), probeGraph(gdim(batch, "batch"), gdim(seq, "sequence")), 0o644))
	if inManifest {
		mdim := func(v int64, p string) manifest.Dim {
			if v > 0 {
				return manifest.Dim{Size: v}
			}
			return manifest.Dim{Param: p}
		}
		editManifest(t, dir, func(man *manifest.Manifest) {
			for i := range man.Inputs {
				man.Inputs[i].Shape = []manifest.Dim{mdim(batch, "batch"), mdim(seq, "sequence")}
			}
			man.Outputs[0].Shape[0] = mdim(batch, "batch")
		})
	}
	return dir
}

// TestCrossEncoderFixedDims: a model exported with a fixed batch size or sequence length
// scores like its dynamic twin (the probe ignores masked padding), with pairs truncated to
// the fixed length and short batches padded to the fixed size.
func TestCrossEncoderFixedDims(t *testing.T) {
	req := &engine.ScoreRequest{Lines: []string{"return x", "the bugs", "in parser"}, Goal: "find bug", SourceType: engine.SourceCode}
	full := []float64{1.0 / (1 + 15 + 58 + 6000), 1.0 / (1 + 15 + 85 + 9000), 1.0 / (1 + 15 + 48 + 7000)}
	// Eight tokens: the same pairs as TestCrossEncoder's "truncated" case.
	cut := []float64{1.0 / (1 + 15 + 20 + 17 + 5 + 3 + 4000), 1.0 / (1 + 15 + 20 + 17 + 5 + 3 + 4000), 1.0 / (1 + 15 + 5 + 6 + 7 + 3 + 4000)}
	tests := []struct {
		name              string
		maxLen, batchSize int
		batch, seq        int64
		inManifest        bool
		want              []float64
	}{
		{"sequence 16, longer max_length", 64, 2, 0, 16, true, full},
		{"sequence 32 in the graph only", 32, 2, 0, 32, false, full},
		{"sequence 8 truncates", 64, 3, 0, 8, true, cut},
		{"batch 1", 64, 8, 1, 0, true, full},
		{"batch 4, a short batch padded", 64, 2, 4, 0, false, full},
		{"batch 2 and sequence 16", 64, 8, 2, 16, true, full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, writeFixedCrossEncoder(t, tt.maxLen, tt.batchSize, tt.batch, tt.seq, tt.inManifest))
			resp, err := s.Score(context.Background(), req)
			require.NoError(t, err)
			require.Len(t, resp.Scores, len(tt.want))
			for i := range tt.want {
				assert.InEpsilon(t, tt.want[i], resp.Scores[i], 1e-6, "line %d", i+1)
			}
		})
	}
}

// TestOpenRefusesUnusableFixedDims: dimensions no request could meet fail at Open, naming
// the input, instead of failing every Score.
func TestOpenRefusesUnusableFixedDims(t *testing.T) {
	lib := library(t)
	tests := []struct {
		name string
		dir  func(t *testing.T) string
		msg  string
	}{
		{"sequence shorter than a pair", func(t *testing.T) string { return writeFixedCrossEncoder(t, 64, 2, 0, 4, true) }, `"input_ids" has shape [-1 4]`},
		{"inputs disagree", func(t *testing.T) string {
			dir := writeCrossEncoder(t, 64, 2)
			editManifest(t, dir, func(man *manifest.Manifest) { man.Inputs[1].Shape[1] = manifest.Dim{Size: 16} })
			return dir
		}, `"attention_mask"`},
		{"line features with a fixed row count", func(t *testing.T) string {
			return writeLineModel(t, tinyModel(), func(m *manifest.Manifest) { m.Inputs[0].Shape[0] = manifest.Dim{Size: 5} })
		}, "any number of rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := onnx.Open(context.Background(), tt.dir(t), onnx.Options{LibraryPath: lib})
			require.ErrorIs(t, err, onnx.ErrShapeMismatch)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}
