package tokenizer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkCountLines requires CountLines(text) to be Count(text) and each line's CountLine,
// as tiktoken-go counts them when ref is set, else as a second encoder's Count and
// CountLine do (for texts too long for the reference).
func checkCountLines(t *testing.T, e *Encoder, text string, ref bool) {
	t.Helper()
	var lines []string
	if text != "" {
		lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	var want int
	wantCosts := make([]int, len(lines))
	if ref {
		want = refCount(t, e.name, text)
		for i, l := range lines {
			wantCosts[i] = refCount(t, e.name, l+"\n")
		}
	} else {
		other, err := newEncoder(e.name, e.o200k)
		require.NoError(t, err)
		want = other.Count(text)
		for i, l := range lines {
			wantCosts[i] = other.CountLine(l)
		}
	}
	for _, pass := range []string{"cold", "warm"} {
		n, costs := e.CountLines(text)
		require.Equal(t, want, n, "%s %s: total of %q", e.name, pass, clip(text))
		require.Equal(t, wantCosts, costs, "%s %s: lines of %q", e.name, pass, clip(text))
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestCountLines: the total and the line prices agree with Count and CountLine on edge
// cases, the seeds (code, logs with \r and ANSI escapes, invalid UTF-8, unicode
// whitespace), random texts whose blank and whitespace-led lines join segments of several
// lines, texts past the text cache's minimum and texts long enough to be counted in two
// halves, each first (its lines new to the encoder, but for lines texts share) and then
// again (the whole text known).
func TestCountLines(t *testing.T) {
	texts := []string{"", "\n", "\n\n", "a", "a\n", "a\n\n", "\nb", "  \n\t\n", "x\r\ny\r\n", "a\n \n  b\n"}
	for _, seed := range seedTexts(t) {
		texts = append(texts, seed, strings.TrimSuffix(seed, "\n"))
	}
	r := newRand(53)
	for range 40 {
		texts = append(texts, randomText(r, 1+r.IntN(30)))
	}
	var long strings.Builder
	for long.Len() < minCachedText*2 {
		long.WriteString(randomText(r, 20))
		long.WriteString("\n\n  \n")
	}
	texts = append(texts, long.String())
	for _, name := range encodingNames {
		e, err := newEncoder(name, name == O200K) // caches of its own: lines met first here
		require.NoError(t, err)
		for _, text := range texts {
			checkCountLines(t, e, text, true)
		}
	}

	// Two halves: a text past parallelText, with a split point, and one whose only split
	// points are far from its middle.
	var b strings.Builder
	for b.Len() < 3*parallelText/2 {
		b.WriteString(randomText(r, 40))
		b.WriteString("\n\n")
	}
	blanks := strings.Repeat("x\n   \n", parallelText/6+10)
	for _, name := range encodingNames {
		for _, text := range []string{b.String(), blanks, b.String() + "tail without a break"} {
			e, err := newEncoder(name, name == O200K)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(text), parallelText)
			checkCountLines(t, e, text, false)
		}
	}
}
