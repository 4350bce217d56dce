package train

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/manifest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mlpResult is a result whose model has a dense hidden layer (model.onnx over 12 KB); phase
// makes two of them differ in every weight.
func mlpResult(phase float64) *Result {
	F, H := linefeat.NumFeatures, 16
	m := &Model{F: F, Hidden: H, Mean: make([]float32, F), Std: make([]float32, F)}
	for k := range m.Std {
		m.Std[k] = 1
	}
	for range linefeat.Kinds {
		e := Expert{W1: make([]float32, F*H), B1: make([]float32, H), W2: make([]float32, H), Skip: 1, Base: BaseHeuristic}
		for i := range e.W1 {
			e.W1[i] = float32(math.Sin(float64(i) + phase))
		}
		for j := range e.W2 {
			e.W2[j] = float32(math.Cos(float64(j) + phase))
		}
		m.Experts = append(m.Experts, e)
	}
	return &Result{Model: m, Threshold: 0.4, Cases: 1, Files: map[string]int{"code.dev": 1}}
}

// TestWriteFailureKeepsThePreviousModel: a write that fails part-way (here the file size
// limit, as a full disk would) must leave the model directory as it was, not a truncated
// model.onnx next to the previous manifest.
func TestWriteFailureKeepsThePreviousModel(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	require.NoError(t, mlpResult(0).Write(dir, cfg, "pruner train"))
	before := map[string][]byte{}
	for _, name := range []string{ONNXFile, manifest.FileName, CardFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		before[name] = b
	}
	require.Greater(t, len(before[ONNXFile]), 8<<10, "the limit below must cut model.onnx short")

	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old))
	limited := old
	limited.Cur = 8 << 10
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limited))
	err := mlpResult(1).Write(dir, cfg, "pruner train")
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old))
	require.Error(t, err, "the file size limit did not stop the write: the test could not fail")

	for name, want := range before {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s changed by a failed write (%d bytes, was %d)", name, len(got), len(want))
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "a failed write left files behind")
}
