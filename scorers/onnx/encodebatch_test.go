package onnx_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/hftok"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodeBatchCanceled(t *testing.T) {
	tok, err := hftok.Load("hftok/testdata/wordpiece.json")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, err := onnx.EncodeBatch(ctx, tok, "find bug", []string{"return x"}, 0, 1, 1, 16, 0)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, b)
}

// Lines far longer than truncation keeps are cut before tokenizing; the ids must be those
// of the whole text truncated, and lines under the cut are untouched. With a goal cut too,
// only which side gets the odd token of the budget may differ (clipText): the rows keep
// their length.
func TestEncodeBatchLongLines(t *testing.T) {
	words := []string{"find", "the", "bugs", "in", "parser", "hello", "world's", "return", "x", "Café", "\t"}
	var sb strings.Builder
	for i := 0; sb.Len() < 40000; i++ {
		sb.WriteString(words[(i*7)%len(words)])
		sb.WriteString([]string{" ", "  ", "\n", " "}[i%4])
	}
	long := sb.String()
	lines := []string{"return x", long, "in parser", long[:1000], long[:8*64+3]}
	for _, fixture := range []string{"wordpiece", "bpe"} {
		tok, err := hftok.Load("hftok/testdata/" + fixture + ".json")
		require.NoError(t, err)
		for _, maxLen := range []int{8, 32, 128} {
			// The second goal has more tokens than maxLen but is not cut.
			for _, goal := range []string{"find bug", long[:maxLen*32], long} {
				b, err := onnx.EncodeBatch(context.Background(), tok, goal, lines, 0, len(lines), 1, maxLen, 0)
				require.NoError(t, err)
				for r := range lines {
					want := tok.EncodePair(goal, onnx.PairText(lines, r, 1), maxLen)
					if goal == long {
						n := slices.Index(b.Mask[r*b.Width:(r+1)*b.Width], 0)
						if n < 0 {
							n = b.Width
						}
						assert.Equal(t, len(want.IDs), n, "%s, maxLen %d, row %d", fixture, maxLen, r)
						continue
					}
					row := b.IDs[r*b.Width : r*b.Width+len(want.IDs)]
					assert.Equal(t, want.IDs, row, "%s, maxLen %d, row %d", fixture, maxLen, r)
				}
			}
		}
	}
}
