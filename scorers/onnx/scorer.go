// Package onnx is the learned scorer family: a model run by onnxruntime on the CPU, described
// by a manifest (models/<name>/model.json, package manifest). Two input families exist:
// line-features models map the per-line feature matrix of package linefeat to relevances,
// and cross-encoders read tokenized (goal, line-with-context) pairs (package hftok).
//
// The onnxruntime library is loaded at run time from a path cmd resolves (flag, environment,
// or the .tools/ copy made by scripts/install-onnxruntime.sh); when it cannot be loaded, Open
// fails with ErrRuntimeUnavailable and the rest of the server runs without this scorer.
//
// It imports engine, the heuristic scorer (through linefeat), its own subpackages and
// onnxruntime_go; never server, plugins or cmd.
package onnx

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/hftok"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/manifest"
	ort "github.com/yalue/onnxruntime_go"
)

// Errors of Open besides ErrRuntimeUnavailable and manifest.ErrInvalid.
var (
	// ErrModel is wrapped when the ONNX file is missing or onnxruntime rejects it.
	ErrModel = errors.New("model unusable")
	// ErrShapeMismatch is wrapped when the graph's inputs or outputs differ from the manifest.
	ErrShapeMismatch = errors.New("model does not match its manifest")
	// ErrClosed is wrapped by Score once Close has run: the engine may let a call outlive its
	// deadline past the server's shutdown, and it must fail, not touch a destroyed session.
	ErrClosed = errors.New("scorer closed")
)

// Options configure Open.
type Options struct {
	// LibraryPath is the onnxruntime shared library (required).
	LibraryPath string
	// IntraOpThreads bounds the threads one Run uses (default 1: scoring sits in an agent's
	// loop next to other requests, and small models gain nothing from more).
	IntraOpThreads int
}

// Scorer runs one model. It holds one onnxruntime session, whose Run is safe for concurrent
// use with separate tensors, so concurrent Score calls share it.
type Scorer struct {
	dir string
	man *manifest.Manifest
	// mu guards sess and opts against Close: every Run holds it for reading, Close for
	// writing, so Close waits for the runs in flight (one batch each, not whole requests)
	// and later runs see a nil session and return ErrClosed.
	mu       sync.RWMutex
	sess     *ort.DynamicAdvancedSession
	opts     *ort.SessionOptions
	inNames  []string
	outNames []string
	tok      *hftok.Tokenizer // cross-encoders only
	// fixedBatch and fixedSeq are a cross-encoder's fixed input dimensions (0: dynamic).
	fixedBatch, fixedSeq int
}

var (
	_ engine.Scorer    = (*Scorer)(nil)
	_ engine.Describer = (*Scorer)(nil)
)

// Open loads the model in dir: its manifest, its ONNX graph (checked against the manifest)
// and, for a cross-encoder, its tokenizer.
func Open(_ context.Context, dir string, o Options) (*Scorer, error) {
	man, err := manifest.Load(dir)
	if err != nil {
		return nil, err
	}
	s := &Scorer{dir: dir, man: man}
	switch man.Family {
	case manifest.FamilyLineFeatures:
		if man.Features.Version != linefeat.Version || !slices.Equal(man.Features.Names, linefeat.Names) {
			differ := ""
			if man.Features.Version == linefeat.Version {
				// Same set, other names or order: say where they part.
				for i := range max(len(man.Features.Names), len(linefeat.Names)) {
					var got, want string
					if i < len(man.Features.Names) {
						got = man.Features.Names[i]
					}
					if i < len(linefeat.Names) {
						want = linefeat.Names[i]
					}
					if got != want {
						differ = fmt.Sprintf(", but its features.names[%d] is %q where this build computes %q", i, got, want)
						break
					}
				}
			}
			return nil, fmt.Errorf("%w: model %s was trained on features %q (%d), this build computes %q (%d)%s: retrain it with 'pruner train'",
				ErrShapeMismatch, man.Name, man.Features.Version, len(man.Features.Names), linefeat.Version, linefeat.NumFeatures, differ)
		}
		for kind := range man.Features.KindThresholds {
			if !slices.Contains(linefeat.Kinds, kind) {
				return nil, fmt.Errorf("%w: %s: kind_thresholds names kind %q; the kinds are %s",
					manifest.ErrInvalid, man.Name, kind, strings.Join(linefeat.Kinds, ", "))
			}
		}
	case manifest.FamilyCrossEncoder:
		tok, err := hftok.Load(filepath.Join(dir, man.CrossEncoder.Tokenizer))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrModel, err)
		}
		s.tok = tok
	}
	data, err := os.ReadFile(filepath.Join(dir, man.Model))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	if err := initRuntime(o.LibraryPath); err != nil {
		return nil, err
	}
	ins, outs, err := ort.GetInputOutputInfoWithONNXData(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrModel, filepath.Join(dir, man.Model), err)
	}
	if err := checkIO(man, ins, outs); err != nil {
		return nil, err
	}
	switch man.Family {
	case manifest.FamilyLineFeatures:
		// One row per line: a fixed row count would fail every request of another length.
		if in := man.Inputs[0]; fixedDim(in, ins, 0) > 0 {
			return nil, fmt.Errorf("%w: input %q has shape %v: a line-features model must take any number of rows",
				ErrShapeMismatch, in.Name, graphShape(in, ins))
		}
	case manifest.FamilyCrossEncoder:
		if s.fixedBatch, s.fixedSeq, err = crossEncoderDims(man, ins); err != nil {
			return nil, err
		}
	}
	for _, t := range man.Inputs {
		s.inNames = append(s.inNames, t.Name)
	}
	for _, t := range man.Outputs {
		s.outNames = append(s.outNames, t.Name)
	}
	if s.opts, err = ort.NewSessionOptions(); err != nil {
		return nil, fmt.Errorf("%w: session options: %v", ErrModel, err)
	}
	threads := o.IntraOpThreads
	if threads <= 0 {
		threads = 1
	}
	if err := s.opts.SetIntraOpNumThreads(threads); err != nil {
		s.Close()
		return nil, fmt.Errorf("%w: intra-op threads: %v", ErrModel, err)
	}
	if err := s.opts.SetInterOpNumThreads(1); err != nil {
		s.Close()
		return nil, fmt.Errorf("%w: inter-op threads: %v", ErrModel, err)
	}
	s.sess, err = ort.NewDynamicAdvancedSessionWithONNXData(data, s.inNames, s.outNames, s.opts)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrModel, filepath.Join(dir, man.Model), err)
	}
	return s, nil
}

