package engine_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// storeText stores text under a fresh id, as a prune would.
func storeText(t *testing.T, f *fixture, text string) string {
	t.Helper()
	id := engine.NewPruneID()
	require.NoError(t, f.store.Put(context.Background(), id, text))
	return id
}

func repeatRange(r engine.Range, n int) []engine.Range {
	out := make([]engine.Range, n)
	for i := range out {
		out[i] = r
	}
	return out
}

// TestRecoverLimit: ranges may repeat and overlap, but what they ask for, counted each time,
// is bounded by RecoverMaxFactor times the whole text (at least RecoverMinBytes), so a short
// request cannot make the server build an answer thousands of times its size.
func TestRecoverLimit(t *testing.T) {
	f := newFixture(t, 0)
	line := strings.Repeat("x", 99) + "\n"
	large := strings.Repeat(line, 6000) // 600 KB: the factor binds, not the floor
	require.Greater(t, engine.RecoverMaxFactor*len(large), engine.RecoverMinBytes)
	// One huge line among short ones: a bound in lines would let it be asked for 2N times.
	huge := strings.Repeat("a\n", 999) + strings.Repeat("h", 700_000) + "\n"
	small := strings.Repeat(line, 30)
	whole := func(n int) engine.Range { return engine.Range{StartLine: 1, EndLine: n} }
	tests := []struct {
		name    string
		text    string
		ranges  []engine.Range
		numbers bool
		want    string       // the answer; "" when refused
		refused engine.Range // the range that went past the limit
	}{
		{name: "whole text twice", text: large, ranges: repeatRange(whole(6000), 2), want: large + large},
		{name: "whole text twice and one line more", text: large,
			ranges:  append(repeatRange(whole(6000), 2), engine.Range{StartLine: 1, EndLine: 1}),
			refused: engine.Range{StartLine: 1, EndLine: 1}},
		{name: "whole text twice with line numbers", text: large, ranges: repeatRange(whole(6000), 2), numbers: true,
			want: numbered(large) + numbered(large)},
		{name: "the huge line three times", text: huge, ranges: repeatRange(engine.Range{StartLine: 1000, EndLine: 1000}, 3),
			refused: engine.Range{StartLine: 1000, EndLine: 1000}},
		{name: "overlapping windows past the end of a short text", text: small,
			ranges: []engine.Range{{StartLine: 1, EndLine: 60}, {StartLine: 1, EndLine: 70}, {StartLine: 20, EndLine: 80}},
			want:   small + small + strings.Repeat(line, 11)},
		{name: "a short text many times, under the floor", text: small, ranges: repeatRange(whole(30), 300),
			want: strings.Repeat(small, 300)},
		{name: "a short text many times, over the floor", text: small, ranges: repeatRange(whole(30), 400),
			refused: whole(30)},
		{name: "the reviewer's amplification", text: large[:100_000], ranges: repeatRange(whole(1000), 2000),
			refused: whole(1000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := storeText(t, f, tc.text)
			rec, err := f.eng.Recover(context.Background(), id, tc.ranges, tc.numbers)
			if tc.want != "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, rec.RawText)
				return
			}
			require.ErrorIs(t, err, engine.ErrInvalidRange)
			var re *engine.RangeError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, tc.refused, re.Range)
			assert.Equal(t, len(engine.SplitLines(tc.text)), re.MaxLine)
			assert.Contains(t, re.Problem, "at most 2 times the whole text")
		})
	}
}

// numbered is text with every line prefixed as include_line_numbers does.
func numbered(text string) string {
	lines := engine.SplitLines(text)
	for i, l := range lines {
		lines[i] = engine.LinePrefix(i+1) + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestRecoverRefusesBeforeBuilding: a refused recovery allocates next to nothing, however
// much its ranges ask for (2,000 copies of a 100 KB text cost 4.5 GB of allocation before).
func TestRecoverRefusesBeforeBuilding(t *testing.T) {
	f := newFixture(t, 0)
	text := strings.Repeat(strings.Repeat("x", 99)+"\n", 1000)
	id := storeText(t, f, text)
	ranges := repeatRange(engine.Range{StartLine: 1, EndLine: 1000}, 2000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := f.eng.Recover(context.Background(), id, ranges, true)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, engine.ErrInvalidRange)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "bytes allocated by a refused recovery")
}

// TestRecoverStopsWhenCancelled: a recovery whose caller has gone builds nothing.
func TestRecoverStopsWhenCancelled(t *testing.T) {
	f := newFixture(t, 0)
	id := storeText(t, f, "one\ntwo\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.eng.Recover(ctx, id, []engine.Range{{StartLine: 1, EndLine: 2}}, false)
	require.ErrorIs(t, err, context.Canceled)
}
