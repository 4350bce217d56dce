package onnx_test

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/manifest"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/onnxpb"
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

// tinyModel is a deterministic small model over the real feature set.
func tinyModel() *train.Model {
	F, H := linefeat.NumFeatures, 3
	m := &train.Model{F: F, Hidden: H, Mean: make([]float32, F), Std: make([]float32, F)}
	for k := 0; k < F; k++ {
		m.Mean[k] = float32(k%5) * 0.01
		m.Std[k] = 1 + float32(k%3)*0.5
	}
	for e := range linefeat.Kinds {
		ex := train.Expert{W1: make([]float32, F*H), B1: []float32{0.1, -0.2, 0.05}, W2: []float32{1.5, -0.7, 0.9}, B2: -0.3 + 0.1*float32(e), Skip: 0.7 - 0.2*float32(e), Exact: float32(e % 2)}
		for i := range ex.W1 {
			ex.W1[i] = float32(math.Sin(float64(i+7*e))) * 0.8
		}
		if e >= 2 {
			ex.Base = train.BaseStructural // both bases go through the graph's skip matrix
		}
		m.Experts = append(m.Experts, ex)
	}
	// Boosted trees of depths 1 to 3 on columns that vary across scorertest's requests, on
	// every kind but logs, so the graph's padding, leaf lookup and kind routing all count.
	col := func(name string) int { return slices.Index(linefeat.Names, name) }
	trees := []train.Tree{
		{Features: []int{col("heuristic")}, Thresholds: []float32{0.2}, Leaves: []float32{-0.4, 0.9}},
		{Features: []int{col("pos"), col("structural")}, Thresholds: []float32{0.5, 0.3}, Leaves: []float32{0.1, -0.2, 0.6, 0.35}},
		{Features: []int{col("lex_norm"), col("blank"), col("chars_log")}, Thresholds: []float32{0.05, 0.5, 2.5}, Leaves: []float32{0.3, -0.1, 0.2, 0.05, -0.6, 0.4, 0.8, -0.25}},
	}
	for k := range m.Experts {
		if linefeat.Kinds[k] != "logs" {
			m.Experts[k].Trees = trees[k%2:]
		}
	}
	return m
}

// narrowGraph is a valid graph whose input has 5 features instead of linefeat's.
func narrowGraph() []byte {
	m := onnxpb.Model{Graph: onnxpb.Graph{
		Inputs:       []onnxpb.ValueInfo{{Name: train.InputName, Type: onnxpb.Float, Dims: []onnxpb.Dim{{Param: "N"}, {Value: 5}}}},
		Outputs:      []onnxpb.ValueInfo{{Name: train.OutputName, Type: onnxpb.Float, Dims: []onnxpb.Dim{{Param: "N"}}}},
		Initializers: []onnxpb.Tensor{onnxpb.FloatTensor("w", make([]float32, 5), 5, 1), onnxpb.Int64Tensor("flat", []int64{-1}, 1)},
		Nodes: []onnxpb.Node{
			{OpType: "MatMul", Inputs: []string{train.InputName, "w"}, Outputs: []string{"o"}},
			{OpType: "Reshape", Inputs: []string{"o", "flat"}, Outputs: []string{train.OutputName}},
		},
	}}
	return m.Marshal()
}

// writeLineModel writes a line-features model directory and returns it.
func writeLineModel(t testing.TB, m *train.Model, edit func(*manifest.Manifest)) string {
	t.Helper()
	dir := t.TempDir()
	man := train.Manifest(m, 0.4, nil, "test", "0.0.1", nil)
	if edit != nil {
		edit(man)
	}
	writeManifest(t, dir, man)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), m.ONNX("test model", nil), 0o644))
	return dir
}

// writeManifest writes man as dir's manifest.
func writeManifest(t testing.TB, dir string, man *manifest.Manifest) {
	t.Helper()
	b, err := man.Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, manifest.FileName), b, 0o644))
}

// editManifest loads dir's manifest, applies edit and writes it back.
func editManifest(t testing.TB, dir string, edit func(*manifest.Manifest)) {
	t.Helper()
	man, err := manifest.Load(dir)
	require.NoError(t, err)
	edit(man)
	writeManifest(t, dir, man)
}

