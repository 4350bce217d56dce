package hftok

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expected ids follow from the fixture vocabularies by the Hugging Face algorithms:
// BERT normalisation (lowercase, accents stripped, CJK isolated), punctuation split,
// greedy longest-match WordPiece; GPT-2 regex split, byte-level map, rank-ordered merges.
func TestWordPiece(t *testing.T) {
	tok, err := Load("testdata/wordpiece.json")
	require.NoError(t, err)
	tests := []struct {
		name string
		in   string
		want []int64
	}{
		{"subwords and punctuation", "Find the bugs in Parser.", []int64{2, 4, 5, 6, 7, 8, 9, 10, 13, 3}},
		{"accents and CJK", "Café中", []int64{2, 14, 19, 3}},
		{"unknown word and identifier parts", "def foo_x():", []int64{2, 15, 1, 16, 17, 11, 12, 18, 3}},
		{"special token written in the text", "find [SEP] bug", []int64{2, 4, 3, 6, 3}},
		{"control characters and tabs", "find\tthe\x00 bug", []int64{2, 4, 5, 6, 3}},
		{"a dropped NUL joins words", "the\x00bug", []int64{2, 1, 3}},
		{"empty", "", []int64{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tok.Encode(tt.in, 0).IDs)
		})
	}
	e := tok.EncodePair("find the bug", "return x", 0)
	assert.Equal(t, []int64{2, 4, 5, 6, 3, 20, 17, 3}, e.IDs)
	assert.Equal(t, []int64{0, 0, 0, 0, 0, 1, 1, 1}, e.TypeIDs)
	// Longest first: the goal (7 tokens) is cut to fit 7 with the line's 2 and 3 specials.
	e = tok.EncodePair("find the bugs in parser", "return x", 7)
	assert.Equal(t, []int64{2, 4, 5, 3, 20, 17, 3}, e.IDs)
	assert.Equal(t, int64(0), tok.PadID())
}

func TestByteLevelBPE(t *testing.T) {
	tok, err := Load("testdata/bpe.json")
	require.NoError(t, err)
	assert.Equal(t, []int64{15, 20, 24, 23}, tok.Tokens("hello world's\n"))
	e := tok.EncodePair("hello", "world", 0)
	assert.Equal(t, []int64{0, 15, 2, 2, 9, 17, 6, 11, 2}, e.IDs)
	assert.Equal(t, []int64{0, 0, 0, 0, 0, 0, 0, 0, 0}, e.TypeIDs)
	assert.Equal(t, int64(1), tok.PadID())
	// A byte with no vocabulary entry becomes <unk>.
	assert.Equal(t, []int64{3}, tok.Tokens("z"))
}

func TestGPT2Split(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello world's  test\n", []string{"Hello", " world", "'s", " ", " test", "\n"}},
		{"x=1+22", []string{"x", "=", "1", "+", "22"}},
		{"a\n\nb", []string{"a", "\n", "\n", "b"}},
		{"  ", []string{"  "}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, gpt2Split(tt.in), "%q", tt.in)
	}
}

func TestUnsupported(t *testing.T) {
	_, err := Parse([]byte(`{"model": {"type": "Unigram", "vocab": []}}`))
	assert.ErrorIs(t, err, ErrUnsupported)
	_, err = Parse([]byte(`{"pre_tokenizer": {"type": "Metaspace"}, "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0}}}`))
	assert.ErrorIs(t, err, ErrUnsupported)
	// Options that change BPE's output and are read nowhere here.
	for _, opt := range []string{`"fuse_unk": true`, `"ignore_merges": true`, `"byte_fallback": true`} {
		_, err = Parse([]byte(`{"model": {"type": "BPE", ` + opt + `, "vocab": {"a": 0}, "merges": []}}`))
		assert.ErrorIs(t, err, ErrUnsupported, opt)
	}
	_, err = Parse([]byte(`{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {}}}`))
	assert.ErrorContains(t, err, "unk_token")
}

// An empty text, or one its normalizer empties, has no tokens even with ByteLevel's
// add_prefix_space: the crate's NormalizedString::prepend leaves an empty string empty.
func TestEmptyTextWithPrefixSpace(t *testing.T) {
	tok, err := Parse([]byte(`{"normalizer": {"type": "StripAccents"},
		"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": true},
		"model": {"type": "BPE", "vocab": {"Ġ": 0, "a": 1}, "merges": []}}`))
	require.NoError(t, err)
	assert.Empty(t, tok.Tokens(""))
	assert.Empty(t, tok.Tokens("\u0301"))
	assert.Equal(t, []int64{0, 1}, tok.Tokens("a"))
	assert.Equal(t, []int64{0, 1}, tok.EncodePair("a", "", 0).IDs)
}
