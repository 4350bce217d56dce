package hftok

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceMerge is the rescanning BPE that mergeAll replaced, kept as the oracle: each round
// finds the lowest-ranked pair (the leftmost on a tie) and rebuilds the word with every
// occurrence of it merged.
func referenceMerge(ranks map[[2]string]int, word string) []string {
	syms := make([]string, 0, len(word))
	for _, r := range word {
		syms = append(syms, string(r))
	}
	for len(syms) > 1 {
		best, at := -1, -1
		for i := 0; i+1 < len(syms); i++ {
			if r, ok := ranks[[2]string{syms[i], syms[i+1]}]; ok && (best < 0 || r < best) {
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
	return syms
}

// randomRanks builds merges over alphabet: a trained-looking list (results only merge later)
// when wellFormed, otherwise any pairs of known symbols in any order, so a merge's result may
// take part in a lower-ranked merge.
func randomRanks(r *rand.Rand, alphabet []string, n int, wellFormed bool) map[[2]string]int {
	syms := append([]string(nil), alphabet...)
	var pairs [][2]string
	for len(pairs) < n {
		pick := func() string { // mostly short symbols, so the merges apply often
			if r.Intn(2) == 0 {
				return alphabet[r.Intn(len(alphabet))]
			}
			return syms[r.Intn(len(syms))]
		}
		p := [2]string{pick(), pick()}
		pairs = append(pairs, p)
		syms = append(syms, p[0]+p[1])
	}
	if !wellFormed {
		r.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	}
	ranks := make(map[[2]string]int, len(pairs))
	for i, p := range pairs {
		if _, dup := ranks[p]; !dup {
			ranks[p] = i
		}
	}
	return ranks
}

func randomWord(r *rand.Rand, alphabet []string, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteString(alphabet[r.Intn(len(alphabet))])
	}
	return sb.String()
}

func TestMergeAllMatchesReference(t *testing.T) {
	tests := []struct {
		name  string
		ranks map[[2]string]int
		words []string
	}{
		{"repeated pair", map[[2]string]int{{"a", "a"}: 0}, []string{"", "a", "aa", "aaa", "aaaa", "aaaaa", "baaab"}},
		{"repeated pair then its doubles", map[[2]string]int{{"a", "a"}: 0, {"aa", "aa"}: 1, {"aa", "a"}: 2},
			[]string{"aaaa", "aaaaa", "aaaaaaa", "aaaaaaaaaaa"}},
		{"result joins a lower-ranked merge", map[[2]string]int{{"ab", "a"}: 0, {"a", "b"}: 1},
			[]string{"abab", "ababab", "aba", "abba"}},
		{"merges create new pairs", map[[2]string]int{{"a", "b"}: 0, {"ab", "c"}: 1, {"c", "abc"}: 2, {"b", "c"}: 3},
			[]string{"abcabc", "cabc", "bcabcab", "ccabcabcc"}},
		{"overlapping candidates of different rank", map[[2]string]int{{"b", "c"}: 0, {"a", "b"}: 1},
			[]string{"abc", "abcabc", "ababc"}},
		{"multibyte and invalid UTF-8", map[[2]string]int{{"é", "t"}: 0, {"\uFFFD", "\uFFFD"}: 1, {"Ġ", "été"}: 2, {"t", "é"}: 3},
			[]string{"été", "Ġété", "a\xff\xfeb", "\xffé\xc3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &bpe{ranks: tt.ranks}
			for _, w := range tt.words {
				assert.Equal(t, referenceMerge(tt.ranks, w), b.mergeAll(w), "%q", w)
			}
		})
	}
}

func TestMergeAllRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for round := 0; round < 300; round++ {
		alphabet := []string{"a", "b", "c", "d", "é", "Ġ"}[:2+r.Intn(5)]
		ranks := randomRanks(r, alphabet, 1+r.Intn(60), round%2 == 0)
		b := &bpe{ranks: ranks}
		for k := 0; k < 30; k++ {
			w := randomWord(r, alphabet, r.Intn(40))
			require.Equal(t, referenceMerge(ranks, w), b.mergeAll(w), "round %d, word %q, ranks %v", round, w, ranks)
		}
	}
}

// The fixture's real merges on real text, through the byte-level pre-tokenizer.
func TestMergeAllFixture(t *testing.T) {
	tok, err := Load("testdata/bpe.json")
	require.NoError(t, err)
	b := tok.model.(*bpe)
	text := "hello world's\n hello, helloworld worldhello  wor ld lo lol hehe ll"
	for _, w := range gpt2Split(text) {
		w = byteLevel(w)
		assert.Equal(t, referenceMerge(b.ranks, w), b.mergeAll(w), "%q", w)
	}
	long, _ := longWordTokenizer(t)
	lb := long.model.(*bpe)
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{1, 2, 3, 17, 100, 1000, 3000} {
		w := randomWord(r, strings.Split("abcdefghijklmnopqrstuvwxyz", ""), n)
		assert.Equal(t, referenceMerge(lb.ranks, w), lb.mergeAll(w), "%d letters", n)
	}
}

// longWordTokenizer is a byte-level BPE with 26 letters, all 676 bigram merges and 20k
// random 4-gram merges, as a real 50k vocabulary has many; it returns the letters too.
func longWordTokenizer(tb testing.TB) (*Tokenizer, string) {
	tb.Helper()
	const letters = "abcdefghijklmnopqrstuvwxyz"
	vocab := map[string]int64{"<unk>": 0}
	add := func(s string) {
		if _, ok := vocab[s]; !ok {
			vocab[s] = int64(len(vocab))
		}
	}
	var merges, bigrams []string
	for _, a := range letters {
		add(string(a))
	}
	for _, a := range letters {
		for _, b := range letters {
			merges = append(merges, fmt.Sprintf("%q", string(a)+" "+string(b)))
			add(string(a) + string(b))
			bigrams = append(bigrams, string(a)+string(b))
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		x, y := bigrams[r.Intn(len(bigrams))], bigrams[r.Intn(len(bigrams))]
		merges = append(merges, fmt.Sprintf("%q", x+" "+y))
		add(x + y)
	}
	var vs []string
	for k, v := range vocab {
		vs = append(vs, fmt.Sprintf("%q: %d", k, v))
	}
	js := `{"model": {"type": "BPE", "vocab": {` + strings.Join(vs, ",") + `}, "merges": [` + strings.Join(merges, ",") +
		`]}, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}}`
	tok, err := Parse([]byte(js))
	require.NoError(tb, err)
	return tok, letters
}

func BenchmarkBPELongWord(b *testing.B) {
	tok, letters := longWordTokenizer(b)
	r := rand.New(rand.NewSource(2))
	for _, n := range []int{5000, 20000, 80000} {
		w := make([]byte, n)
		for i := range w {
			w[i] = letters[r.Intn(len(letters))]
		}
		word := string(w)
		b.Run(fmt.Sprintf("letters=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				tok.Tokens(word)
			}
		})
	}
}
