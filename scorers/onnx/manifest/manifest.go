// Package manifest reads and writes model manifests (models/<name>/model.json): which model
// file a model directory holds, the input family, the graph's inputs and outputs with their
// shapes, the keep threshold and the version. It is pure Go so the trainer can write what the
// runtime scorer reads.
//
// It imports the standard library only.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// FileName is the manifest's name inside a model directory.
const FileName = "model.json"

// The input families.
const (
	// FamilyLineFeatures models map an [N, F] float32 feature matrix (package linefeat) to
	// [N] relevances.
	FamilyLineFeatures = "line-features"
	// FamilyCrossEncoder models read tokenized (goal, line-with-context) pairs and return a
	// relevance logit per pair.
	FamilyCrossEncoder = "cross-encoder"
)

// Roles of cross-encoder tensors.
const (
	RoleInputIDs      = "input_ids"
	RoleAttentionMask = "attention_mask"
	RoleTokenTypeIDs  = "token_type_ids"
	RoleFeatures      = "features"
	RoleScores        = "scores"
)

// ErrInvalid is wrapped by every manifest validation error.
var ErrInvalid = errors.New("invalid model manifest")

// Manifest describes one model directory.
type Manifest struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	Family      string `json:"family"`
	// Model is the ONNX file, relative to the manifest's directory (default "model.onnx").
	Model string `json:"model"`
	// Threshold is the default keep threshold on the scorer's [0, 1] scores.
	Threshold float64  `json:"threshold"`
	Inputs    []Tensor `json:"inputs"`
	Outputs   []Tensor `json:"outputs"`
	// Features is required for line-features models.
	Features *Features `json:"features,omitempty"`
	// CrossEncoder is required for cross-encoder models.
	CrossEncoder *CrossEncoder `json:"cross_encoder,omitempty"`
	// Training records how the model was made (free-form, for the card).
	Training map[string]any `json:"training,omitempty"`
}

// Tensor is a graph input or output.
type Tensor struct {
	Name string `json:"name"`
	// Role says what the scorer feeds or reads: features/scores for line-features models,
	// input_ids/attention_mask/token_type_ids/scores for cross-encoders.
	Role  string `json:"role"`
	Type  string `json:"type"` // "float32" or "int64"
	Shape []Dim  `json:"shape"`
}

// Dim is a dimension: a fixed size, or a symbolic name such as "N" or "batch".
type Dim struct {
	Size  int64
	Param string
}

// MarshalJSON writes a fixed size as a number and a symbolic one as a string.
func (d Dim) MarshalJSON() ([]byte, error) {
	if d.Param != "" {
		return json.Marshal(d.Param)
	}
	return json.Marshal(d.Size)
}

// UnmarshalJSON reads a number or a string.
func (d *Dim) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if s == "" {
			return fmt.Errorf("%w: empty dimension name", ErrInvalid)
		}
		d.Param, d.Size = s, 0
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 1 {
		return fmt.Errorf("%w: dimension %s is neither a name nor a positive integer", ErrInvalid, b)
	}
	d.Size, d.Param = n, ""
	return nil
}

// Fixed reports whether d has a fixed size.
func (d Dim) Fixed() bool { return d.Param == "" }

func (d Dim) String() string {
	if d.Param != "" {
		return d.Param
	}
	return strconv.FormatInt(d.Size, 10)
}

// Features names the feature set of a line-features model.
type Features struct {
	Version string   `json:"version"`
	Names   []string `json:"names"`
	// KindThresholds, optional, replace the manifest's Threshold for requests of a source
	// kind (the feature set's kinds: code_python, code_other, logs, docs): a model whose
	// experts are calibrated differently per kind keeps a comparable share of each in
	// threshold mode. Threshold stays the scorer's listed default and applies to kinds not
	// listed.
	KindThresholds map[string]float64 `json:"kind_thresholds,omitempty"`
}

// CrossEncoder configures tokenization and batching of a cross-encoder.
type CrossEncoder struct {
	// Tokenizer is a Hugging Face tokenizer.json, relative to the manifest's directory.
	Tokenizer string `json:"tokenizer"`
	// MaxLength bounds a pair's tokens, special tokens included (default 256).
	MaxLength int `json:"max_length"`
	// BatchSize is the number of pairs per run (default 32).
	BatchSize int `json:"batch_size"`
	// ContextLines is how many lines on each side accompany the scored line (default 0).
	ContextLines int `json:"context_lines"`
	// Activation turns the output into [0, 1]: "sigmoid" (default, for logits) or "none".
	Activation string `json:"activation"`
	// ScoreIndex picks the column of a [batch, k] output (default 0; use 1 for a
	// two-class head's "relevant" column with activation "softmax").
	ScoreIndex int `json:"score_index"`
}

// Load reads dir/model.json and validates it.
func Load(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("model manifest: %w", err)
	}
	var m Manifest
	// A misspelt field ("treshold", "max_len") would be dropped without a word and its
	// default used: refuse it, as the plugins file does.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrInvalid, filepath.Join(dir, FileName), err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w %s: data after the manifest's object", ErrInvalid, filepath.Join(dir, FileName))
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileName), err)
	}
	return &m, nil
}