// checkIO compares the graph's declared inputs and outputs with the manifest's.
func checkIO(man *manifest.Manifest, ins, outs []ort.InputOutputInfo) error {
	cmp := func(kind string, want []manifest.Tensor, got []ort.InputOutputInfo) error {
		// The graph's own names and shapes, so an operator can write the manifest from
		// the error (nothing here reads an export otherwise).
		declared := make([]string, len(got))
		for i, g := range got {
			declared[i] = fmt.Sprintf("%q %v", g.Name, g.Dimensions)
		}
		has := fmt.Sprintf("the graph's %ss are %s", kind, strings.Join(declared, ", "))
		if len(want) != len(got) {
			return fmt.Errorf("%w: the graph has %d %ss, the manifest lists %d (%s)", ErrShapeMismatch, len(got), kind, len(want), has)
		}
		for _, w := range want {
			i := slices.IndexFunc(got, func(g ort.InputOutputInfo) bool { return g.Name == w.Name })
			if i < 0 {
				return fmt.Errorf("%w: no %s %q in the graph (%s)", ErrShapeMismatch, kind, w.Name, has)
			}
			g := got[i]
			wantType := ort.TensorElementDataType(ort.TensorElementDataTypeFloat)
			if w.Type == "int64" {
				wantType = ort.TensorElementDataType(ort.TensorElementDataTypeInt64)
			}
			if g.OrtValueType != ort.ONNXTypeTensor || g.DataType != wantType {
				return fmt.Errorf("%w: %s %q is %s, the manifest says %s", ErrShapeMismatch, kind, w.Name, g.String(), w.Type)
			}
			if len(g.Dimensions) != len(w.Shape) {
				return fmt.Errorf("%w: %s %q has shape %v, the manifest says %v", ErrShapeMismatch, kind, w.Name, g.Dimensions, w.Shape)
			}
			for d, wd := range w.Shape {
				gd := g.Dimensions[d]
				if wd.Fixed() && gd >= 0 && gd != wd.Size {
					return fmt.Errorf("%w: %s %q has shape %v, the manifest says %v", ErrShapeMismatch, kind, w.Name, g.Dimensions, w.Shape)
				}
			}
		}
		return nil
	}
	if err := cmp("input", man.Inputs, ins); err != nil {
		return err
	}
	return cmp("output", man.Outputs, outs)
}

// fixedDim returns axis d of input t when the graph or the manifest fixes it, else 0.
// checkIO has already made sure the two agree where both are fixed.
func fixedDim(t manifest.Tensor, ins []ort.InputOutputInfo, d int) int {
	if g := graphShape(t, ins); g != nil && g[d] > 0 {
		return int(g[d])
	}
	if t.Shape[d].Fixed() && t.Shape[d].Size > 0 {
		return int(t.Shape[d].Size)
	}
	return 0
}

// graphShape returns input t's shape as the graph declares it (-1 for a symbolic axis).
func graphShape(t manifest.Tensor, ins []ort.InputOutputInfo) ort.Shape {
	for _, g := range ins {
		if g.Name == t.Name {
			return g.Dimensions
		}
	}
	return nil
}

