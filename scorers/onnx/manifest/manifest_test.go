package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const lineFeatures = `{
  "name": "m", "version": "1", "family": "line-features", "threshold": 0.3,
  "inputs": [{"name": "features", "role": "features", "type": "float32", "shape": ["N", 2]}],
  "outputs": [{"name": "relevance", "role": "scores", "type": "float32", "shape": ["N"]}],
  "features": {"version": "v", "names": ["a", "b"]}
}`

const crossEncoder = `{
  "name": "ce", "version": "2", "family": "cross-encoder", "threshold": 0.5,
  "inputs": [
    {"name": "input_ids", "role": "input_ids", "type": "int64", "shape": ["batch", "sequence"]},
    {"name": "attention_mask", "role": "attention_mask", "type": "int64", "shape": ["batch", "sequence"]}
  ],
  "outputs": [{"name": "logits", "role": "scores", "type": "float32", "shape": ["batch", 1]}],
  "cross_encoder": {"tokenizer": "tokenizer.json"}
}`

func write(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o644))
	return dir
}

func TestLoad(t *testing.T) {
	m, err := Load(write(t, lineFeatures))
	require.NoError(t, err)
	assert.Equal(t, FamilyLineFeatures, m.Family)
	assert.Equal(t, "model.onnx", m.Model, "default model file")
	assert.Equal(t, []Dim{{Param: "N"}, {Size: 2}}, m.Inputs[0].Shape)

	m, err = Load(write(t, crossEncoder))
	require.NoError(t, err)
	ce := m.CrossEncoder
	assert.Equal(t, 256, ce.MaxLength, "defaults filled")
	assert.Equal(t, 32, ce.BatchSize)
	assert.Equal(t, "sigmoid", ce.Activation)

	// Round trip: what Marshal writes, Load reads back identically.
	b, err := m.Marshal()
	require.NoError(t, err)
	again, err := Load(write(t, string(b)))
	require.NoError(t, err)
	assert.Equal(t, m, again)
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, body, match string
	}{
		{"not json", `{`, "invalid model manifest"},
		{"no version", `{"name": "m", "family": "line-features"}`, "name and version"},
		{"unknown family", `{"name": "m", "version": "1", "family": "magic", "inputs": [], "outputs": []}`, `family "magic"`},
		{"threshold out of range", `{"name": "m", "version": "1", "family": "line-features", "threshold": 2}`, "threshold"},
		{"feature count differs from names", `{
		  "name": "m", "version": "1", "family": "line-features",
		  "inputs": [{"name": "features", "role": "features", "type": "float32", "shape": ["N", 3]}],
		  "outputs": [{"name": "relevance", "role": "scores", "type": "float32", "shape": ["N"]}],
		  "features": {"version": "v", "names": ["a", "b"]}}`, "3 features"},
		{"cross-encoder without tokenizer", `{"name": "m", "version": "1", "family": "cross-encoder",
		  "inputs": [{"name": "input_ids", "role": "input_ids", "type": "int64", "shape": ["b", "s"]}],
		  "outputs": [{"name": "logits", "role": "scores", "type": "float32", "shape": ["b"]}]}`, "tokenizer"},
		{"cross-encoder float ids", `{"name": "m", "version": "1", "family": "cross-encoder",
		  "inputs": [{"name": "input_ids", "role": "input_ids", "type": "float32", "shape": ["b", "s"]}],
		  "outputs": [{"name": "logits", "role": "scores", "type": "float32", "shape": ["b"]}],
		  "cross_encoder": {"tokenizer": "t.json"}}`, "int64"},
		{"kind threshold out of range", `{
		  "name": "m", "version": "1", "family": "line-features",
		  "inputs": [{"name": "features", "role": "features", "type": "float32", "shape": ["N", 2]}],
		  "outputs": [{"name": "relevance", "role": "scores", "type": "float32", "shape": ["N"]}],
		  "features": {"version": "v", "names": ["a", "b"], "kind_thresholds": {"logs": 1.5}}}`, `kind_thresholds["logs"]`},
		// An operator's slips that loaded and then failed every request, or silently did
		// something else than asked.
		{"misspelt field", `{"name": "m", "version": "1", "family": "line-features", "treshold": 0.9}`, `unknown field "treshold"`},
		{"score_index past the output's columns", `{"name": "m", "version": "1", "family": "cross-encoder",
		  "inputs": [{"name": "input_ids", "role": "input_ids", "type": "int64", "shape": ["b", "s"]}],
		  "outputs": [{"name": "logits", "role": "scores", "type": "float32", "shape": ["b", 1]}],
		  "cross_encoder": {"tokenizer": "t.json", "score_index": 3}}`, "score_index 3"},
		{"score_index on a [batch] output", `{"name": "m", "version": "1", "family": "cross-encoder",
		  "inputs": [{"name": "input_ids", "role": "input_ids", "type": "int64", "shape": ["b", "s"]}],
		  "outputs": [{"name": "logits", "role": "scores", "type": "float32", "shape": ["b"]}],
		  "cross_encoder": {"tokenizer": "t.json", "score_index": 1}}`, "1 column"},
		{"softmax over one column", `{"name": "m", "version": "1", "family": "cross-encoder",
		  "inputs": [{"name": "input_ids", "role": "input_ids", "type": "int64", "shape": ["b", "s"]}],
		  "outputs": [{"name": "logits", "role": "scores", "type": "float32", "shape": ["b", 1]}],
		  "cross_encoder": {"tokenizer": "t.json", "activation": "softmax"}}`, "every line 1"},
		{"bad dimension", `{"name": "m", "version": "1", "family": "line-features",
		  "inputs": [{"name": "features", "role": "features", "type": "float32", "shape": ["N", -1]}]}`, "dimension"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, tt.body))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tt.match)
		})
	}
	_, err := Load(t.TempDir())
	assert.ErrorIs(t, err, os.ErrNotExist)
}
