// Package hftok tokenizes text with a Hugging Face tokenizer.json, in Go, for cross-encoder
// models: WordPiece (BERT, MiniLM rerankers) and byte-level BPE (RoBERTa, GPT-2 style)
// models, with the normalizers, pre-tokenizers and post-processors those tokenizers use.
// Added tokens, special or not, are cut out of the text as the crate does: on the raw text or,
// for normalized ones, on the normalized text, with their single_word, lstrip and rstrip flags.
// Pairs are truncated longest-first to a maximum length and padded by the caller's batching.
//
// A tokenizer.json using a component this package does not implement is rejected at Load
// with an error naming the component, never tokenized approximately.
//
// It imports golang.org/x/text's normalization and the standard library only.
package hftok

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ErrUnsupported is wrapped when a tokenizer.json uses a component not implemented here.
var ErrUnsupported = errors.New("unsupported tokenizer component")

// Tokenizer encodes text and text pairs to token ids. It is immutable and safe for
// concurrent use.
type Tokenizer struct {
	norm  []normalizer
	pre   []preTokenizer
	model model
	post  postProcessor
	padID int64
	// added maps every added token, special or not, to its id.
	added map[string]int64
	// raw and normalized are the added tokens the text is cut around before normalization
	// (normalized false) and after it (normalized true).
	raw, normalized *addedSet
}

// Encoding is one encoded sequence.
type Encoding struct {
	IDs     []int64
	TypeIDs []int64
}

type rawTokenizer struct {
	AddedTokens   []rawAddedToken `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Model         json.RawMessage `json:"model"`
	Padding       *struct {
		PadID int64 `json:"pad_id"`
	} `json:"padding"`
}

// Load reads a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

// Parse reads the contents of a tokenizer.json.
func Parse(b []byte) (*Tokenizer, error) {
	var raw rawTokenizer
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	t := &Tokenizer{added: map[string]int64{}}
	var err error
	if t.norm, err = parseNormalizer(raw.Normalizer); err != nil {
		return nil, err
	}
	if t.pre, err = parsePreTokenizer(raw.PreTokenizer); err != nil {
		return nil, err
	}
	if t.model, err = parseModel(raw.Model); err != nil {
		return nil, err
	}
	if err := t.parseAdded(raw.AddedTokens); err != nil {
		return nil, err
	}
	if t.post, err = parsePostProcessor(raw.PostProcessor, t); err != nil {
		return nil, err
	}
	switch {
	case raw.Padding != nil:
		t.padID = raw.Padding.PadID
	default:
		for _, name := range []string{"[PAD]", "<pad>", "<|endoftext|>"} {
			if id, ok := t.tokenID(name); ok {
				t.padID = id
				break
			}
		}
	}
	return t, nil
}

// PadID is the id used to pad a batch.
func (t *Tokenizer) PadID() int64 { return t.padID }

func (t *Tokenizer) tokenID(tok string) (int64, bool) {
	if id, ok := t.added[tok]; ok {
		return id, true
	}
	return t.model.id(tok)
}

// Tokens returns the ids of s without special tokens. As in the crate (AddedVocabulary's
// extract_and_normalize), s is cut around the added tokens that match the raw text; the text
// between them is normalized and cut around the added tokens that match normalized text; what
// is left is pre-tokenized and goes to the model, piece by piece. Added tokens bypass the
// model.
func (t *Tokenizer) Tokens(s string) []int64 {
	var out []int64
	// Most texts hold a few added tokens at most: the spans fit here without allocating.
	var outerBuf, innerBuf [8]span
	inner := innerBuf[:0]
	for _, sp := range t.raw.split(s, outerBuf[:0]) {
		if sp.added {
			out = append(out, sp.id)
			continue
		}
		text := t.normalize(s[sp.start:sp.end])
		inner = t.normalized.split(text, inner[:0])
		for _, in := range inner {
			if in.added {
				out = append(out, in.id)
				continue
			}
			out = t.appendModel(out, text[in.start:in.end])
		}
	}
	return out
}

func (t *Tokenizer) normalize(s string) string {
	for _, n := range t.norm {
		s = n(s)
	}
	return s
}

// appendModel appends the ids of text, which is normalized and not empty: split, which yields
// it, leaves empty text out, so that ByteLevel's add_prefix_space never makes a lone "Ġ" of
// one, as the crate prepends a space only to a non-empty text.
func (t *Tokenizer) appendModel(out []int64, text string) []int64 {
	words := []string{text}
	for _, p := range t.pre {
		var next []string
		for _, w := range words {
			next = append(next, p(w)...)
		}
		words = next
	}
	for _, w := range words {
		if w == "" {
			continue
		}
		out = append(out, t.model.tokenize(w)...)
	}
	return out
}

// EncodePair encodes (a, b) with the post-processor's special tokens, truncated longest-first
// as Hugging Face does (longestFirst) so that the whole fits maxLen tokens (maxLen <= 0: no
// limit).
func (t *Tokenizer) EncodePair(a, b string, maxLen int) Encoding {
	ta, tb := t.Tokens(a), t.Tokens(b)
	if maxLen > 0 {
		na, nb := longestFirst(len(ta), len(tb), max(0, maxLen-t.post.added(true)))
		ta, tb = ta[:na], tb[:nb]
	}
	return t.post.pair(ta, tb)
}

// longestFirst returns how many tokens of sides of na and nb tokens the crate's longest_first
// truncation keeps within budget (tokenizers/src/utils/truncation.rs): when the shorter side
// fits in half the budget it is kept whole and the longer gets the rest; otherwise each gets
// half, the odd token going to the longer side, or to b when they are as long.
func longestFirst(na, nb, budget int) (int, int) {
	if na+nb <= budget {
		return na, nb
	}
	short := min(na, nb)
	if 2*short > budget {
		short = budget / 2
	}
	long := budget - short
	if na > nb {
		return long, short
	}
	return short, long
}

// Encode encodes one sequence with special tokens, truncated to maxLen (<= 0: no limit).
func (t *Tokenizer) Encode(a string, maxLen int) Encoding {
	ta := t.Tokens(a)
	if maxLen > 0 {
		if budget := max(0, maxLen-t.post.added(false)); len(ta) > budget {
			ta = ta[:budget]
		}
	}
	return t.post.single(ta)
}
