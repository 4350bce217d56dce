package tokenizer

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numberedLines are the lines a numbered-line count is checked on: the seeds' lines, which
// cover code, logs with ANSI escapes and \r, unicode whitespace and contractions, and
// random lines made of every class boundary of the split patterns, each also with a
// leading blank, tab or digit and with trailing blanks.
func numberedLines(tb testing.TB) []string {
	seeds, err := filepath.Glob(filepath.Join("testdata", "seeds", "*.txt"))
	require.NoError(tb, err)
	require.NotEmpty(tb, seeds)
	var out []string
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		require.NoError(tb, err)
		out = append(out, strings.Split(string(b), "\n")...)
	}
	r := newRand(31)
	for range 1500 {
		out = append(out, randomString(r, 8+r.IntN(30)))
	}
	n := len(out)
	for _, l := range out[:n] {
		out = append(out, " "+l, "\t"+l, "7"+l, l+"  ", "'s"+l)
	}
	return out
}

// TestCountNumbered: a line "N│ R" counts as tiktoken-go counts it, with and without its
// line break, whether R was counted before (the fast path) or not, and by
// CountNumberedLine from R's price alone (on an encoder that never saw R); and on ordinary
// code the fast path is the one taken.
func TestCountNumbered(t *testing.T) {
	lines := numberedLines(t)
	for _, name := range encodingNames {
		e := loadT(t, name)
		cold, err := newEncoder(name, name == O200K) // its own caches, never primed: counts every numbered line whole
		require.NoError(t, err)
		require.GreaterOrEqual(t, e.barTokens, 0, "%s: digit groups are single tokens, so prefixes are priced without a scan", name)
		for i, r := range lines {
			r = string([]rune(r))
			if strings.Contains(r, "\n") {
				continue
			}
			rNL := e.CountLine(r) // the engine prices every original line before rendering
			line := strconv.Itoa(i*37+1) + "\u2502 " + r
			want, wantNL := refCount(t, name, line), refCount(t, name, line+"\n")
			if !assert.Equal(t, wantNL, cold.CountNumberedLine(line, rNL), "%s numbered: %q+\\n", name, line) ||
				!assert.Equal(t, want, e.Count(line), "%s: %q", name, line) ||
				!assert.Equal(t, wantNL, e.CountLine(line), "%s: %q+\\n", name, line) ||
				!assert.Equal(t, wantNL, cold.CountLine(line), "%s cold: %q+\\n", name, line) {
				return
			}
		}
	}

	// Real code takes the fast path: this package's own Go source, lines of 16 bytes or
	// more, primed.
	e := loadT(t, CL100K)
	srcs, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fast, long := 0, 0
	for _, p := range srcs {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		for i, r := range strings.Split(string(src), "\n") {
			if len(r) < minNumberedRest {
				continue
			}
			long++
			e.CountLine(r)
			if _, _, ok := e.countNumbered(strconv.Itoa(i+1) + "\u2502 " + r); ok {
				fast++
			}
		}
	}
	require.Greater(t, long, 1000)
	t.Logf("fast path taken on %d of %d lines", fast, long)
	require.GreaterOrEqual(t, float64(fast), 0.9*float64(long), "fast path taken on %d of %d lines", fast, long)
}

// TestCountNumberedFallsBack: shapes the fast path must leave to the whole count.
func TestCountNumberedFallsBack(t *testing.T) {
	e := loadT(t, CL100K).fresh() // caches of its own: another test may have counted R
	r := "return fmt.Errorf(\"bad line %d\", n)"
	for _, key := range []string{
		"12\u2502 " + r,         // R never counted
		"\u2502 " + r,           // no number
		"12\u2502" + r,          // no blank after the bar
		"12| " + r,              // another bar
		"12\u2502 short",        // too short to bother
		"12\u2502 " + r + "\nx", // a line break inside
	} {
		_, _, ok := e.countNumbered(key)
		assert.False(t, ok, "%q", key)
	}
	e.CountLine(r)
	_, _, ok := e.countNumbered("12\u2502 " + r)
	assert.True(t, ok)
}

