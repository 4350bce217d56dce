package hftok

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// model maps one pre-token to ids.
type model interface {
	tokenize(word string) []int64
	id(tok string) (int64, bool)
	// size is the number of tokens in the vocabulary, which the crate numbers added tokens
	// from.
	size() int
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
			FuseUnk  bool             `json:"fuse_unk"`
			IgnoreM  bool             `json:"ignore_merges"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("BPE model: %w", err)
		}
		if (c.Prefix != nil && *c.Prefix != "") || (c.Suffix != nil && *c.Suffix != "") || c.ByteFB || c.FuseUnk || c.IgnoreM {
			return nil, fmt.Errorf("%w: BPE with a subword prefix, a word suffix, byte fallback, fuse_unk or ignore_merges", ErrUnsupported)
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

func (w *wordPiece) size() int { return len(w.vocab) }

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

func (b *bpe) size() int { return len(b.vocab) }

func (b *bpe) id(tok string) (int64, bool) {
	id, ok := b.vocab[tok]
	return id, ok
}

// tokenize splits word into runes, applies the merges (mergeAll) and maps the symbols to ids.
func (b *bpe) tokenize(word string) []int64 {
	syms := b.mergeAll(word)
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

// mergeAll applies the merges to word's runes in rounds: each round takes the lowest-ranked
// pair present and merges every occurrence of it, left to right without overlap, and the
// rounds repeat until no adjacent pair has a rank.
//
// The symbols form a linked list over the runes and every ranked adjacent pair sits in a
// min-heap keyed by (rank, position), as in the Hugging Face tokenizers crate (word.rs
// merge_all), so a word of n runes costs O(n log n) rather than a rescan per merge.
// Unlike the crate, pairs a round creates enter the heap only when the round ends: with a
// merges list where a merge's result takes part in a lower-ranked merge (which training
// never produces) the crate would interleave the two, while the rounds here keep the
// result of rescanning the word after every merge.
func (b *bpe) mergeAll(word string) []string {
	if !utf8.ValidString(word) {
		// Each invalid byte is a symbol U+FFFD of its own, as ranging over the string gives.
		var sb strings.Builder
		for _, r := range word {
			sb.WriteRune(r)
		}
		word = sb.String()
	}
	// Symbol i is word[syms[i].start:syms[i].end]; an absorbed symbol has end == start.
	var syms []bpeSym
	for i, r := range word {
		syms = append(syms, bpeSym{start: i, end: i + utf8.RuneLen(r), prev: len(syms) - 1, next: len(syms) + 1})
	}
	if len(syms) == 0 {
		return []string{}
	}
	syms[len(syms)-1].next = -1
	// rankAt is the rank of the pair starting at symbol i, or -1.
	rankAt := func(i int) int {
		j := syms[i].next
		if j < 0 {
			return -1
		}
		if r, ok := b.ranks[[2]string{word[syms[i].start:syms[i].end], word[syms[j].start:syms[j].end]}]; ok {
			return r
		}
		return -1
	}
	h := make(pairHeap, 0, len(syms))
	for i := range syms {
		if r := rankAt(i); r >= 0 {
			h = append(h, pairAt{rank: r, pos: i})
		}
	}
	heap.Init(&h)
	var touched []int
	for h.Len() > 0 {
		round := -1
		for h.Len() > 0 && (round < 0 || h[0].rank == round) {
			p := heap.Pop(&h).(pairAt)
			// A stale entry: its left symbol was absorbed, or either side has grown since.
			if syms[p.pos].end == syms[p.pos].start || rankAt(p.pos) != p.rank {
				continue
			}
			round = p.rank
			i, j := p.pos, syms[p.pos].next
			syms[i].end = syms[j].end
			syms[j].end = syms[j].start
			syms[i].next = syms[j].next
			if k := syms[j].next; k >= 0 {
				syms[k].prev = i
			}
			if k := syms[i].prev; k >= 0 {
				touched = append(touched, k)
			}
			touched = append(touched, i)
		}
		// The pairs this round made join the heap only now, so a lower-ranked one cannot
		// cut in before the round has merged every occurrence.
		for _, i := range touched {
			if syms[i].end == syms[i].start {
				continue
			}
			if r := rankAt(i); r >= 0 {
				heap.Push(&h, pairAt{rank: r, pos: i})
			}
		}
		touched = touched[:0]
	}
	out := make([]string, 0, len(syms))
	for i := 0; i >= 0; i = syms[i].next {
		out = append(out, word[syms[i].start:syms[i].end])
	}
	return out
}

type bpeSym struct{ start, end, prev, next int }

// pairAt is a mergeable pair: the symbol at pos and the one after it.
type pairAt struct{ rank, pos int }

// pairHeap orders pairs by rank, then by position, so equal ranks merge left to right.
type pairHeap []pairAt

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairAt)) }
func (h *pairHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}
