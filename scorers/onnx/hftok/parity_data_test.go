package hftok

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// The parity test's tokenizers are synthetic but shaped like real ones: their vocabularies and
// merges come from real text (this repository's README and the onnx scorer's Go source), plus
// single characters of many scripts, so that real inputs split into several pieces, hit [UNK]
// and go through multi-step merges.

// parityCorpus is the text the vocabularies are built from, in a fixed order.
func parityCorpus(t testing.TB) string {
	t.Helper()
	var paths []string
	for _, pattern := range []string{"../../../README.md", "../*.go", "*.go"} {
		ps, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if !strings.HasSuffix(p, "_test.go") {
				paths = append(paths, p)
			}
		}
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	if b.Len() < 10000 {
		t.Fatalf("parity corpus is only %d bytes", b.Len())
	}
	return b.String()
}

// extraChars are single characters of other scripts, symbols and emoji that real
// vocabularies carry and the corpus lacks.
const extraChars = "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßÀÉÖÜÑİıœŒ" +
	"αβγδεζηθικλμνξοπρστυφχψωςΑΒΓΔΩ" + "абвгдежзийклмнопрстуфхцчшщыэюяАБВ" +
	"中文字符测试日本語的一是不了人我在有他这为之大来以个国" + "のテキストはをがにです" + "한국어텍스트" +
	"नमस्तेहिन्दीािीुूेैोौंः्" + "مرحبابالعالم" + "שלוםעולם" +
	"€£¥©®°±×÷¶§•…‰′″€™←→↑↓∀∂∈∑√∞≈≠≤≥" + "😀👍❤🎉🚀🔥✅" + "½²³¹¼¾①②"

// words returns the words of text (runs of letters and digits), most frequent first, and
// every distinct character of text that is not a space.
func words(text string, lower bool) (ws []string, chars []rune) {
	if lower {
		text = strings.ToLower(text)
	}
	counts := map[string]int{}
	seen := map[rune]bool{}
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			counts[string(cur)]++
			cur = cur[:0]
		}
	}
	for _, r := range text {
		if !unicode.IsSpace(r) && !seen[r] {
			seen[r] = true
			chars = append(chars, r)
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur = append(cur, r)
			continue
		}
		flush()
	}
	flush()
	for w := range counts {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		if counts[ws[i]] != counts[ws[j]] {
			return counts[ws[i]] > counts[ws[j]]
		}
		return ws[i] < ws[j]
	})
	return ws, chars
}

// wordPieceVocab builds a BERT-like vocabulary: the special tokens, every character alone and
// as a continuation, the 1,500 most frequent words, and for the 600 most frequent longer
// words their 2-4 character beginnings and (as continuations) endings.
func wordPieceVocab(corpus string, lower bool) map[string]int64 {
	vocab := map[string]int64{}
	add := func(tok string) {
		if _, ok := vocab[tok]; !ok {
			vocab[tok] = int64(len(vocab))
		}
	}
	for _, s := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		add(s)
	}
	ws, chars := words(corpus+extraChars, lower)
	for r := rune('!'); r <= '~'; r++ {
		chars = append(chars, r)
	}
	for _, r := range chars {
		if lower && unicode.IsUpper(r) {
			continue
		}
		add(string(r))
		add("##" + string(r))
	}
	for i, w := range ws {
		if i == 1500 {
			break
		}
		add(w)
	}
	n := 0
	for _, w := range ws {
		rs := []rune(w)
		if len(rs) < 5 {
			continue
		}
		for k := 2; k <= 4; k++ {
			add(string(rs[:k]))
			add("##" + string(rs[len(rs)-k:]))
		}
		if n++; n == 600 {
			break
		}
	}
	return vocab
}

