package tokenizer

import (
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassTable(t *testing.T) {
	tab := bmpClasses()
	for r := range rune(0x10000) {
		if tab[r] != classOfSlow(r) {
			require.Failf(t, "class table", "rune %U: table %08b, unicode %08b", r, tab[r], classOfSlow(r))
		}
	}
}

// TestPiecesMatchReference compares the hand-written pre-tokenizer with the
// reference patterns run by regexp2, piece by piece.
func TestPiecesMatchReference(t *testing.T) {
	r := newRand(7)
	n := 3000
	if testing.Short() {
		n = 500
	}
	var inputs []string
	for _, tt := range knownCounts {
		inputs = append(inputs, string([]rune(tt.text)))
	}
	for range n {
		inputs = append(inputs, randomString(r, 1+r.IntN(40)))
	}
	// Runes that unicode.ToLower maps to a contraction letter, after an apostrophe.
	for c := range rune(0x10000) {
		if l := unicode.ToLower(c); c >= utf8.RuneSelf && strings.ContainsRune("stremvld", l) {
			inputs = append(inputs, "x'"+string(c)+" '"+string(c)+"e '"+string(c)+"L")
		}
	}
	for _, name := range encodingNames {
		e := loadT(t, name)
		for _, s := range inputs {
			want := refPieces(name, s)
			if got := e.split(s); !assert.Equal(t, want, got, "%s: %q", name, s) {
				return
			}
		}
	}
}

// TestSplitPointsAreBoundaries checks the segment rule: every point Count splits at
// is a boundary between reference pre-tokens.
func TestSplitPointsAreBoundaries(t *testing.T) {
	r := newRand(11)
	n := 300
	if testing.Short() {
		n = 60
	}
	for _, name := range encodingNames {
		e := loadT(t, name)
		for range n {
			s := randomText(r, 1+r.IntN(30))
			bounds := map[int]bool{}
			off := 0
			for _, p := range refPieces(name, s) {
				off += len(p)
				bounds[off] = true
			}
			for p := 1; p < len(s); p++ {
				if s[p-1] == '\n' && e.splitsAt(s, p) && !bounds[p] {
					require.Failf(t, "split inside a pre-token", "%s: offset %d of %q", name, p, s)
				}
			}
		}
	}
}

// TestCountPair checks the shortcut that counts x and x+"\n" in one pass.
func TestCountPair(t *testing.T) {
	r := newRand(13)
	inputs := []string{"", " ", "\n", "a", "a ", "a\n  ", "a;\n  ", "x  \t", ";", "x'l", "x'", "  \u3000", "//", "a/"}
	for range 3000 {
		inputs = append(inputs, randomString(r, 1+r.IntN(12)))
	}
	for _, name := range encodingNames {
		e := loadT(t, name)
		for _, x := range inputs {
			x = string([]rune(x))
			n, nl := e.countPair(x)
			if !assert.Equal(t, e.countPlain(x), n, "%s: %q", name, x) ||
				!assert.Equal(t, e.countPlain(x+"\n"), nl, "%s: %q+\\n", name, x) {
				return
			}
		}
	}
}

func TestMergeHeapMatchesSmall(t *testing.T) {
	r := newRand(17)
	for _, name := range encodingNames {
		e := loadT(t, name)
		for range 2000 {
			p := randomString(r, 1+r.IntN(20))
			if len(p) < 2 || len(p) > smallPiece {
				continue
			}
			require.Equal(t, mergeSmall(p, e.ranks), mergeHeap(p, e.ranks), "%s: %q", name, p)
		}
	}
}

// TestLongPieces covers the heap merge on pieces longer than smallPiece.
func TestLongPieces(t *testing.T) {
	r := newRand(19)
	tests := []struct{ name, text string }{
		{name: "spaces", text: strings.Repeat(" ", 5000)},
		{name: "equals", text: strings.Repeat("=", 777)},
		{name: "dashes then newline", text: strings.Repeat("-", 300) + "\n"},
		{name: "long word", text: strings.Repeat("abcdefghij", 40)},
		{name: "base64 letters", text: strings.Map(func(rune) rune { return rune('a' + r.IntN(26)) }, strings.Repeat(".", 999))},
		{name: "cjk run", text: strings.Repeat("日本語の", 100)},
		{name: "emoji run", text: strings.Repeat("😀🎉", 100)},
		{name: "tabs and newlines", text: strings.Repeat("\t", 100) + strings.Repeat("\n", 100) + strings.Repeat("\t", 100)},
	}
	for _, name := range encodingNames {
		e := loadT(t, name)
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				assert.Equal(t, refCount(t, name, tt.text), e.Count(tt.text))
			})
		}
	}
}