// FuzzCountNumbered checks numbered lines of any R, primed or not, and CountNumberedLine,
// against tiktoken-go.
func FuzzCountNumbered(f *testing.F) {
	for _, l := range numberedLines(f)[:400] {
		f.Add(uint32(len(l)), l)
	}
	encs := []*Encoder{loadT(f, CL100K), loadT(f, O200K)}
	f.Fuzz(func(t *testing.T, n uint32, r string) {
		r = string([]rune(strings.ReplaceAll(r, "\n", " ")))
		line := strconv.FormatUint(uint64(n), 10) + "\u2502 " + r
		for _, e := range encs {
			rNL := e.CountLine(r)
			require.Equal(t, refCount(t, e.name, line+"\n"), e.CountNumberedLine(line, rNL), "%s numbered", e.name)
			require.Equal(t, refCount(t, e.name, line), e.Count(line), "%s", e.name)
			require.Equal(t, refCount(t, e.name, line+"\n"), e.CountLine(line), "%s line", e.name)
		}
	})
}

// TestCountHalves: a long text counted in two halves at once counts as tiktoken-go counts
// it, for both encodings, cold and warm, whether or not it has a split point near its middle.
func TestCountHalves(t *testing.T) {
	r := newRand(41)
	var b strings.Builder
	for b.Len() < 3*parallelText/2 {
		b.WriteString(randomText(r, 40))
		b.WriteString("\n")
	}
	text := b.String()
	oneLine := strings.Repeat("no split point here, only one long line; ", parallelText/40+100)
	blanks := strings.Repeat("x\n   \n", parallelText/6+10) // every line break ends in blanks or "x"
	for _, name := range encodingNames {
		e := loadT(t, name)
		require.Positive(t, e.splitNear(text, len(text)/2), "the text has a split point")
		require.Zero(t, e.splitNear(oneLine, len(oneLine)/2))
		for _, s := range []string{text, oneLine, blanks} {
			require.GreaterOrEqual(t, len(s), parallelText)
			want := refCount(t, name, s)
			require.Equal(t, want, e.Count(s), "%s cold", name)
			require.Equal(t, want, e.Count(s), "%s warm", name)
			require.Equal(t, want, e.countSegments(s), "%s sequential", name)
		}
	}
}

// TestNumeralGroups: with a number between any two texts that do not end or start with a
// numeral, tiktoken-go's count less the number's groups of three digits is the same for
// every number, as NumeralGroupsAreTokens promises (the engine prices its markers by it).
func TestNumeralGroups(t *testing.T) {
	r := newRand(43)
	numbers := []string{"0", "7", "42", "999", "1000", "65536", "123456", "1234567", "40000000000"}
	groups := func(d string) int { return (len(d) + 2) / 3 }
	notNumeral := func(s string, last bool) bool {
		runes := []rune(s)
		if len(runes) == 0 {
			return true
		}
		c := runes[0]
		if last {
			c = runes[len(runes)-1]
		}
		return !unicode.IsNumber(c)
	}
	pairs := [][2]string{{"⟦PRUNÉ: prune_id=p_0f3a lignes ", "-3 (1) raison=hors focus: x⟧"}, {"", ""}, {"a", "b"}, {" ", " "}, {"\n", "\n"}}
	for len(pairs) < 400 {
		left, right := randomString(r, r.IntN(12)), randomString(r, r.IntN(12))
		if notNumeral(left, true) && notNumeral(right, false) {
			pairs = append(pairs, [2]string{left, right})
		}
	}
	for _, name := range encodingNames {
		e := loadT(t, name)
		require.True(t, e.NumeralGroupsAreTokens(), name)
		for _, p := range pairs {
			base := refCount(t, name, p[0]+numbers[0]+p[1]) - groups(numbers[0])
			for _, d := range numbers[1:] {
				require.Equal(t, base+groups(d), refCount(t, name, p[0]+d+p[1]), "%s: %q", name, p[0]+d+p[1])
			}
		}
	}
}
