package hftok

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expectations below are the Rust tokenizers crate's, the ground truth for
// tokenizer.json; the source file each follows is named in the case or the code.

func TestCleanText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"tab, newline and carriage return become spaces", "a\tb\nc\rd", "a b c d"},
		{"other whitespace becomes a space", "a\u00a0b\u3000c\u2003d", "a b c d"},
		{"vertical tab and form feed are controls, dropped", "a\vb\fc", "abc"},
		{"U+0085 is a control, dropped", "next\u0085line", "nextline"},
		{"NUL, U+FFFD and format characters are dropped", "a\x00b\ufffdc\u200bd\ufeffe\u00adf", "abcdef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, cleanText(tt.in))
		})
	}
}

func TestLowercase(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ASCII and Latin-1", "Hello ÀÉÖ", "hello àéö"},
		{"dotted capital I keeps its dot as a combining mark", "İstanbul", "i\u0307stanbul"},
		{"dotless i and plain I", "ıI", "ıi"},
		{"capital sigma is σ even at the end of a word", "ΟΔΟΣ", "οδοσ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, lowercase(tt.in))
		})
	}
}

// TestStripAccentsNormalizer follows the crate's tests of StripAccents (normalizers/strip.rs).
func TestStripAccentsNormalizer(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"combining marks after NFKD", "Me llamo\u0301", "Me llamo"},
		{"every mark of a run", "e\u0304\u0304\u0304o", "eo"},
		{"a precomposed letter is not decomposed", "café", "café"},
		{"spacing marks (Mc) go too", "हिन्दी", "हनद"},
		{"enclosing marks (Me) go too", "e\u20dd", "e"},
		{"Thai", "\u0e4d\u0e32\u0e19\u0e49", "\u0e32\u0e19"},
	}
	tok, err := Parse([]byte(`{"normalizer": {"type": "StripAccents"}, "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0}}}`))
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tok.norm[0](tt.in))
		})
	}
}

// TestWhitespaceSplit follows the crate's Whitespace, the regex \w+|[^\w\s]+ of the regex crate
// (pre_tokenizers/whitespace.rs), whose Unicode \w is Alphabetic, Mark, Nd, Pc, Join_Control.
func TestWhitespaceSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"the crate's examples", "How are you doing?", []string{"How", "are", "you", "doing", "?"}},
		{"punctuation runs", "Hey man!!, ok", []string{"Hey", "man", "!!,", "ok"}},
		{"only whitespace", "\n", nil},
		{"spacing marks are word characters", "हिन्दी", []string{"हिन्दी"}},
		{"enclosing marks are word characters", "e\u20dd!", []string{"e\u20dd", "!"}},
		{"letter numbers and circled letters are alphabetic", "Ⅻⓐx", []string{"Ⅻⓐx"}},
		{"connector punctuation is a word character", "a‿b＿c", []string{"a‿b＿c"}},
		{"the zero-width joiners are word characters, the zero-width space is not",
			"a\u200db\u200cc\u200bd", []string{"a\u200db\u200cc", "\u200b", "d"}},
		{"emoji are not", "go👍🏽now", []string{"go", "👍🏽", "now"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, whitespaceSplit(tt.in))
		})
	}
}

// TestSpaceCJK follows the crate's is_chinese_char ranges (normalizers/bert.rs), which the
// JavaScript port cannot check outside the BMP.
func TestSpaceCJK(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"unified ideographs", "a中b", "a 中 b"},
		{"compatibility ideographs", "豈", " 豈 "},
		{"extension B", "\U00020000x", " \U00020000 x"},
		{"extension E from U+2B920", "\U0002B920", " \U0002B920 "},
		{"not U+2B820-U+2B91F, outside the crate's extension E", "\U0002B820\U0002B91F", "\U0002B820\U0002B91F"},
		{"kana and hangul are not", "のテ한", "のテ한"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, spaceCJK(tt.in))
		})
	}
}
