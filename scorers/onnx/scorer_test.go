package onnx_test

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/manifest"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/train"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// library returns the onnxruntime library or skips the test: the runtime comes from
// scripts/install-onnxruntime.sh, which the README's test command runs first.
func library(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(onnx.LibraryEnv); p != "" {
		return p
	}
	wd, err := os.Getwd()
	require.NoError(t, err)
	p := onnx.FindLibrary(wd)
	if p == "" {
		t.Skip("onnxruntime library absent: run scripts/install-onnxruntime.sh")
	}
	return p
}

// tinyMLP is a deterministic small model over the real feature set.
func tinyMLP() *train.MLP {
	F, H := linefeat.NumFeatures, 3
	m := &train.MLP{F: F, Hidden: H, Mean: make([]float32, F), Std: make([]float32, F),
		W1: make([]float32, F*H), B1: []float32{0.1, -0.2, 0.05}, W2: []float32{1.5, -0.7, 0.9}, B2: -0.3}
	for k := 0; k < F; k++ {
		m.Mean[k] = float32(k%5) * 0.01
		m.Std[k] = 1 + float32(k%3)*0.5
		for j := 0; j < H; j++ {
			m.W1[k*H+j] = float32(math.Sin(float64(k*H+j))) * 0.8
		}
	}
	return m
}

// writeLineModel writes a line-features model directory and returns it.
func writeLineModel(t testing.TB, m *train.MLP, edit func(*manifest.Manifest)) string {
	t.Helper()
	dir := t.TempDir()
	man := train.Manifest(m, 0.4, "test", "0.0.1", nil)
	if edit != nil {
		edit(man)
	}
	b, err := man.Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, manifest.FileName), b, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), m.ONNX("test model", nil), 0o644))
	return dir
}

func open(t testing.TB, dir string) *onnx.Scorer {
	t.Helper()
	s, err := onnx.Open(context.Background(), dir, onnx.Options{LibraryPath: library(t)})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

func TestLineFeaturesMatchesGoForward(t *testing.T) {
	m := tinyMLP()
	s := open(t, writeLineModel(t, m, nil))
	for i, req := range scorertest.Requests() {
		resp, err := s.Score(context.Background(), req)
		require.NoError(t, err)
		want, err := (&train.Scorer{Model: m}).Score(context.Background(), req)
		require.NoError(t, err)
		require.Len(t, resp.Scores, len(req.Lines))
		assert.InDeltaSlice(t, want.Scores, resp.Scores, 1e-5, "request %d: onnxruntime and the Go forward pass disagree", i)
	}
	assert.Equal(t, 0.4, engine.ThresholdOf(s))
	assert.NotEmpty(t, onnx.RuntimeVersion())
}

func TestContract(t *testing.T) {
	dir := writeLineModel(t, tinyMLP(), nil)
	lib := library(t)
	scorertest.Run(t, func() engine.Scorer {
		s, err := onnx.Open(context.Background(), dir, onnx.Options{LibraryPath: lib})
		require.NoError(t, err)
		return s
	})
}

func TestOpenErrors(t *testing.T) {
	lib := library(t)
	m := tinyMLP()
	tests := []struct {
		name  string
		dir   func(t *testing.T) string
		is    error
		match string
	}{
		{"no manifest", func(t *testing.T) string { return t.TempDir() }, os.ErrNotExist, "model manifest"},
		{"corrupt model", func(t *testing.T) string {
			dir := writeLineModel(t, m, nil)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("not a protobuf at all \x00\x01"), 0o644))
			return dir
		}, onnx.ErrModel, "model.onnx"},
		{"missing model file", func(t *testing.T) string {
			dir := writeLineModel(t, m, nil)
			require.NoError(t, os.Remove(filepath.Join(dir, "model.onnx")))
			return dir
		}, onnx.ErrModel, "model.onnx"},
		{"graph has fewer features than the manifest", func(t *testing.T) string {
			small := *m
			small.F = 4
			small.Mean, small.Std, small.W1 = m.Mean[:4], m.Std[:4], m.W1[:4*3]
			dir := writeLineModel(t, m, nil)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), small.ONNX("", nil), 0o644))
			return dir
		}, onnx.ErrShapeMismatch, "features"},
		{"output name differs", func(t *testing.T) string {
			return writeLineModel(t, m, func(man *manifest.Manifest) { man.Outputs[0].Name = "logits" })
		}, onnx.ErrShapeMismatch, `"logits"`},
		{"feature set of another version", func(t *testing.T) string {
			return writeLineModel(t, m, func(man *manifest.Manifest) { man.Features.Version = "linefeat-v0" })
		}, onnx.ErrShapeMismatch, "retrain"},
		{"bad family", func(t *testing.T) string {
			return writeLineModel(t, m, func(man *manifest.Manifest) { man.Family = "magic" })
		}, manifest.ErrInvalid, "family"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := onnx.Open(context.Background(), tt.dir(t), onnx.Options{LibraryPath: lib})
			require.Error(t, err)
			assert.Nil(t, s)
			assert.True(t, errors.Is(err, tt.is), "error %v is not %v", err, tt.is)
			assert.Contains(t, err.Error(), tt.match)
		})
	}
}

func TestLibraryMissing(t *testing.T) {
	// Runs in a child process: the library is loaded once per process, and this process may
	// already have it.
	if os.Getenv("ONNX_TEST_CHILD") != "1" {
		runChild(t, "TestLibraryMissing")
		return
	}
	dir := writeLineModel(t, tinyMLP(), nil)
	for _, lib := range []string{"", filepath.Join(t.TempDir(), "libonnxruntime.so"), "/etc/hostname"} {
		s, err := onnx.Open(context.Background(), dir, onnx.Options{LibraryPath: lib})
		require.Error(t, err, "library %q", lib)
		assert.Nil(t, s)
		assert.ErrorIs(t, err, onnx.ErrRuntimeUnavailable)
		assert.Contains(t, err.Error(), "install-onnxruntime.sh")
	}
}

// TestFailOpenAtPrune checks that a model producing garbage makes the engine fall back to
// the whole text rather than fail the request.
func TestFailOpenAtPrune(t *testing.T) {
	m := tinyMLP()
	m.B2 = float32(math.NaN())
	s := open(t, writeLineModel(t, m, nil))
	reg := engine.NewRegistry()
	reg.Register("model", s)
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: byteCounter{}})
	require.NoError(t, err)
	text := "alpha\nbeta\ngamma\n"
	res, err := eng.Prune(context.Background(), &engine.Request{Text: text, GoalHint: "beta", SourceType: engine.SourceCode, Options: engine.DefaultOptions()})
	require.NoError(t, err)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, text, res.PrunedText)
	assert.Contains(t, res.Warnings, engine.WarnScorerError)
}

type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }

// runChild reruns one test of this package in a fresh process (for process-wide state).
func runChild(t *testing.T, name string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run", "^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), "ONNX_TEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child test failed:\n%s", out)
	assert.Contains(t, string(out), "--- PASS: "+name)
}
