package tokenizer

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		enc     string
		wantErr error
	}{
		{name: "cl100k", enc: CL100K},
		{name: "o200k", enc: O200K},
		{name: "unknown", enc: "p50k_base", wantErr: ErrUnknownEncoding},
		{name: "empty", enc: "", wantErr: ErrUnknownEncoding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Load(tt.enc)
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.True(t, errors.Is(err, tt.wantErr), "got %v", err)
				assert.ErrorContains(t, err, "(known: cl100k_base, o200k_base)", "the error names the encodings that exist")
				assert.Nil(t, e)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.enc, e.Name())
			again, err := Load(tt.enc)
			require.NoError(t, err)
			assert.Same(t, e, again, "an encoding is loaded once")
		})
	}
}

// knownCounts were produced by tiktoken-go v0.1.8 (EncodeOrdinary); TestCountKnown
// checks them against it too, so the table cannot drift from the reference.
var knownCounts = []struct {
	name          string
	text          string
	cl100k, o200k int
}{
	{name: "hello", text: "hello world", cl100k: 2, o200k: 2},
	{name: "empty", text: "", cl100k: 0, o200k: 0},
	{name: "french", text: "Bonjour, ça va ? Très bien, merci.", cl100k: 12, o200k: 10},
	{name: "cjk", text: "日本語のテキストです。", cl100k: 10, o200k: 8},
	{name: "emoji", text: "emoji 😀🎉👍🏽 family 👨\u200d👩\u200d👧", cl100k: 24, o200k: 16},
	{name: "marker", text: "⟦PRUNÉ: prune_id=prn_0123456789abcdef0123456789abcdef lignes 1-4 (4) raison=hors focus⟧", cl100k: 37, o200k: 38},
	{name: "crlf", text: "line one\r\nline two\r\n", cl100k: 6, o200k: 6},
	{name: "tabs", text: "\tindented\t\ttabs\n", cl100k: 7, o200k: 7},
	{name: "long digits", text: "12345678901234567890", cl100k: 7, o200k: 7},
	{name: "contractions", text: "don't you're I'VE we'll she'd it's", cl100k: 13, o200k: 7},
	{name: "whitespace runs", text: "a     b\n\n\n   \n  c  ", cl100k: 8, o200k: 8},
	{name: "blank lines", text: "\n\n\n", cl100k: 1, o200k: 1},
	{name: "code", text: "func main() {\n\tfmt.Println(\"hi\")\n}\n", cl100k: 10, o200k: 10},
	{name: "special token is text", text: "<|endoftext|>", cl100k: 7, o200k: 7},
	{name: "nul bytes", text: "\x00\x00nul\x00", cl100k: 5, o200k: 3},
	{name: "invalid utf8", text: "bad \xff\xfe utf8 \xe2\x82", cl100k: 7, o200k: 5},
}

func TestCountKnown(t *testing.T) {
	for _, enc := range encodingNames {
		e := loadT(t, enc)
		for _, tt := range knownCounts {
			t.Run(enc+"/"+tt.name, func(t *testing.T) {
				want := tt.cl100k
				if enc == O200K {
					want = tt.o200k
				}
				assert.Equal(t, want, refCount(t, enc, tt.text), "reference")
				assert.Equal(t, want, e.Count(tt.text), "cold")
				assert.Equal(t, want, e.Count(tt.text), "warm")
			})
		}
	}
}

// TestInvalidUTF8 pins the documented rule: an invalid byte counts as U+FFFD would,
// which is what tiktoken-go does (regexp2 and the piece conversion go through []rune).
func TestInvalidUTF8(t *testing.T) {
	tests := []struct{ name, text string }{
		{name: "lone continuation", text: "a\x80b"},
		{name: "truncated", text: "caf\xc3"},
		{name: "truncated 3-byte", text: "x \xe2\x82 y"},
		{name: "surrogate", text: "\xed\xa0\x80 half"},
		{name: "overlong", text: "\xc0\xaf/etc"},
		{name: "0xff at line start", text: "ok\n\xffnext\n\xfe\xff"},
		{name: "nul in code", text: "x := \"\x00\"\n\x00\x00\n"},
		{name: "real replacement char", text: "\uFFFD\uFFFD"},
	}
	for _, enc := range encodingNames {
		e := loadT(t, enc)
		for _, tt := range tests {
			t.Run(enc+"/"+tt.name, func(t *testing.T) {
				assert.Equal(t, refCount(t, enc, tt.text), e.Count(tt.text))
				assert.Equal(t, e.Count(string([]rune(tt.text))), e.Count(tt.text))
			})
		}
	}
}

func TestCountConcurrent(t *testing.T) {
	e := loadT(t, CL100K)
	texts := []string{randomText(newRand(1), 200), randomText(newRand(2), 200), strings.Repeat("same line\n", 300)}
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = e.countPlain(s)
	}
	var wg sync.WaitGroup
	got := make([][]int, 8)
	for g := range got {
		wg.Go(func() {
			for i := range 20 {
				got[g] = append(got[g], e.Count(texts[(g+i)%len(texts)]))
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i, n := range got[g] {
			assert.Equal(t, want[(g+i)%len(texts)], n)
		}
	}
}

func TestCountLine(t *testing.T) {
	lines := []string{"", " ", "x := 1", "\tif x {", "}", "  ", "a;", "a\r", "// c", "/x", "日本", "bad \xff", "two\nlines", "x'"}
	for _, name := range encodingNames {
		e := loadT(t, name)
		for _, l := range lines {
			t.Run(name+"/"+l, func(t *testing.T) {
				assert.Equal(t, refCount(t, name, l+"\n"), e.CountLine(l))
				assert.Equal(t, refCount(t, name, l), e.Count(l), "shares the entry")
			})
		}
		// Lines that all start with a non-blank rune add up to the text (a blank line
		// would not: "\n\n" is one token).
		text := "package main\nfunc f() {\n\treturn\n}\n"
		sum := 0
		for _, l := range strings.SplitAfter(text, "\n") {
			if l != "" {
				sum += e.CountLine(strings.TrimSuffix(l, "\n"))
			}
		}
		assert.Equal(t, e.Count(text), sum, name)
	}
}
