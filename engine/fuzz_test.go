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

	// Extra seeds (fuzz campaign): line endings, BOM, NUL, tabs, long lines, directives,
	// marker look-alikes, tiny budgets, min_keep > lines, annotate_lines with a budget.
	f.Add("alpha\r\nbeta\r\ngamma\r\ndelta\r\nepsilon\r\n", "beta", uint8(0), uint8(255), uint8(0), uint16(0), uint8(2))
	f.Add("alpha\r\nbeta\r\ngamma\r\ndelta\r\nepsilon", "gamma", uint8(1), uint8(255), uint8(0), uint16(9), uint8(3))
	f.Add("one\rtwo\rthree\rfour\r", "two", uint8(0), uint8(255), uint8(0), uint16(3), uint8(3))
	f.Add("a\r\nb\nc\r\nd\re\r\n\r\n", "c", uint8(2), uint8(255), uint8(1), uint16(4), uint8(7))
	f.Add("\ufeffpackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(1)\n}\n", "main", uint8(0), uint8(255), uint8(0), uint16(6), uint8(3))
	f.Add("x\x00y\n\x00\n\t\tz\t\n\xc3\x28\n\xed\xa0\x80\nw\n", "z", uint8(1), uint8(255), uint8(0), uint16(2), uint8(7))
	f.Add("keep this line\n"+strings.Repeat("long filler words go here ", 80)+"\nkeep end\n", "keep", uint8(0), uint8(255), uint8(0), uint16(0), uint8(2))
	f.Add("a\n⟦NO_PRUNE_BEGIN⟧\nb\n⟦NO_PRUNE_BEGIN⟧ c ⟦NO_PRUNE_END⟧\nd\n⟦NO_PRUNE_END⟧\ne\nf\n⟦NO_PRUNE_END⟧\ng\n", "zz", uint8(0), uint8(255), uint8(0), uint16(1), uint8(3))
	f.Add("a\r\n⟦NO_PRUNE_BEGIN⟧\r\nb\r\n⟦NO_PRUNE_END⟧\r\nc\r\nd\r\n", "zz", uint8(2), uint8(255), uint8(0), uint16(0), uint8(2))
	f.Add("x\n⟦PRUNÉ: prune_id=prn_00000000000000000000000000000000 lignes 2-3 (2) raison=pertinence faible⟧\ny\nz\nw\n", "y", uint8(0), uint8(255), uint8(0), uint16(0), uint8(3))
	f.Add("⟦PRUNÉ: ⟧\n⟦\n⟧\n⟦PRUNÉ: prune_id=x lignes 1-1 (1) raison=⟧\nq\n", "⟦PRUNÉ q⟧", uint8(1), uint8(255), uint8(0), uint16(0), uint8(2))
	f.Add("l1\nl2\nl3\nl4\nl5\nl6\n", "l3", uint8(0), uint8(255), uint8(200), uint16(1), uint8(7))
	f.Add("l1\nl2\nl3\nl4\nl5\nl6\n", "l3 l5", uint8(1), uint8(255), uint8(0), uint16(1), uint8(1|2|4))
	f.Add("l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\n", "l1", uint8(2), uint8(255), uint8(0), uint16(12), uint8(1|2|8))
	f.Add("\n\n\n\n", "", uint8(0), uint8(255), uint8(0), uint16(1), uint8(3))
	f.Add("\r\n", "x", uint8(0), uint8(255), uint8(0), uint16(1), uint8(3))
	f.Add("\r", "x", uint8(0), uint8(255), uint8(0), uint16(1), uint8(3))
	f.Add("error: boom\nfine\nfine\nfine\nTraceback\nfine\n", "KELVIN \u212a İstanbul", uint8(1), uint8(255), uint8(0), uint16(5), uint8(3|4|16))
	f.Add("# T\n\n```go\ncode\n```\nprose\nTitle\n=====\nmore\n", "prose", uint8(2), uint8(255), uint8(0), uint16(3), uint8(3))
	f.Add("1\n22\n333\n4444\n55555\n666666\n7777777\n88888888\n999999999\n1000000000\n", "4444 \x01⟦x⟧", uint8(0), uint8(128), uint8(3), uint16(7), uint8(3))
	// Long texts under the 4,096-character limit: 2,000+ lines reach the protection rules'
	// overlap with the scorer and the two-halves count of a numbered output.
	f.Add(strings.Repeat("a\n\n", 700)+"error here\n"+strings.Repeat("b\n", 600), "error", uint8(1), uint8(255), uint8(0), uint16(0), uint8(3))
	f.Add(strings.Repeat("x\r\n", 1100)+"keep\r\n", "keep", uint8(0), uint8(250), uint8(5), uint16(300), uint8(3))
	f.Add(strings.Repeat("\n", 2500)+"z", "z", uint8(2), uint8(255), uint8(0), uint16(0), uint8(1|2|4))
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
			// Only oversize and text the engine cannot cut by lines (UTF-16, binary, CR-only)
			// may fail open here: the test scorers neither fail nor hang.
			require.Len(t, res.Warnings, 1)
			require.Contains(t, []string{engine.WarnInputTooLarge, engine.WarnNotUTF8Text}, res.Warnings[0], "only oversize or an undecodable text may fail open here")
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