// byteLevelBPE trains a byte-level BPE on corpus (GPT-2 pre-tokenization) with the given
// number of merges: each step merges the most frequent adjacent pair (ties: the smallest
// pair), as tokenizers' BpeTrainer does, so the merges are well formed.
func byteLevelBPE(corpus string, merges int) (vocab map[string]int64, ranks [][2]string) {
	vocab = map[string]int64{}
	for _, s := range []string{"<s>", "<pad>", "</s>", "<unk>"} {
		vocab[s] = int64(len(vocab))
	}
	for b := 0; b < 256; b++ {
		vocab[string(byteToRune[b])] = int64(len(vocab))
	}
	counts := map[string]int{}
	for _, w := range gpt2Split(corpus + " " + extraChars) {
		counts[byteLevel(w)]++
	}
	type word struct {
		syms  []string
		count int
	}
	var ws []word
	for w, c := range counts {
		var syms []string
		for _, r := range w {
			syms = append(syms, string(r))
		}
		ws = append(ws, word{syms, c})
	}
	// Pair counts are kept up to date word by word: only the words holding the merged pair
	// change.
	pairs := map[[2]string]int{}
	count := func(w word, sign int) {
		for i := 0; i+1 < len(w.syms); i++ {
			pairs[[2]string{w.syms[i], w.syms[i+1]}] += sign * w.count
		}
	}
	for _, w := range ws {
		count(w, 1)
	}
	for len(ranks) < merges {
		var best [2]string
		bestN := 0
		for p, n := range pairs {
			if n > bestN || n == bestN && (p[0] < best[0] || p[0] == best[0] && p[1] < best[1]) {
				best, bestN = p, n
			}
		}
		if bestN < 2 {
			break
		}
		ranks = append(ranks, best)
		vocab[best[0]+best[1]] = int64(len(vocab))
		for k, w := range ws {
			if !slices.ContainsFunc(w.syms[:max(0, len(w.syms)-1)], func(s string) bool { return s == best[0] }) {
				continue
			}
			count(w, -1)
			out := make([]string, 0, len(w.syms))
			for i := 0; i < len(w.syms); i++ {
				if i+1 < len(w.syms) && w.syms[i] == best[0] && w.syms[i+1] == best[1] {
					out = append(out, best[0]+best[1])
					i++
					continue
				}
				out = append(out, w.syms[i])
			}
			ws[k].syms = out
			count(ws[k], 1)
		}
		for p, n := range pairs {
			if n == 0 {
				delete(pairs, p)
			}
		}
	}
	return vocab, ranks
}

