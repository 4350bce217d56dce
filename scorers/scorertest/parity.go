package scorertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// SamePrunes prunes every request with scorer a and with scorer b through the real engine
// and asserts identical results (text with the prune id normalised, annotations, kept
// lines, warnings, stats) and scores equal to 1e-9. It proves that two ways of running one scorer (in-process and
// through the plugin shim) are interchangeable. Requests without Options get the engine's
// defaults with a generous timeout, so a slow machine does not turn into a fail-open diff.
func SamePrunes(t *testing.T, a, b engine.Scorer, reqs []*engine.Request) {
	t.Helper()
	ea, eb := newEngine(t, a), newEngine(t, b)
	for i, req := range reqs {
		r := *req
		r.Scorer = "s"
		if r.Options == (engine.Options{}) {
			r.Options = engine.DefaultOptions()
			r.Options.TimeoutMS = int(Watchdog / time.Millisecond)
		}
		ra, err := ea.Prune(context.Background(), &r)
		require.NoError(t, err, "request %d", i)
		rb, err := eb.Prune(context.Background(), &r)
		require.NoError(t, err, "request %d", i)
		require.False(t, ra.Stats.UsedFallback, "request %d: first scorer failed open: %v", i, ra.Warnings)
		require.False(t, rb.Stats.UsedFallback, "request %d: second scorer failed open: %v", i, rb.Warnings)
		na, nb := normalise(ra), normalise(rb)
		// Scores may differ in the last bits when a scorer sums floats in map order; the
		// pruned output may not.
		if assert.Len(t, nb.Scores, len(na.Scores), "request %d", i) {
			assert.InDeltaSlice(t, na.Scores, nb.Scores, 1e-9, "request %d scored differently", i)
		}
		na.Scores, nb.Scores = nil, nil
		assert.Equal(t, na, nb, "request %d pruned differently", i)
	}
}

type pruned struct {
	Text        string
	Annotations []engine.Annotation
	Kept        []int
	Scores      []float64
	Warnings    []string
	Stats       engine.Stats
}

func normalise(r *engine.Result) pruned {
	anns := make([]engine.Annotation, len(r.Annotations))
	for i, a := range r.Annotations {
		a.Marker = strings.ReplaceAll(a.Marker, r.PruneID, "ID")
		anns[i] = a
	}
	st := r.Stats
	st.ElapsedMS = 0
	return pruned{
		Text: strings.ReplaceAll(r.PrunedText, r.PruneID, "ID"), Annotations: anns,
		Kept: r.Kept, Scores: r.Scores, Warnings: r.Warnings, Stats: st,
	}
}

// runeCounter counts code points: cheap, deterministic, and sensitive to every byte kept.
type runeCounter struct{}

func (runeCounter) Count(s string) int { return len([]rune(s)) }

func newEngine(t *testing.T, s engine.Scorer) *engine.Engine {
	t.Helper()
	reg := engine.NewRegistry()
	reg.Register("s", s)
	e, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 256<<20, nil), Tokens: runeCounter{}})
	require.NoError(t, err)
	return e
}