// Marshal returns m as indented JSON with a final newline.
func (m *Manifest) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Validate checks the manifest is complete and self-consistent, and fills defaults.
func (m *Manifest) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	if m.Name == "" || m.Version == "" {
		return bad("name and version are required")
	}
	if m.Model == "" {
		m.Model = "model.onnx"
	}
	if !(m.Threshold >= 0 && m.Threshold <= 1) {
		return bad("threshold %v outside [0, 1]", m.Threshold)
	}
	for _, t := range append(append([]Tensor(nil), m.Inputs...), m.Outputs...) {
		if t.Name == "" || (t.Type != "float32" && t.Type != "int64") || len(t.Shape) == 0 {
			return bad("tensor %q needs a name, a type (float32 or int64) and a shape", t.Name)
		}
	}
	switch m.Family {
	case FamilyLineFeatures:
		if m.Features == nil || m.Features.Version == "" || len(m.Features.Names) == 0 {
			return bad("a line-features model needs features.version and features.names")
		}
		in, ok := m.ByRole(m.Inputs, RoleFeatures)
		if !ok || len(m.Inputs) != 1 || in.Type != "float32" || len(in.Shape) != 2 {
			return bad(`a line-features model takes one float32 input of shape [N, F] with role "features"`)
		}
		for kind, t := range m.Features.KindThresholds {
			if !(t >= 0 && t <= 1) {
				return bad("kind_thresholds[%q] %v outside [0, 1]", kind, t)
			}
		}
		if in.Shape[1].Fixed() && in.Shape[1].Size != int64(len(m.Features.Names)) {
			return bad("input %q has %d features, features.names lists %d", in.Name, in.Shape[1].Size, len(m.Features.Names))
		}
		out, ok := m.ByRole(m.Outputs, RoleScores)
		if !ok || len(m.Outputs) != 1 || out.Type != "float32" || len(out.Shape) < 1 || len(out.Shape) > 2 {
			return bad(`a line-features model returns one float32 output of shape [N] or [N, 1] with role "scores"`)
		}
	case FamilyCrossEncoder:
		ce := m.CrossEncoder
		if ce == nil || ce.Tokenizer == "" {
			return bad("a cross-encoder model needs cross_encoder.tokenizer")
		}
		if ce.MaxLength == 0 {
			ce.MaxLength = 256
		}
		if ce.BatchSize == 0 {
			ce.BatchSize = 32
		}
		if ce.Activation == "" {
			ce.Activation = "sigmoid"
		}
		if ce.MaxLength < 8 || ce.BatchSize < 1 || ce.ContextLines < 0 || ce.ScoreIndex < 0 {
			return bad("cross_encoder: max_length >= 8, batch_size >= 1, context_lines >= 0, score_index >= 0")
		}
		if ce.Activation != "sigmoid" && ce.Activation != "none" && ce.Activation != "softmax" {
			return bad("cross_encoder.activation %q: want sigmoid, softmax or none", ce.Activation)
		}
		if _, ok := m.ByRole(m.Inputs, RoleInputIDs); !ok {
			return bad(`a cross-encoder needs an input with role "input_ids"`)
		}
		for _, in := range m.Inputs {
			switch in.Role {
			case RoleInputIDs, RoleAttentionMask, RoleTokenTypeIDs:
				if in.Type != "int64" || len(in.Shape) != 2 {
					return bad("cross-encoder input %q must be int64 [batch, sequence]", in.Name)
				}
			default:
				return bad("cross-encoder input %q has unknown role %q", in.Name, in.Role)
			}
		}
		out, ok := m.ByRole(m.Outputs, RoleScores)
		if !ok || len(m.Outputs) != 1 || out.Type != "float32" || len(out.Shape) < 1 || len(out.Shape) > 2 {
			return bad(`a cross-encoder returns one float32 output of shape [batch] or [batch, k] with role "scores"`)
		}
		// Columns the output is declared to have: 1 for [batch], k for a fixed [batch, k].
		cols := int64(1)
		if len(out.Shape) == 2 {
			cols = -1
			if out.Shape[1].Fixed() {
				cols = out.Shape[1].Size
			}
		}
		if cols > 0 && int64(ce.ScoreIndex) >= cols {
			return bad("cross_encoder.score_index %d: output %q has %d column(s)", ce.ScoreIndex, out.Name, cols)
		}
		if cols == 1 && ce.Activation == "softmax" {
			return bad(`cross_encoder.activation "softmax" over output %q's one column scores every line 1: use "sigmoid" for a logit`, out.Name)
		}
	default:
		return bad("family %q: want %q or %q", m.Family, FamilyLineFeatures, FamilyCrossEncoder)
	}
	return nil
}

// ByRole returns the tensor of ts with the given role.
func (m *Manifest) ByRole(ts []Tensor, role string) (Tensor, bool) {
	for _, t := range ts {
		if t.Role == role {
			return t, true
		}
	}
	return Tensor{}, false
}
