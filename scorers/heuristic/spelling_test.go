package heuristic_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutSpelling(t *testing.T) {
	for goal, want := range map[string]bool{
		"docs: fix typo in private api jsdoc":              true,
		"Fix some typos (mostly found by codespell)":       true,
		"Fix spelling errors in user visible strings":      true,
		"correct misspelled option name":                   true,
		"spelt wrong in the help":                          true,
		"Fix typecheck of the spelling field\nmore":        true,
		"fix: handle empty header":                         false,
		"Typography: use the new font":                     false,
		"Prevent parser to panic\n\nthe typo is elsewhere": false, // only the first line counts
	} {
		assert.Equal(t, want, heuristic.AboutSpelling(goal), goal)
	}
}

func TestMisspeltLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []int
	}{
		{name: "comment", lines: []string{"// an error has ocurred while reading", "x := read()"}, want: []int{0}},
		{name: "string literal", lines: []string{`printf("Recieved %d bytes\n", n);`}, want: []int{0}},
		{name: "capitals", lines: []string{`echo "WARNIING: hidden files"`}, want: []int{0}},
		{name: "capitalised", lines: []string{"# Refrence counting of the buffers"}, want: []int{0}},
		{name: "swapped letters", lines: []string{"/* print the comamnds */"}, want: []int{0}},
		{name: "english words", lines: []string{"// the request has occurred twice; completions follow"}, want: nil},
		{name: "camelCase is a name", lines: []string{"recieveData := 1"}, want: nil},
		{name: "snake_case is a name", lines: []string{"recieve_data = 1"}, want: nil},
		{name: "a call is a name", lines: []string{"recieve(conn)"}, want: nil},
		{name: "a member is a name", lines: []string{"conn.recieve = true"}, want: nil},
		{name: "an object is a name", lines: []string{"recieve.all()"}, want: nil},
		{name: "a contraction", lines: []string{"// it doesn't matter"}, want: nil},
		{name: "short words", lines: []string{"// teh cat"}, want: nil},
		{name: "not one edit from a word", lines: []string{"// qwzxv jjjjjj"}, want: nil},
		{
			name:  "a word used often is the code's",
			lines: []string{"// recieve one", "// recieve two", "// recieve three", "// recieve four"},
			want:  nil,
		},
		{
			name:  "used three times is still a slip",
			lines: []string{"// recieve one", "code()", "// recieve two", "// recieve three"},
			want:  []int{0, 2, 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, heuristic.MisspeltLines(tt.lines))
		})
	}
}

// TestSpellingGoalRanksMisspeltLines: under a spelling goal the misspelt comment outranks
// every other line, code and comments alike; under another goal it is an ordinary comment.
func TestSpellingGoalRanksMisspeltLines(t *testing.T) {
	lines := []string{
		"// Package send writes responses.",
		"package send",
		"",
		"// Send writes body to the client and closes the stream.",
		"func Send(w io.Writer, body []byte) error {",
		"\t// the write may fail when the client has gone; the error is retruned as is",
		"\t_, err := w.Write(body)",
		"\treturn err",
		"}",
	}
	const misspelt = 5
	s := heuristic.New()
	score := func(goal string) []float64 {
		resp, err := s.Score(context.Background(), &engine.ScoreRequest{
			Goal: goal, Lines: lines, SourceType: engine.SourceCode, Path: "send.go",
		})
		require.NoError(t, err)
		return resp.Scores
	}
	got := score("docs: fix typo in Send's comment")
	for i, v := range got {
		if i != misspelt {
			assert.Less(t, v, got[misspelt], "line %d against the misspelt line", i+1)
		}
	}
	assert.GreaterOrEqual(t, got[misspelt], 0.9)
	other := score("docs: explain what Send writes")
	assert.Less(t, other[misspelt], 0.9, "no spelling goal, no lift")
}

func BenchmarkMisspeltLines(b *testing.B) {
	var src []string
	for i := range 10_000 {
		switch i % 4 {
		case 0:
			src = append(src, fmt.Sprintf("// handler%d writes the response and recieves the next request", i))
		case 1:
			src = append(src, fmt.Sprintf("func handler%d(w http.ResponseWriter, r *http.Request) {", i))
		case 2:
			src = append(src, `	fmt.Fprintf(w, "status: %d, message: %s", code, msg)`)
		default:
			src = append(src, "}")
		}
	}
	heuristic.MisspeltLines(src[:1]) // the word list loads once, outside the timing
	b.SetBytes(int64(len(strings.Join(src, "\n"))))
	b.ReportAllocs()
	for b.Loop() {
		heuristic.MisspeltLines(src)
	}
}

// BenchmarkMisspeltLinesHostile: 2 MB of distinct non-words, each one edit search.
func BenchmarkMisspeltLinesHostile(b *testing.B) {
	var src []string
	x := uint32(1)
	for range 20_000 {
		var sb strings.Builder
		for range 16 {
			for range 6 {
				x = x*1664525 + 1013904223
				sb.WriteByte(byte('a' + x>>24%26))
			}
			sb.WriteByte(' ')
		}
		src = append(src, sb.String())
	}
	heuristic.MisspeltLines(src[:1])
	b.SetBytes(int64(len(strings.Join(src, "\n"))))
	for b.Loop() {
		heuristic.MisspeltLines(src)
	}
}
