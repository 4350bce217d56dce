package hftok

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testAdded is an added token and its flags: s single_word, l lstrip, r rstrip, n normalized,
// x special.
type testAdded struct {
	content string
	flags   string
}

// addedTokenizer is a tokenizer with the added tokens given, the normalizer given (nil: none),
// no pre-tokenizer and a WordPiece model whose vocabulary is [UNK] and the pieces: a piece of
// text the added tokens leave goes whole to the model, so its id tells which piece it was.
func addedTokenizer(t *testing.T, normalizer any, added []testAdded, pieces []string) (*Tokenizer, map[string]int64) {
	t.Helper()
	vocab := map[string]int64{"[UNK]": 0}
	for _, p := range pieces {
		if _, ok := vocab[p]; !ok {
			vocab[p] = int64(len(vocab))
		}
	}
	ids := map[string]int64{}
	var list []map[string]any
	next := int64(len(vocab))
	for _, a := range added {
		id, ok := vocab[a.content]
		if !ok {
			id = next
			next++
		}
		ids[a.content] = id
		has := func(c rune) bool { return strings.ContainsRune(a.flags, c) }
		list = append(list, map[string]any{"id": id, "content": a.content, "single_word": has('s'),
			"lstrip": has('l'), "rstrip": has('r'), "normalized": has('n'), "special": has('x')})
	}
	js, err := json.Marshal(map[string]any{"added_tokens": list, "normalizer": normalizer,
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab}})
	require.NoError(t, err)
	tok, err := Parse(js)
	require.NoError(t, err)
	return tok, ids
}

// TestAddedTokens: the first five cases are the crate's own tests of AddedVocabulary
// (tokenizers/src/tokenizer/added_vocabulary.rs: can_extract_added_tokens, options_use_cases,
// test_single_word_is_correct, test_single_word_is_unicode_correct, test_lstrip_unicode_space),
// with the pieces they expect; the others pin what follows from the same code.
func TestAddedTokens(t *testing.T) {
	lower := map[string]any{"type": "Lowercase"}
	mask := func(flags string) []testAdded { return []testAdded{{"<mask>", flags}} }
	tests := []struct {
		name  string
		norm  any
		added []testAdded
		in    string
		want  []string // added tokens by content, then the pieces of text left between them
	}{
		{"crate: can_extract_added_tokens", nil,
			[]testAdded{{"my", "n"}, {"name", "n"}, {"[CLS]", "x"}, {"[SEP]", "x"}},
			"[CLS] My name is Anthony [SEP]", []string{"[CLS]", " My ", "name", " is Anthony ", "[SEP]"}},
		{"crate: options_use_cases", lower,
			[]testAdded{{"my", "lrn"}, {"name", "n"}, {"ony", "sn"}, {"[CLS]", "x"}, {"[SEP]", "x"}},
			"[CLS] My name is Anthony [SEP]", []string{"[CLS]", "my", "name", " is anthony ", "[SEP]"}},
		{"crate: test_single_word_is_correct", lower, mask("sn"),
			"<mask> My name <mask> A<mask> <mask>ony <mask>",
			[]string{"<mask>", " my name ", "<mask>", " a<mask> <mask>ony ", "<mask>"}},
		{"crate: test_single_word_is_unicode_correct", lower, mask("sn"),
			"<mask>, <mask>- \u25cc\u0330<mask>", []string{"<mask>", ", ", "<mask>", "- \u25cc\u0330<mask>"}},
		{"crate: test_lstrip_unicode_space", lower, mask("lrsn"),
			"Hi <mask> there\t<mask>\t<mask>\u2000", []string{"hi", "<mask>", "there", "<mask>", "<mask>"}},
		{"raw tokens are cut out before normalized ones", nil,
			[]testAdded{{"ab", ""}, {"abc", "n"}}, "abcabc", []string{"ab", "c", "ab", "c"}},
		{"a normalized token matches the normalized text, a raw one the raw text", lower,
			[]testAdded{{"Foo", ""}, {"Bar", "n"}}, "Foo FOO foo BAR bar",
			[]string{"Foo", " foo foo ", "Bar", " ", "Bar"}},
		{"a normalized special token too", lower,
			[]testAdded{{"[X]", "nx"}}, "a[X]b[x]", []string{"a", "[X]", "b", "[X]"}},
		{"leftmost, then longest", nil,
			[]testAdded{{"ab", ""}, {"bcd", ""}, {"<co", ""}, {"<code>", ""}},
			"abcd <code><cod", []string{"ab", "cd ", "<code>", "<co", "d"}},
		{"a dropped single_word match still takes its text", nil,
			[]testAdded{{"abc", "s"}, {"bc", ""}}, "xabc abc", []string{"xabc ", "abc"}},
		{"single_word at the edge of a piece", lower,
			[]testAdded{{"<t>", "x"}, {"ab", "sn"}}, "<t>ab<t>xab", []string{"<t>", "ab", "<t>", "xab"}},
		{"lstrip stops at the previous token", nil,
			[]testAdded{{"<a>", "r"}, {"<b>", "l"}}, " <a>  <b> x ", []string{" ", "<a>", "<b>", " x "}},
		{"repeated", nil, mask("lr"), "<mask><mask> <mask>", []string{"<mask>", "<mask>", "<mask>"}},
		{"inside words", lower, []testAdded{{"Code", "n"}}, "encoded CODES", []string{"en", "Code", "d ", "Code", "s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, ids := addedTokenizer(t, tt.norm, tt.added, tt.want)
			var want []int64
			for _, p := range tt.want {
				if id, ok := ids[p]; ok {
					want = append(want, id)
				} else {
					want = append(want, tok.model.(*wordPiece).vocab[p])
				}
			}
			assert.Equal(t, want, tok.Tokens(tt.in))
		})
	}
}

