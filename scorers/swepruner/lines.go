package swepruner

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// lineScores maps the server's answer onto our lines. Token scores, when their text
// reassembles the code exactly (plain or byte-level BPE spelling), give each line the mean
// score of its characters, as SWE-Pruner itself aggregates; kept_frags (1-based lines of
// Python's str.splitlines) then lift every line the server kept to at least the threshold,
// so its one-line gap filling survives. With unusable tokens, kept_frags alone give 1 or 0.
func lineScores(lines []string, code string, pr *pruneResponse, threshold float64) ([]float64, error) {
	starts := lineStarts(lines)
	scores := make([]float64, len(lines))
	tokens, err := decodeTokens(pr.TokenScores)
	if err != nil {
		return nil, err
	}
	fromTokens := false
	if offsets, ok := alignTokens(tokens, code); ok && len(tokens) > 0 {
		fromTokens = true
		sum := make([]float64, len(lines))
		n := make([]int, len(lines))
		for i, t := range tokens {
			// Each character of the token counts once toward its line's mean.
			for off := offsets[i]; off < offsets[i]+t.n; {
				_, size := utf8.DecodeRuneInString(code[off:])
				if code[off] != '\n' {
					li := lineAt(starts, off)
					sum[li] += t.score
					n[li]++
				}
				off += size
			}
		}
		for i := range scores {
			if n[i] > 0 {
				scores[i] = clamp(sum[i] / float64(n[i]))
			}
		}
	}
	if pr.KeptFrags == nil && !fromTokens {
		return nil, fmt.Errorf("%w: neither usable token_scores nor kept_frags", ErrBadAnswer)
	}
	py := engine.PyLineStarts(code)
	for _, k := range pr.KeptFrags {
		if k < 1 || k > len(py) {
			return nil, fmt.Errorf("%w: kept line %d of %d", ErrBadAnswer, k, len(py))
		}
		li := lineAt(starts, py[k-1])
		if fromTokens {
			scores[li] = math.Max(scores[li], threshold)
		} else {
			scores[li] = 1
		}
	}
	return scores, nil
}

type token struct {
	text  string // as it appears in the code
	n     int    // bytes in the code
	score float64
	raw   string // as the server spelled it
}

func decodeTokens(raw []json.RawMessage) ([]token, error) {
	out := make([]token, 0, len(raw))
	for i, r := range raw {
		var pair []json.RawMessage
		if err := json.Unmarshal(r, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("%w: token_scores[%d] is not [token, score]", ErrBadAnswer, i)
		}
		var t token
		if err := json.Unmarshal(pair[0], &t.raw); err != nil {
			return nil, fmt.Errorf("%w: token_scores[%d][0] is not a string", ErrBadAnswer, i)
		}
		if err := json.Unmarshal(pair[1], &t.score); err != nil || math.IsNaN(t.score) {
			return nil, fmt.Errorf("%w: token_scores[%d][1] is not a number", ErrBadAnswer, i)
		}
		t.score = clamp(t.score)
		out = append(out, t)
	}
	return out, nil
}

// alignTokens checks that the tokens spell the code, as text or as GPT-2 byte-level BPE
// symbols (Qwen's tokenizer: "Ġ" for a space, "Ċ" for a newline), and returns each
// token's byte offset into code.
func alignTokens(tokens []token, code string) ([]int, bool) {
	for _, spell := range []func(string) (string, bool){plain, byteLevel} {
		offsets := make([]int, len(tokens))
		off, ok := 0, true
		for i := range tokens {
			text, good := spell(tokens[i].raw)
			if !good || !strings.HasPrefix(code[off:], text) {
				ok = false
				break
			}
			tokens[i].text, tokens[i].n, offsets[i] = text, len(text), off
			off += len(text)
		}
		// A prefix is fine: the server truncates long inputs; uncovered lines score 0.
		if ok {
			return offsets, true
		}
	}
	return nil, false
}

func plain(s string) (string, bool) { return s, true }

// byteLevel undoes GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves,
// the other 68 bytes are shifted to U+0100 and up.
func byteLevel(s string) (string, bool) {
	var b []byte
	for _, r := range s {
		c, ok := byteOf[r]
		if !ok {
			return "", false
		}
		b = append(b, c)
	}
	return string(b), true
}

var byteOf = func() map[rune]byte {
	m := make(map[rune]byte, 256)
	next := rune(256)
	for c := 0; c < 256; c++ {
		if c >= '!' && c <= '~' || c >= 0xA1 && c <= 0xAC || c >= 0xAE && c <= 0xFF {
			m[rune(c)] = byte(c)
		} else {
			m[next] = byte(c)
			next++
		}
	}
	return m
}()

// lineStarts are the byte offsets of our lines in strings.Join(lines, "\n").
func lineStarts(lines []string) []int {
	starts := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
	}
	return starts
}

// lineAt is the index of the line containing byte offset off.
func lineAt(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
}

func clamp(v float64) float64 { return math.Max(0, math.Min(1, v)) }