// TestCountRandomTexts compares whole texts, line by line and at once, with the
// reference, and the segmented count with the unsegmented one.
func TestCountRandomTexts(t *testing.T) {
	r := newRand(23)
	n := 200
	if testing.Short() {
		n = 40
	}
	for _, name := range encodingNames {
		e := loadT(t, name)
		for range n {
			s := randomText(r, 1+r.IntN(40))
			want := refCount(t, name, s)
			require.Equal(t, want, e.countPlain(s), "%s plain: %q", name, s)
			require.Equal(t, want, e.Count(s), "%s cold: %q", name, s)
			require.Equal(t, want, e.Count(s), "%s warm: %q", name, s)
			for _, line := range strings.Split(s, "\n") {
				require.Equal(t, refCount(t, name, line), e.Count(line), "%s line: %q", name, line)
			}
		}
	}
}

func TestRankTable(t *testing.T) {
	r := newRand(31)
	for _, name := range encodingNames {
		ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
		require.NoError(t, err)
		tab := newRankTable(ranks)
		for k, want := range ranks {
			if got := tab.rank(k); got != int32(want) {
				require.Failf(t, "rank", "%s: %q rank %d, want %d", name, k, got, want)
			}
		}
		// Near misses of the packed tables: every token's prefixes and suffixes one byte
		// shorter, and the token with its last byte changed (most are not tokens).
		for k := range ranks {
			if len(k) < 3 || len(k) > midBytes+1 {
				continue
			}
			changed := []byte(k)
			changed[len(changed)-1] ^= 0x20
			for _, s := range []string{k[:len(k)-1], k[1:], string(changed)} {
				want, ok := ranks[s]
				if !ok {
					want = noRank
				}
				if got := tab.rank(s); got != int32(want) {
					require.Failf(t, "rank", "%s: %q rank %d, want %d", name, s, got, want)
				}
			}
		}
		for range 20000 {
			s := randomString(r, 1+r.IntN(6))
			want, ok := ranks[s]
			if !ok {
				want = noRank
			}
			require.Equal(t, int32(want), tab.rank(s), "%s: %q", name, s)
		}
		assert.Equal(t, int32(noRank), tab.rank(""))
	}
}

// TestAllRunesMatchReference runs every rune through both pre-tokenizers in a few
// contexts (after and before letters of each case, digits, blanks, apostrophes and
// line breaks), so each class the patterns use is checked rune by rune.
// It takes about a minute: TOKENIZER_DIFF_ALL=1 runs it; TestClassesMatchRegexp2
// checks the classes alone in a second.
func TestAllRunesMatchReference(t *testing.T) {
	if os.Getenv("TOKENIZER_DIFF_ALL") != "1" {
		t.Skip("slow: set TOKENIZER_DIFF_ALL=1")
	}
	for _, name := range encodingNames {
		e := loadT(t, name)
		var b strings.Builder
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			c := string(r)
			b.WriteString("a" + c + c + "B" + c + " " + c + "1" + c + "'" + c + "\n" + c + "\t")
			if r%512 == 511 || r == unicode.MaxRune {
				s := b.String()
				b.Reset()
				if want := refPieces(name, s); !assert.Equal(t, want, e.split(s), "%s: runes up to %U", name, r) {
					return
				}
			}
		}
	}
}

// TestClassesMatchRegexp2 compares, for every rune, the class table with what
// regexp2 (the reference's engine) matches for each class the patterns use.
func TestClassesMatchRegexp2(t *testing.T) {
	if testing.Short() {
		t.Skip("1.1M runes through regexp2")
	}
	all := make([]rune, 0, unicode.MaxRune+1)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r < 0xd800 || r > 0xdfff {
			all = append(all, r)
		}
	}
	tab := bmpClasses()
	class := func(r rune) uint8 {
		if r < 0x10000 {
			return tab[r]
		}
		return classOfSlow(r)
	}
	tests := []struct {
		name, pattern string
		want          func(r rune) bool
	}{
		{name: "letter", pattern: `\p{L}`, want: func(r rune) bool { return class(r)&clsL != 0 }},
		{name: "number", pattern: `\p{N}`, want: func(r rune) bool { return class(r)&clsN != 0 }},
		{name: "space", pattern: `\s`, want: func(r rune) bool { return class(r)&clsSp != 0 }},
		{name: "upper", pattern: `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, want: func(r rune) bool { return class(r)&clsUp != 0 }},
		{name: "lower", pattern: `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`, want: func(r rune) bool { return class(r)&clsLow != 0 }},
		{name: "P", pattern: `[^\r\n\p{L}\p{N}]`, want: func(r rune) bool { return isP(r, class(r)) }},
		{name: "Q", pattern: `[^\s\p{L}\p{N}]`, want: func(r rune) bool { return isQ(class(r)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re := regexp2.MustCompile(tt.pattern, regexp2.None)
			in := make([]bool, len(all))
			m, err := re.FindRunesMatch(all)
			for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
				in[m.Index] = true
			}
			require.NoError(t, err)
			for i, r := range all {
				if in[i] != tt.want(r) {
					require.Failf(t, "class mismatch", "%U: regexp2 %v, table %v", r, in[i], !in[i])
				}
			}
		})
	}
}
