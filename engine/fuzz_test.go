package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// FuzzPrune checks the seed's invariants on arbitrary texts and options: kept lines are an
// ordered subsequence, the ratio and min-keep constraints hold, every marker equals its
// annotation and sits where its run was, annotations cover exactly the cut lines, recovery
// returns the original bytes, token stats are exact, and the same input gives the same
// output. CI runs the seed corpus; `make fuzz` runs it for minutes.
func FuzzPrune(f *testing.F) {
	_, reqs, _ := goldenRequests(f)
	for _, r := range reqs {
		f.Add(r.Text, r.GoalHint, uint8(3), uint8(200), uint8(2), uint16(r.TokenBudget), uint8(7))
	}
	f.Add("a\r\nb\x00\n\xff\xfe\n⟦NO_PRUNE_BEGIN⟧\nx\n", "b", uint8(0), uint8(255), uint8(0), uint16(0), uint8(0))
	f.Add("", "", uint8(1), uint8(0), uint8(1), uint16(5), uint8(3))
	f.Add("```\nx\n```\n# h\n", "x", uint8(2), uint8(128), uint8(1), uint16(0), uint8(1))
	f.Add("Title\n~~~~~\nx\n```\nnever closed\n~~~\ny\n~~~\n", "y", uint8(2), uint8(200), uint8(0), uint16(0), uint8(2))
	f.Add("alpha\nbeta\ngamma\ndelta\n", "beta", uint8(0), uint8(200), uint8(0), uint16(0), uint8(4|16))

	fx := newFixture(f, 4096)
	sources := []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs}
	f.Fuzz(func(t *testing.T, text, goal string, st, ratio, minKeep uint8, budget uint16, flags uint8) {
		o := engine.Options{
			MaxPruneRatio:  float64(ratio) / 255,
			MinKeepLines:   int(minKeep),
			TimeoutMS:      10000,
			AnnotateLines:  flags&1 != 0,
			IncludeMarkers: flags&2 != 0,
		}
		scorer := "keyword"
		if flags&4 != 0 {
			scorer = "hash"
			if flags&16 != 0 {
				scorer = "hashthreshold"
			}
		}
		req := &engine.Request{Text: text, GoalHint: goal, SourceType: sources[int(st)%3], Options: o, Scorer: scorer, TokenBudget: int(budget)}
		if flags&8 != 0 {
			zero := 0.0
			req.Threshold = &zero
		}
		res, err := fx.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		checkResult(t, fx, req, res)
		if res.Stats.UsedFallback {
			require.Equal(t, []string{engine.WarnInputTooLarge}, res.Warnings, "only oversize may fail open here")
		}
		again, err := fx.eng.Prune(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, res.Kept, again.Kept, "same input, same selection")
		require.Equal(t, strings.ReplaceAll(res.PrunedText, res.PruneID, "ID"), strings.ReplaceAll(again.PrunedText, again.PruneID, "ID"))
		if req.TokenBudget == 0 && !res.Stats.UsedFallback {
			flipped := *req
			flipped.Options.AnnotateLines = !o.AnnotateLines
			other, err := fx.eng.Prune(context.Background(), &flipped)
			require.NoError(t, err)
			require.Equal(t, res.Kept, other.Kept, "annotate_lines changes no annotation (seed 5.1)")
		}
	})
}