// stressInputs are texts chosen for where tokenizers tend to differ.
var stressInputs = []string{
	"", " ", "  leading and trailing  ", "a", "A.", "find the bug in the parser",
	// Accents, combining marks, case.
	"Café naïve résumé coöperate Ångström", "cafe\u0301 e\u0301\u0300 a\u0308\u0304", "İstanbul İI ıi", "ǅemal ǈ Ǆ",
	"straße STRASSE ẞ", "ﬁnance ﬀ ﬃ Ⅻ ① ½ x² H₂O", "Ⓐ ⓑ ℌ ℍ ™", "Ελληνικά κείμενα", "Русский ТЕКСТ ёЁ",
	"Tiếng Việt có dấu: Cụ thể, bạn sẽ tham gia", "ำน\u0e49ำ3ลำ", "नमस्ते हिन्दी", "தமிழ் மொழி", "مَرْحَبًا بالعالم", "שָׁלוֹם עולם",
	// CJK, kana, hangul.
	"中文字符测试", "我在有他这为之大来以个国", "日本語のテキストです", "한국어 텍스트", "mixed中文and English", "全角ＡＢＣ１２３",
	// Emoji and zero-width characters.
	"😀 👍🏽 👨\u200d👩\u200d👧 🇫🇷 ❤️ 🎉🚀", "zero\u200bwidth\u200cjoin\u200dnon\ufeffbom", "soft\u00adhyphen", "e\u20dd enclosed",
	// Control characters.
	"NUL\x00inside", "\x00", "bell\x07and\x01\x02\x1b[31mred\x1b[0m", "vertical\x0btab form\x0cfeed", "next\u0085line",
	"del\x7fete", "line\u2028sep\u2029para", "rtl\u202emark\u200e", "replacement\ufffdchar",
	// Whitespace of every kind.
	"tab\tseparated\tvalues", "windows\r\nline\r\nends", "nbsp\u00a0here", "ideographic\u3000space", "em\u2003space\u2009thin\u202fnarrow",
	"\t\t\n\n  \r\n", "a\n\nb", "x  \n  y", "  ", "\u3000\u3000",
	// Punctuation runs.
	"!!!???...", "---> <== ::", "«quotes» “curly” ‘single’ „low“", "¿Qué? ¡Olé!", "em—dash en–dash ‐ hyphen", "a.b,c;d:e", "@#$%^&*()_+",
	"…‥ · ・ 、。「」【】", "'''\"\"\"```", "$HOME ~user `cmd` |pipe| <tag/>",
	// Long words, past max_input_chars_per_word.
	strings.Repeat("a", 100), strings.Repeat("a", 101), strings.Repeat("é", 101), strings.Repeat("abc", 40) + " end",
	"supercalifragilisticexpialidocious", strings.Repeat("supercalifragilistic", 6), strings.Repeat("中", 120),
	strings.Repeat("x_", 60), "pneumonoultramicroscopicsilicovolcanoconiosis" + strings.Repeat("!", 3),
	// Code.
	"func (t *Tokenizer) EncodePair(a, b string, maxLen int) Encoding {",
	"x := map[string]int{\"a\": 1, \"b\": 2}",
	"if err != nil {\n\treturn fmt.Errorf(\"scorer %q: %w\", name, err)\n}",
	"def foo(self, *args, **kwargs):\n    return {k: v for k, v in kwargs.items()}",
	"arr[i] += 0x1F; // comment with CamelCase and snake_case",
	"const re = /'s|'t|'re|'ve|'m|'ll|'d/gu;", "SELECT * FROM users WHERE id = 42;", "<div class=\"x\">&amp;</div>",
	"don't won't I'm we're they've she'll he'd 'tis Y'ALL", "it's 'quoted' ''double''", "l'homme d'état",
	"    indented four", "\t\tindented tabs", "#include <stdio.h>", "panic: runtime error: index out of range [3] with length 3",
	"goroutine 1 [running]:\nmain.main()\n\t/tmp/x.go:12 +0x1d",
	// Numbers.
	"3.14159 1,000,000 2024-01-01T12:00:00Z 1e-9 0xFF -42 +7", "٣٤٥ ४५६ ๑๒๓", "1st 2nd 3rd 4th", "v1.2.3-rc.1+build.5",
	// Special tokens written in the text.
	"[SEP] inside [CLS] text [PAD]", "[sep] lowercase [Sep]", "[SEP][SEP]x[MASK]", "<s> inside </s> <pad> <unk>", "</s></s>",
}

// fragments are the pieces random inputs are assembled from.
var fragments = []string{
	" ", " ", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2003", ".", ",", "!", "?", "'", "\"", "(", ")", "[", "]",
	"{", "}", "_", "-", "--", "::", "->", "'s", "'ll", "é", "e\u0301", "ñ", "Ü", "ß", "İ", "中", "文", "の", "한", "😀", "👍🏽",
	"\u200b", "\u200d", "\x00", "\x0b", "\x0c", "\x1b", "\u00ad", "123", "4.5", "0x1F", "½", "Ⅻ", "ﬁ", "नम", "्", "ा", "ำ",
	"\u0301", "\u20dd", "«", "»", "“", "—", "…", "€", "$", "@", "#", "%", "&", "*", "+", "=", "<", ">", "/", "\\", "|", "~", "`",
	"[SEP]", "<s>", "</s>", "[UNK]",
}

// randomInput assembles a text from corpus words and fragments.
func randomInput(r *rand.Rand, corpusWords []string) string {
	var b strings.Builder
	n := 1 + r.Intn(14)
	for i := 0; i < n; i++ {
		switch k := r.Intn(10); {
		case k < 5:
			w := corpusWords[r.Intn(min(len(corpusWords), 3000))]
			if r.Intn(4) == 0 {
				rs := []rune(w)
				w = string(unicode.ToUpper(rs[0])) + string(rs[1:])
			}
			b.WriteString(w)
		case k < 9:
			b.WriteString(fragments[r.Intn(len(fragments))])
		default:
			b.WriteString(strings.Repeat(string(rune('a'+r.Intn(26))), 1+r.Intn(130)))
		}
	}
	return b.String()
}

// corpusLines are the non-blank lines of corpus, as the cross-encoder sends lines.
func corpusLines(corpus string) []string {
	var out []string
	for _, l := range strings.Split(corpus, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
