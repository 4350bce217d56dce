package tokenizer

import (
	"sync"
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/require"
)

// The reference: tiktoken-go v0.1.8 on the offline rank files. Its split patterns
// are unexported, so they are copied here from its encoding.go.
const (
	refPatternCL100K = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	refPatternO200K  = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
		`\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

var encodingNames = []string{CL100K, O200K}

var (
	refOnce     sync.Once
	refMu       sync.Mutex
	refEncoders = map[string]*tiktoken.Tiktoken{}
	refRegexps  = map[string]*regexp2.Regexp{
		CL100K: regexp2.MustCompile(refPatternCL100K, regexp2.None),
		O200K:  regexp2.MustCompile(refPatternO200K, regexp2.None),
	}
)

// refEncoder returns tiktoken-go's encoder for name.
func refEncoder(tb testing.TB, name string) *tiktoken.Tiktoken {
	tb.Helper()
	refOnce.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
	refMu.Lock()
	defer refMu.Unlock()
	if tk, ok := refEncoders[name]; ok {
		return tk
	}
	tk, err := tiktoken.GetEncoding(name)
	require.NoError(tb, err)
	refEncoders[name] = tk
	return tk
}

// refCount is the reference count.
func refCount(tb testing.TB, name, s string) int {
	return len(refEncoder(tb, name).EncodeOrdinary(s))
}

// refPieces splits s with the reference pattern, as tiktoken-go does (on runes).
func refPieces(name, s string) []string {
	runes := []rune(s)
	var out []string
	m, _ := refRegexps[name].FindRunesMatch(runes)
	for m != nil {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
		m, _ = refRegexps[name].FindNextMatch(m)
	}
	return out
}

// split splits valid UTF-8 s with the hand-written pre-tokenizer.
func (e *Encoder) split(s string) []string {
	sc := scanner{s: s, tab: e.tab}
	var out []string
	for i := 0; i < len(s); {
		j := e.next(&sc, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// loadT loads name or fails the test.
func loadT(tb testing.TB, name string) *Encoder {
	tb.Helper()
	e, err := Load(name)
	require.NoError(tb, err)
	return e
}
