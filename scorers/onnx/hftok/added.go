package hftok

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rawAddedToken is one element of tokenizer.json's added_tokens. The flags are pointers
// because the crate requires every one of them (AddedToken derives Deserialize without
// defaults): a file that omits one does not load there, so there is nothing to reproduce.
type rawAddedToken struct {
	ID         int64  `json:"id"`
	Content    string `json:"content"`
	SingleWord *bool  `json:"single_word"`
	LStrip     *bool  `json:"lstrip"`
	RStrip     *bool  `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    *bool  `json:"special"`
}

// addedFlags are the flags of rawAddedToken, in order.
var addedFlags = []string{"single_word", "lstrip", "rstrip", "normalized", "special"}

// addedToken is an added token as one of the two passes looks for it.
type addedToken struct {
	pattern                    string // the content, normalized for a normalized token
	id                         int64
	singleWord, lstrip, rstrip bool
}

// addedSet is the added tokens one pass cuts the text around: the crate's split_trie (tokens
// with normalized false, matched on the raw text) or split_normalized_trie (normalized true,
// matched on the normalized text).
type addedSet struct {
	tokens []addedToken
	// byFirst lists, for each first byte, the tokens whose pattern starts with it, longest
	// first: the first that matches at a position is the longest match there.
	byFirst [256][]int32
}

func newAddedSet(tokens []addedToken) *addedSet {
	m := &addedSet{tokens: tokens}
	for i, tok := range tokens {
		b := tok.pattern[0]
		m.byFirst[b] = append(m.byFirst[b], int32(i))
	}
	for b := range m.byFirst {
		sort.SliceStable(m.byFirst[b], func(i, j int) bool {
			return len(tokens[m.byFirst[b][i]].pattern) > len(tokens[m.byFirst[b][j]].pattern)
		})
	}
	return m
}

// next returns the match aho-corasick's MatchKind::LeftmostLongest finds searching s from
// byte from: the one starting leftmost, the longest of those; k < 0 when there is none. The
// patterns of a set are distinct (Parse rejects duplicates), so there is no tie to break.
func (m *addedSet) next(s string, from int) (start, end, k int) {
	for i := from; i < len(s); i++ {
		for _, k := range m.byFirst[s[i]] {
			if p := m.tokens[k].pattern; strings.HasPrefix(s[i:], p) {
				return i, i + len(p), int(k)
			}
		}
	}
	return -1, -1, -1
}

// span is a stretch of a text: an added token (added, with its id) or text between them.
type span struct {
	start, end int
	id         int64
	added      bool
}

// split appends to dst the spans s is cut into around m's tokens, as the crate's find_matches
// (tokenizers/src/tokenizer/added_vocabulary.rs) does: matches are found left to right, each
// search resuming where the last match ended; a single_word token is dropped when a word
// character (regex \w) touches it within s; an lstrip token takes the whitespace (regex \s)
// before it, back to the end of the previous token, and an rstrip token the whitespace after
// it. Empty text spans are left out, as the crate drops empty splits.
func (m *addedSet) split(s string, dst []span) []span {
	if len(m.tokens) == 0 {
		if s == "" {
			return dst
		}
		return append(dst, span{start: 0, end: len(s)})
	}
	done := 0 // the crate's start_offset: where the last token's span ended
	for from := 0; ; {
		start, stop, k := m.next(s, from)
		if k < 0 {
			break
		}
		from = stop
		tok := &m.tokens[k]
		if tok.singleWord && (endsWithWord(s[:start]) || startsWithWord(s[stop:])) {
			continue
		}
		if tok.lstrip {
			start = max(len(strings.TrimRightFunc(s[:start], isSpace)), done)
		}
		if tok.rstrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], isSpace))
		}
		if done < start {
			dst = append(dst, span{start: done, end: start})
		}
		dst = append(dst, span{start: start, end: stop, id: tok.id, added: true})
		done = stop
	}
	if done < len(s) {
		dst = append(dst, span{start: done, end: len(s)})
	}
	return dst
}

// isSpace is the regex crate's \s: the White_Space property.
func isSpace(r rune) bool { return unicode.Is(unicode.White_Space, r) }

// wordClasses, with the letters, make up \w of Rust's regex crate: Alphabetic (letters, Nl,
// Other_Alphabetic and the Other_Lowercase and Other_Uppercase symbols), marks, decimal digits,
// connector punctuation and the zero-width (non-)joiner.
var wordClasses = []*unicode.RangeTable{unicode.Nl, unicode.Other_Alphabetic, unicode.Other_Lowercase,
	unicode.Other_Uppercase, unicode.M, unicode.Nd, unicode.Pc, unicode.Join_Control}

// isWord is the regex crate's \w, which the crate's Whitespace pre-tokenizer and single_word
// use.
func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.In(r, wordClasses...) }

func endsWithWord(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWord(r)
}

func startsWithWord(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWord(r)
}

// parseAdded reads added_tokens as the crate's deserializer does (tokenizer/serialization.rs
// adds them one by one, then added_vocabulary.rs's add_tokens and refresh_added_tokens build
// the two sets), into t.added, t.raw and t.normalized. The normalizer must be parsed first:
// a normalized token's pattern is its content normalized.
//
// What the crate would do in a way not reproduced here is rejected: a flag missing, the same
// content twice, an id other than the one the crate gives, two patterns of a pass alike, a
// normalized pattern the normalizer empties, and an rstrip token with a token that starts
// with whitespace in the same pass (the crate's spans then overlap).
func (t *Tokenizer) parseAdded(raw []rawAddedToken) error {
	var special, plain []addedToken // the crate's special_tokens, then added_tokens
	normalized := map[int64]bool{}
	byID := map[int64]string{}
	maxID := int64(-1)
	for _, a := range raw {
		for i, f := range []*bool{a.SingleWord, a.LStrip, a.RStrip, a.Normalized, a.Special} {
			if f == nil {
				return fmt.Errorf("added token %q: no %q (Hugging Face's tokenizers requires it)", a.Content, addedFlags[i])
			}
		}
		if a.Content == "" {
			continue // the crate ignores it
		}
		if _, dup := t.added[a.Content]; dup {
			return fmt.Errorf("%w: added token %q listed twice", ErrUnsupported, a.Content)
		}
		id, ok := t.model.id(a.Content)
		if !ok {
			// added_vocabulary.rs add_tokens: past the model's vocabulary and every added id.
			id = int64(t.model.size())
			if maxID >= 0 && (maxID >= id || id == 0) {
				id = maxID + 1
			}
		}
		if id != a.ID {
			return fmt.Errorf("%w: added token %q has id %d, where Hugging Face's tokenizers would give it %d",
				ErrUnsupported, a.Content, a.ID, id)
		}
		if other, dup := byID[id]; dup {
			return fmt.Errorf("%w: added tokens %q and %q share id %d", ErrUnsupported, other, a.Content, id)
		}
		byID[id] = a.Content
		t.added[a.Content] = id
		maxID = max(maxID, id)
		tok := addedToken{pattern: a.Content, id: id, singleWord: *a.SingleWord, lstrip: *a.LStrip, rstrip: *a.RStrip}
		if *a.Normalized {
			normalized[id] = true
			tok.pattern = t.normalize(a.Content)
			if tok.pattern == "" {
				return fmt.Errorf("%w: added token %q is empty once normalized", ErrUnsupported, a.Content)
			}
		}
		if *a.Special {
			special = append(special, tok)
		} else {
			plain = append(plain, tok)
		}
	}
	var rawSet, normSet []addedToken
	for _, tok := range append(special, plain...) {
		if normalized[tok.id] {
			normSet = append(normSet, tok)
		} else {
			rawSet = append(rawSet, tok)
		}
	}
	for _, set := range [][]addedToken{rawSet, normSet} {
		if err := checkAddedSet(set); err != nil {
			return err
		}
	}
	t.raw, t.normalized = newAddedSet(rawSet), newAddedSet(normSet)
	return nil
}

// checkAddedSet rejects the sets of one pass split could not cut as the crate does.
func checkAddedSet(set []addedToken) error {
	seen := map[string]bool{}
	var rstrip, spaced string
	for _, tok := range set {
		if seen[tok.pattern] {
			// Which of the two the crate's automaton reports is not reproduced.
			return fmt.Errorf("%w: two added tokens match %q", ErrUnsupported, tok.pattern)
		}
		seen[tok.pattern] = true
		if tok.rstrip {
			rstrip = tok.pattern
		}
		if r, _ := utf8.DecodeRuneInString(tok.pattern); isSpace(r) {
			spaced = tok.pattern
		}
	}
	if rstrip != "" && spaced != "" {
		return fmt.Errorf("%w: added token %q strips the whitespace on its right, where added token %q can start",
			ErrUnsupported, rstrip, spaced)
	}
	return nil
}