// Manifest returns the model's manifest.
func (s *Scorer) Manifest() *manifest.Manifest { return s.man }

// Describe implements engine.Describer.
func (s *Scorer) Describe() engine.ScorerInfo {
	desc := s.man.Description
	if desc == "" {
		desc = s.man.Family + " ONNX model"
	}
	return engine.ScorerInfo{
		Name:        "onnx:" + s.dir,
		Description: fmt.Sprintf("%s (%s %s, %s)", desc, s.man.Name, s.man.Version, s.man.Family),
		Where:       "in-process",
		Threshold:   s.man.Threshold,
	}
}

// Close releases the session once the runs in flight have finished; Score then fails with
// ErrClosed. Closing again does nothing.
func (s *Scorer) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if s.sess != nil {
		errs = append(errs, s.sess.Destroy())
		s.sess = nil
	}
	if s.opts != nil {
		errs = append(errs, s.opts.Destroy())
		s.opts = nil
	}
	return errors.Join(errs...)
}

// Score implements engine.Scorer.
func (s *Scorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.closed() {
		return nil, fmt.Errorf("onnx: %s: %w", s.man.Name, ErrClosed)
	}
	if len(req.Lines) == 0 {
		return &engine.ScoreResponse{Scores: []float64{}}, nil
	}
	if s.man.Family == manifest.FamilyCrossEncoder {
		return s.scoreCrossEncoder(ctx, req)
	}
	m, err := linefeat.Compute(ctx, req)
	if err != nil {
		return nil, err
	}
	in, err := ort.NewTensor(ort.NewShape(int64(m.N), int64(linefeat.NumFeatures)), m.X)
	if err != nil {
		return nil, fmt.Errorf("onnx: input tensor: %w", err)
	}
	defer in.Destroy()
	outs := []ort.Value{nil}
	if err := s.run(ctx, []ort.Value{in}, outs); err != nil {
		return nil, err
	}
	defer outs[0].Destroy()
	raw, err := floatData(outs[0], m.N)
	if err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", s.man.Name, err)
	}
	scores := make([]float64, m.N)
	for i, v := range raw {
		f := float64(v)
		if math.IsNaN(f) || f < -1e-4 || f > 1+1e-4 {
			return nil, fmt.Errorf("onnx: %s scored line %d %v, outside [0, 1]", s.man.Name, i+1, f)
		}
		scores[i] = min(1, max(0, f))
	}
	resp := &engine.ScoreResponse{Scores: scores, Focus: m.Focus}
	if t, ok := s.man.Features.KindThresholds[m.Kind()]; ok {
		resp.Threshold = &t
	}
	return resp, nil
}

// closed reports whether Close has run.
func (s *Scorer) closed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.sess == nil
}

// run runs the session under the read lock, so Close cannot destroy it mid-run. The run
// stops at ctx's end: onnxruntime checks a terminate flag between graph nodes, which an
// AfterFunc sets, so a cancelled request frees its CPU (and the engine's slot) within one
// node's work instead of running the whole graph; the caller then gets ctx's error.
func (s *Scorer) run(ctx context.Context, in, out []ort.Value) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.sess == nil {
		return fmt.Errorf("onnx: %s: %w", s.man.Name, ErrClosed)
	}
	ro, err := ort.NewRunOptions()
	if err != nil {
		return fmt.Errorf("onnx: run options: %w", err)
	}
	// done keeps the AfterFunc from touching ro once the run is over and ro is destroyed:
	// stop cannot tell whether a func that has already started has finished.
	var mu sync.Mutex
	done := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			ro.Terminate()
		}
	})
	runErr := s.sess.RunWithOptions(in, out, ro)
	stop()
	mu.Lock()
	done = true
	mu.Unlock()
	ro.Destroy()
	if runErr != nil {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("onnx: run %s stopped: %w", s.man.Name, err)
		}
		return fmt.Errorf("onnx: run %s: %w", s.man.Name, runErr)
	}
	return nil
}

// floatData returns the float32 contents of an output that must hold exactly n values.
func floatData(v ort.Value, n int) ([]float32, error) {
	t, ok := v.(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("output is %T, want a float32 tensor", v)
	}
	d := t.GetData()
	if len(d) != n {
		return nil, fmt.Errorf("output has %d values (shape %v), want %d", len(d), t.GetShape(), n)
	}
	return d, nil
}

// ParseSpec splits the argument of "onnx:<dir>" (the only form today); it exists so cmd
// gives operators one clear error for a malformed spec.
func ParseSpec(arg string) (string, error) {
	dir := strings.TrimSpace(arg)
	if dir == "" {
		return "", fmt.Errorf("onnx scorer: want onnx:<model directory>, e.g. onnx:models/linerank")
	}
	return dir, nil
}
