package hftok

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// model maps one pre-token to ids.
type model interface {
	tokenize(word string) []int64
	id(tok string) (int64, bool)
}

func parseModel(raw json.RawMessage) (model, error) {
	var t typed
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	switch t.Type {
	case "WordPiece":
		var c struct {
			UnkToken                string           `json:"unk_token"`
			ContinuingSubwordPrefix string           `json:"continuing_subword_prefix"`
			MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
			Vocab                   map[string]int64 `json:"vocab"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("WordPiece model: %w", err)
		}
		unk, ok := c.Vocab[c.UnkToken]
		if !ok {
			return nil, fmt.Errorf("WordPiece model: unk_token %q not in the vocabulary", c.UnkToken)
		}
		if c.MaxInputCharsPerWord == 0 {
			c.MaxInputCharsPerWord = 100
		}
		return &wordPiece{vocab: c.Vocab, unk: unk, prefix: c.ContinuingSubwordPrefix, maxChars: c.MaxInputCharsPerWord}, nil
	case "BPE":
		var c struct {
			UnkToken *string          `json:"unk_token"`
			Vocab    map[string]int64 `json:"vocab"`
			Merges   json.RawMessage  `json:"merges"`
			Prefix   *string          `json:"continuing_subword_prefix"`
			Suffix   *string          `json:"end_of_word_suffix"`
			ByteFB   bool             `json:"byte_fallback"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("BPE model: %w", err)
		}
		if (c.Prefix != nil && *c.Prefix != "") || (c.Suffix != nil && *c.Suffix != "") || c.ByteFB {
			return nil, fmt.Errorf("%w: BPE with a subword prefix, a word suffix or byte fallback", ErrUnsupported)
		}
		merges, err := parseMerges(c.Merges)
		if err != nil {
			return nil, err
		}
		b := &bpe{vocab: c.Vocab, ranks: make(map[[2]string]int, len(merges)), unk: -1}
		for i, m := range merges {
			if _, dup := b.ranks[m]; !dup {
				b.ranks[m] = i
			}
		}
		if c.UnkToken != nil {
			if id, ok := c.Vocab[*c.UnkToken]; ok {
				b.unk = id
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("%w: model %q", ErrUnsupported, t.Type)
}

// parseMerges accepts both forms tokenizer.json uses: ["a b", ...] and [["a", "b"], ...].
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	var flat []string
	if err := json.Unmarshal(raw, &flat); err == nil {
		out := make([][2]string, 0, len(flat))
		for _, m := range flat {
			a, b, ok := strings.Cut(m, " ")
			if !ok {
				return nil, fmt.Errorf("BPE merge %q is not two symbols", m)
			}
			out = append(out, [2]string{a, b})
		}
		return out, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("BPE merges: %w", err)
	}
	return pairs, nil
}

type wordPiece struct {
	vocab    map[string]int64
	unk      int64
	prefix   string
	maxChars int
}

func (w *wordPiece) id(tok string) (int64, bool) {
	id, ok := w.vocab[tok]
	return id, ok
}

// tokenize is greedy longest-match-first; a word with an unmatchable rest is one unk.
func (w *wordPiece) tokenize(word string) []int64 {
	if utf8.RuneCountInString(word) > w.maxChars {
		return []int64{w.unk}
	}
	var out []int64
	for start := 0; start < len(word); {
		end := len(word)
		found := int64(-1)
		for end > start {
			sub := word[start:end]
			if start > 0 {
				sub = w.prefix + sub
			}
			if id, ok := w.vocab[sub]; ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if found < 0 {
			return []int64{w.unk}
		}
		out = append(out, found)
		start = end
	}
	return out
}

type bpe struct {
	vocab map[string]int64
	ranks map[[2]string]int
	unk   int64
}

func (b *bpe) id(tok string) (int64, bool) {
	id, ok := b.vocab[tok]
	return id, ok
}

// tokenize applies merges by rank, lowest first, until none applies.
func (b *bpe) tokenize(word string) []int64 {
	syms := make([]string, 0, len(word))
	for _, r := range word {
		syms = append(syms, string(r))
	}
	for len(syms) > 1 {
		best, at := -1, -1
		for i := 0; i+1 < len(syms); i++ {
			if r, ok := b.ranks[[2]string{syms[i], syms[i+1]}]; ok && (best < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		pair := [2]string{syms[at], syms[at+1]}
		merged := syms[:0:0]
		for i := 0; i < len(syms); i++ {
			if i+1 < len(syms) && syms[i] == pair[0] && syms[i+1] == pair[1] {
				merged = append(merged, pair[0]+pair[1])
				i++
				continue
			}
			merged = append(merged, syms[i])
		}
		syms = merged
	}
	out := make([]int64, 0, len(syms))
	for _, s := range syms {
		if id, ok := b.vocab[s]; ok {
			out = append(out, id)
		} else if b.unk >= 0 {
			out = append(out, b.unk)
		}
	}
	return out
}