// A non-special added token is one token, whatever the model would make of its text.
func TestAddedTokenBypassesModel(t *testing.T) {
	tok, err := Load("testdata/wordpiece.json")
	require.NoError(t, err)
	before := tok.Tokens("find <code> bug")
	require.Greater(t, len(before), 3)

	tok, ids := addedTokenizer(t, map[string]any{"type": "BertNormalizer", "clean_text": true,
		"handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		[]testAdded{{"[CLS]", "x"}, {"<Code>", "n"}, {"GoLang", ""}}, []string{"find ", " bug "})
	assert.Equal(t, []int64{1, ids["<Code>"], 2, ids["GoLang"]}, tok.Tokens("find <CODE> bug GoLang"))
	assert.Equal(t, []int64{ids["[CLS]"], 0}, tok.Tokens("[CLS]golang"), "GoLang is matched on the raw text")
}

func TestAddedTokensRejected(t *testing.T) {
	model := `"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}`
	flags := `"single_word": false, "lstrip": false, "normalized": %s, "special": false`
	tests := []struct {
		name, json, err string
	}{
		{"a flag missing", `{"added_tokens": [{"id": 2, "content": "<x>", "single_word": false, "lstrip": false,
			"normalized": false, "special": false}], ` + model + `}`, `no "rstrip"`},
		{"an id the crate would not give", `{"added_tokens": [{"id": 7, "content": "<x>", "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false, "special": false}], ` + model + `}`,
			"would give it 2"},
		{"a content in the vocabulary with another id", `{"added_tokens": [{"id": 2, "content": "a",
			"single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false}], ` + model + `}`,
			"would give it 1"},
		{"twice", `{"added_tokens": [
			{"id": 2, "content": "<x>", "rstrip": false, ` + fmt.Sprintf(flags, "false") + `},
			{"id": 2, "content": "<x>", "rstrip": false, ` + fmt.Sprintf(flags, "true") + `}], ` + model + `}`, "twice"},
		{"normalized to nothing", `{"normalizer": {"type": "StripAccents"}, "added_tokens": [
			{"id": 2, "content": "\u0301", "rstrip": false, ` + fmt.Sprintf(flags, "true") + `}], ` + model + `}`,
			"empty once normalized"},
		{"two normalized alike", `{"normalizer": {"type": "Lowercase"}, "added_tokens": [
			{"id": 2, "content": "<X>", "rstrip": false, ` + fmt.Sprintf(flags, "true") + `},
			{"id": 3, "content": "<x>", "rstrip": false, ` + fmt.Sprintf(flags, "true") + `}], ` + model + `}`,
			`two added tokens match "<x>"`},
		{"rstrip with a token starting with a space", `{"added_tokens": [
			{"id": 2, "content": "<x>", "rstrip": true, ` + fmt.Sprintf(flags, "false") + `},
			{"id": 3, "content": " y", "rstrip": false, ` + fmt.Sprintf(flags, "false") + `}], ` + model + `}`,
			"strips the whitespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.json))
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.err)
		})
	}
	// Apart, the last two are fine: the normalized pass has no rstrip token.
	_, err := Parse([]byte(`{"added_tokens": [
		{"id": 2, "content": "<x>", "rstrip": true, ` + fmt.Sprintf(flags, "false") + `},
		{"id": 3, "content": " y", "rstrip": false, ` + fmt.Sprintf(flags, "true") + `}], ` + model + `}`))
	assert.NoError(t, err)
}
