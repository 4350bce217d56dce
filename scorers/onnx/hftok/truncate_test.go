package hftok

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongestFirst is the crate's own test of longest_first truncation
// (tokenizers/src/utils/truncation.rs, truncate_encodings_longest_first): sides of 0, 2, 4
// and 8 tokens in every combination, truncated to 7.
func TestLongestFirst(t *testing.T) {
	tests := []struct{ na, nb, wantA, wantB int }{
		{0, 0, 0, 0}, {0, 2, 0, 2}, {0, 4, 0, 4}, {0, 8, 0, 7},
		{2, 0, 2, 0}, {2, 2, 2, 2}, {2, 4, 2, 4}, {2, 8, 2, 5},
		{4, 0, 4, 0}, {4, 2, 4, 2}, {4, 4, 3, 4}, {4, 8, 3, 4},
		{8, 0, 7, 0}, {8, 2, 5, 2}, {8, 4, 4, 3}, {8, 8, 3, 4},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d+%d", tt.na, tt.nb), func(t *testing.T) {
			a, b := longestFirst(tt.na, tt.nb, 7)
			assert.Equal(t, [2]int{tt.wantA, tt.wantB}, [2]int{a, b})
		})
	}
	a, b := longestFirst(4, 8, 0) // truncate_encodings_empty
	assert.Equal(t, [2]int{0, 0}, [2]int{a, b})
}

// TestEncodePairTruncation checks the rule end to end: a goal and a line both longer than half
// the budget get half each, and the line, the longer, the odd token.
func TestEncodePairTruncation(t *testing.T) {
	tok, err := Load("testdata/wordpiece.json")
	require.NoError(t, err)
	// "find the bug" is 3 tokens, "return x return x" 4; 5 + 3 special tokens leave 5.
	e := tok.EncodePair("find the bug", "return x return x", 8)
	assert.Equal(t, []int64{2, 4, 5, 3, 20, 17, 20, 3}, e.IDs)
	assert.Equal(t, []int64{0, 0, 0, 0, 1, 1, 1, 1}, e.TypeIDs)
}
