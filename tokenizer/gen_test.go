package tokenizer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x70c3)) }

// trickyRunes covers every class boundary of the split patterns: the whitespace
// kinds (ASCII, NEL, NBSP, U+2028, U+3000), letters of each case category
// (including supplementary planes), marks, each kind of number, apostrophes,
// runes that case-fold near the contraction letters (ſ, K, İ), controls and
// symbols.
var trickyRunes = []rune{
	' ', ' ', ' ', '\t', '\n', '\n', '\r', '\v', '\f', '\'', '\'', '/', '/',
	'.', ',', ';', ':', '(', ')', '{', '}', '[', ']', '<', '>', '=', '+', '-', '*', '&', '|',
	'!', '?', '"', '#', '_', '@', '$', '%', '^', '~', '`', '\\',
	0x00, 0x1c, 0x1f, 0x7f, 0x85, 0xa0, 0x2028, 0x2029, 0x3000, 0x200b, 0x200d, 0xfeff, 0xad,
	0x0301, 0x0903, 0x20dd, 0xfe0f, // marks: Mn, Mc, Me, variation selector
	0x01c5, 0x02b0, 'あ', '中', 'ª', 'É', 'Σ', 'é', 'ß', 'σ', 'ſ', 0x212a, 0x0130, 'ﬀ',
	'٣', 'Ⅻ', '²', '½', '0', '7', 0x1d7d9, // numbers: Nd, Nl, No, supplementary Nd
	0x1f600, 0x1f44d, 0x1f3fd, 0x1d400, 0x20000, 0xe000, 0xfffd, '‘', '’', '—', '€', '⟦', '⟧',
}

var trickyWords = []string{
	"'s", "'S", "'t", "'re", "'RE", "'ve", "'m", "'ll", "'LL", "'d", "'x", "'", "’s",
	"don't", "I'M", "HTTPServer", "parseURL", "snake_case", "x86_64", "__init__", "0xDEADBEEF",
	"3.14159", "1234567", "//", "/*", "*/", "://", "=>", "!=", "...", "\r\n", "\n\n", "  ", "\t\t",
	"Ǆemo", "ǅungla", "ÉTÉ", "naïve", "Ｆｕｌｌ", "日本語", "한국어", "Ελληνικά", "עברית", "ﷺ",
}

// randomString returns n random runes and words from the tricky sets, with plain
// ASCII letters mixed in so that letter runs form.
func randomString(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		switch k := r.IntN(10); {
		case k < 4:
			b.WriteByte(byte('a' + r.IntN(26)))
			if r.IntN(4) == 0 {
				b.WriteByte(byte('A' + r.IntN(26)))
			}
		case k < 8:
			b.WriteRune(trickyRunes[r.IntN(len(trickyRunes))])
		default:
			b.WriteString(trickyWords[r.IntN(len(trickyWords))])
		}
	}
	return b.String()
}

var codeWords = []string{
	"func", "return", "if", "else", "for", "self", "def", "class", "import", "from", "nil", "None",
	"err", "value", "ctx", "request", "response", "handler", "config", "fmt.Println", "os.path.join",
	"assert", "raise", "ValueError", "TODO", "x", "i", "n", "len", "append", "map[string]int",
}

// randomText returns lines of code-like text whose line starts exercise the
// segment split rule: indentation, blank and whitespace-only lines, CRLF, lines
// starting with '/', '#', closing braces, non-ASCII runes and unicode blanks.
func randomText(r *rand.Rand, lines int) string {
	starts := []string{"", "", "", "    ", "\t", "\t\t", "  ", "/", "// ", "# ", "}", " /", "é", "日", "\u00a0", "\u3000", "\v", "'s ", "-"}
	var b strings.Builder
	for range lines {
		switch k := r.IntN(20); {
		case k == 0:
			// blank line
		case k == 1:
			b.WriteString(strings.Repeat(" ", r.IntN(6)))
		case k == 2:
			b.WriteString(randomString(r, 1+r.IntN(12)))
		default:
			b.WriteString(starts[r.IntN(len(starts))])
			for w := r.IntN(8); w >= 0; w-- {
				b.WriteString(codeWords[r.IntN(len(codeWords))])
				b.WriteString([]string{" ", " ", "(", ")", ", ", " = ", ".", ": ", ";", "  "}[r.IntN(10)])
			}
			if r.IntN(5) == 0 {
				b.WriteString(randomString(r, r.IntN(5)))
			}
		}
		if r.IntN(10) == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	if r.IntN(2) == 0 {
		return strings.TrimSuffix(b.String(), "\n")
	}
	return b.String()
}

// seedTexts returns the files of testdata/seeds: code, logs with ANSI escapes and \r,
// unicode, invalid UTF-8 and NUL bytes, contractions, whitespace kinds.
func seedTexts(tb testing.TB) []string {
	paths, err := filepath.Glob(filepath.Join("testdata", "seeds", "*"))
	require.NoError(tb, err)
	require.NotEmpty(tb, paths)
	out := make([]string, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(tb, err)
		out[i] = string(b)
	}
	return out
}