func open(t testing.TB, dir string) *onnx.Scorer {
	t.Helper()
	s, err := onnx.Open(context.Background(), dir, onnx.Options{LibraryPath: library(t)})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

func TestLineFeaturesMatchesGoForward(t *testing.T) {
	// The tiny model has MLP experts; its linear twin (every W2 zero, as the shipped model's
	// experts are) is exported without the hidden layer.
	linear := tinyModel()
	for k := range linear.Experts {
		clear(linear.Experts[k].W2)
	}
	for name, m := range map[string]*train.Model{"mlp": tinyModel(), "linear": linear} {
		t.Run(name, func(t *testing.T) {
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
			assert.NotEmpty(t, onnx.RuntimeVersion(), "known once a scorer opened the library")
		})
	}
}

func TestContract(t *testing.T) {
	scorertest.Run(t, tinyScorer(t))
}

// tinyScorer writes the test's tiny line-features model and returns a constructor of onnx
// scorers over it.
func tinyScorer(tb testing.TB) func() engine.Scorer {
	dir := writeLineModel(tb, tinyModel(), nil)
	lib := library(tb)
	return func() engine.Scorer {
		s, err := onnx.Open(context.Background(), dir, onnx.Options{LibraryPath: lib})
		require.NoError(tb, err)
		return s
	}
}

func TestOpenErrors(t *testing.T) {
	lib := library(t)
	m := tinyModel()
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
			dir := writeLineModel(t, m, nil)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx"), narrowGraph(), 0o644))
			return dir
		}, onnx.ErrShapeMismatch, "features"},
		{"output name differs", func(t *testing.T) string {
			return writeLineModel(t, m, func(man *manifest.Manifest) { man.Outputs[0].Name = "logits" })
		}, onnx.ErrShapeMismatch, `the graph's outputs are "relevance"`},
		{"two feature names swapped", func(t *testing.T) string {
			return writeLineModel(t, m, func(man *manifest.Manifest) {
				man.Features.Names[0], man.Features.Names[1] = man.Features.Names[1], man.Features.Names[0]
			})
		}, onnx.ErrShapeMismatch, "features.names[0] is"},
		{"feature set of another version", func(t *testing.T) string {
			return writeLineModel(t, m, func(man *manifest.Manifest) { man.Features.Version = "linefeat-v0" })
		}, onnx.ErrShapeMismatch, "retrain"},
		{"kind threshold for a kind the features do not have", func(t *testing.T) string {
			return writeLineModel(t, m, func(man *manifest.Manifest) { man.Features.KindThresholds = map[string]float64{"code_cobol": 0.5} })
		}, manifest.ErrInvalid, `"code_cobol"`},
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
	dir := writeLineModel(t, tinyModel(), nil)
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
	m := tinyModel()
	for k := range m.Experts {
		m.Experts[k].B2 = float32(math.NaN())
	}
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

// FuzzScore runs the contract's fuzz property on the line-features family through
// onnxruntime, with the test's tiny model (trees on every kind but logs).
func FuzzScore(f *testing.F) {
	scorertest.Fuzz(f, tinyScorer(f))
}

// TestKindThresholds: a manifest's kind_thresholds become each request's threshold by the
// source kind its rows are routed to; a kind not listed keeps the scorer's default.
func TestKindThresholds(t *testing.T) {
	s := open(t, writeLineModel(t, tinyModel(), func(man *manifest.Manifest) {
		man.Features.KindThresholds = map[string]float64{"code_python": 0.7, "logs": 0.2}
	}))
	lines := []string{"def parse(x):", "    return x"}
	for _, tc := range []struct {
		name string
		req  engine.ScoreRequest
		want *float64
	}{
		{"python code", engine.ScoreRequest{Lines: lines, Goal: "parse", SourceType: engine.SourceCode, Path: "a.py"}, ptr(0.7)},
		{"logs", engine.ScoreRequest{Lines: lines, Goal: "parse", SourceType: engine.SourceLogs}, ptr(0.2)},
		{"other code: not listed", engine.ScoreRequest{Lines: lines, Goal: "parse", SourceType: engine.SourceCode, Path: "a.go"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := s.Score(context.Background(), &tc.req)
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp.Threshold)
		})
	}
	assert.InDelta(t, 0.4, s.Describe().Threshold, 1e-9, "the listed default is the manifest's threshold")
}

func ptr(v float64) *float64 { return &v }
