package heuristic

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnalyzeStopsWhenCancelled: the line scan is most of a large input's scoring, so it must
// end soon after its context does, not after the last line.
func TestAnalyzeStopsWhenCancelled(t *testing.T) {
	lines := make([]string, 20*analyzeCheckEvery)
	for i := range lines {
		lines[i] = "worker processed batch in 12ms"
	}
	q := New().goals.parse("worker batch timeout")
	seen := 0
	count := func(int, []termHash) { seen++ }

	a, err := analyze(context.Background(), lines, q, "", count)
	require.NoError(t, err)
	require.Len(t, a.Lex, len(lines))
	assert.Equal(t, len(lines), seen)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	seen = 0
	a, err = analyze(ctx, lines, q, "", count)
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, a == nil, "an analysis of a cancelled scan")
	assert.Less(t, seen, analyzeCheckEvery, "lines scanned after the context ended")
}
