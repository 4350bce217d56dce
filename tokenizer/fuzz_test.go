package tokenizer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzCount checks CountLines, Count and CountLine against tiktoken-go for both encodings,
// cold and warm (CountLines warm from the prices kept with a long text), and the one-pass count of x and x+"\n". Seeds: the known-count table and
// testdata/seeds (code, logs with ANSI escapes and \r, unicode, invalid UTF-8 and
// NUL bytes, contractions, whitespace kinds).
func FuzzCount(f *testing.F) {
	for _, tt := range knownCounts {
		f.Add(tt.text)
	}
	for _, seed := range seedTexts(f) {
		f.Add(seed)
	}
	encs := []*Encoder{loadT(f, CL100K), loadT(f, O200K)}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range encs {
			want := refCount(t, e.name, s)
			total, costs := e.CountLines(s) // first, so its lines are new
			require.Equal(t, want, total, "%s lines' total", e.name)
			if s != "" {
				for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
					require.Equal(t, refCount(t, e.name, l+"\n"), costs[i], "%s line %d", e.name, i)
				}
			}
			again, againCosts := e.CountLines(s) // a long text's lines now priced with it
			require.Equal(t, total, again, "%s lines' total, warm", e.name)
			require.Equal(t, costs, againCosts, "%s lines, warm", e.name)
			require.Equal(t, want, e.Count(s), "%s cold", e.name)
			require.Equal(t, want, e.Count(s), "%s warm", e.name)
			require.Equal(t, refCount(t, e.name, s+"\n"), e.CountLine(s), "%s line", e.name)
			valid := string([]rune(s))
			n, nl := e.countPair(valid)
			require.Equal(t, e.countPlain(valid), n, "%s pair", e.name)
			require.Equal(t, e.countPlain(valid+"\n"), nl, "%s pair+nl", e.name)
		}
	})
}
