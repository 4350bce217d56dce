package benchmarks

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fixedRows are rows with hand-set outcomes, so reports are byte-for-byte reproducible.
func fixedRows() []Row {
	b := func(v float64) *float64 { return &v }
	mk := func(scorer, st, ds string, budget *float64, recalls ...float64) Row {
		r := Row{Scorer: scorer, SourceType: st, Dataset: ds, Mode: ModeBudget, Budget: budget, Accounting: AccountingEngine}
		if budget == nil {
			r.Mode = ModeNatural
		}
		for i, rc := range recalls {
			r.outcomes = append(r.outcomes, outcome{recall: rc, hasGold: true, hit: rc > 0, tokensBefore: 1000, keptTokens: 100 * (i + 1), bytes: 4000, ms: float64(i + 1)})
		}
		r.finish()
		return r
	}
	return []Row{
		mk("heuristic", "code", "swe-bench", b(0.1), 0.5, 0.25),
		mk("heuristic", "code", "swe-bench", b(0.3), 1, 0.5),
		mk("heuristic", "code", "swe-bench", nil, 1, 1),
		mk("heuristic", "code", "fix-commits", b(0.1), 0),
		mk("heuristic", "code", "fix-commits", b(0.3), 1),
		mk("heuristic", "code", "fix-commits", nil, 1),
		mk("heuristic", "logs", "ci", b(0.1), 0.75),
		mk("heuristic", "logs", "ci", b(0.3), 1),
		mk("heuristic", "logs", "ci", nil, 1),
		mk("tail", "code", "swe-bench", b(0.1), 0, 0),
		mk("tail", "code", "swe-bench", b(0.3), 0.5, 0),
		mk("tail", "code", "swe-bench", nil, 1, 0.5),
		mk("tail", "code", "fix-commits", b(0.1), 0),
		mk("tail", "code", "fix-commits", b(0.3), 0),
		mk("tail", "code", "fix-commits", nil, 1),
		mk("tail", "logs", "ci", b(0.1), 1),
		mk("tail", "logs", "ci", b(0.3), 1),
		mk("tail", "logs", "ci", nil, 1),
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), string(got))
}

func TestMergeRows(t *testing.T) {
	merged := MergeRows(fixedRows(), bySourceType)
	require.Len(t, merged, 12)
	r := merged[0]
	assert.Equal(t, "heuristic", r.Scorer)
	assert.Equal(t, "code", r.SourceType)
	assert.Equal(t, "all", r.Dataset)
	assert.Equal(t, 3, r.Cases)
	assert.InDelta(t, (0.5+0.25+0)/3, r.Recall, 1e-12, "macro over the cases of both datasets")
	assert.InDelta(t, 1.0/3*2, r.HitRate, 1e-12)
}

func TestReports(t *testing.T) {
	rows := fixedRows()
	meta := Meta{
		Command: "pruner bench --limit 2", Machine: "test machine", GoVersion: "go1.x",
		Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Elapsed: 90 * time.Second,
		Files: []string{"code.dev.jsonl.gz"}, Cases: 5, Accounting: AccountingEngine, Encoding: "cl100k_base", Parallel: 2, SVG: "recall.svg",
	}
	var md, svg, js, table bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, rows, meta))
	require.NoError(t, WriteSVG(&svg, rows))
	require.NoError(t, WriteJSON(&js, rows))
	require.NoError(t, WriteTable(&table, rows))
	golden(t, "report.md.golden", md.Bytes())
	golden(t, "report.svg.golden", svg.Bytes())
	golden(t, "report.json.golden", js.Bytes())
	golden(t, "report.table.golden", table.Bytes())

	t.Run("json schema", func(t *testing.T) {
		var got []map[string]any
		require.NoError(t, json.Unmarshal(js.Bytes(), &got))
		require.Len(t, got, len(rows))
		for _, k := range []string{"scorer", "source_type", "dataset", "mode", "budget", "cases", "recall", "hit_rate", "reduction", "p50_ms", "p99_ms", "mb_per_s"} {
			assert.Contains(t, got[0], k)
		}
		assert.Nil(t, got[2]["budget"], "natural mode has no budget")
		assert.Equal(t, "natural", got[2]["mode"])
	})
	t.Run("svg is well-formed, one line per scorer and source type", func(t *testing.T) {
		dec := xml.NewDecoder(bytes.NewReader(svg.Bytes()))
		polylines := 0
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
				polylines++
			}
		}
		assert.Equal(t, 4, polylines, "2 scorers x 2 source types")
		assert.NotContains(t, svg.String(), "<script")
	})
	t.Run("markdown links the chart and states the command", func(t *testing.T) {
		assert.Contains(t, md.String(), "![recall against token budget, per scorer and source type](recall.svg)")
		assert.Contains(t, md.String(), "`pruner bench --limit 2`")
		assert.Contains(t, md.String(), "| heuristic | 0.250 | 0.833 | 1.000 | 0.867 |")
	})
	t.Run("the oracle is explained when it ran", func(t *testing.T) {
		assert.NotContains(t, md.String(), "`oracle`")
		withOracle := fixedRows()
		o := withOracle[0]
		o.Scorer = BaselineOracle
		withOracle = append(withOracle, o)
		var b bytes.Buffer
		require.NoError(t, WriteMarkdown(&b, withOracle, meta))
		assert.Contains(t, b.String(), "`oracle` scores each case's gold lines 1")
		assert.Contains(t, b.String(), "| oracle |")
	})
}

func TestMarkdownSaysHowSureTheAimsAre(t *testing.T) {
	row := func(scorer string, budget float64, recalls map[string]float64) Row {
		r := Row{Scorer: scorer, SourceType: "code", Dataset: "swe-bench", Mode: ModeBudget, Budget: &budget, Accounting: AccountingEngine}
		for _, id := range []string{"swebench/a__a-1", "swebench/a__a-2", "swebench/b__b-7"} {
			r.outcomes = append(r.outcomes, outcome{id: id, recall: recalls[id], hasGold: true, tokensBefore: 1000, keptTokens: 200, bytes: 4000, ms: 1})
		}
		r.finish()
		return r
	}
	recalls := map[string]float64{"swebench/a__a-1": 1, "swebench/a__a-2": 1, "swebench/b__b-7": 0.4}
	rows := []Row{row("structural", 0.2, recalls), row("structural", 0.1, recalls), row(BaselineBM25, 0.2, recalls)}
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, rows, Meta{Command: "pruner bench", Accounting: AccountingEngine}))
	md := b.String()
	require.Contains(t, md, "#### How sure: the aims on other repositories")
	// Two repositories (a: 1 and 1, b: 0.4), so a draw's mean is 1, 0.8 or 0.4, under the
	// aim of 0.80 when b is drawn twice (a quarter of the draws) or once (a half: 0.8 is
	// not under it, 1·2+0.4 over 3 cases is 0.8).
	assert.Regexp(t, `\| structural \| code \| swe-bench \| 2 \| 0\.800 \| 0\.400 \| 0\.800 \| 1\.000 \| 0\.80 @ 20% \| 2\d\.\d% \|`, md)
	assert.NotContains(t, md, "| bm25 | code | swe-bench | 2 |", "baselines are not held to the aims")
	assert.Equal(t, 1, strings.Count(md, "0.80 @ 20%"), "only the budget the aims are set at")
}

func TestReplaceSection(t *testing.T) {
	block := SectionBegin + "\nNEW\n" + SectionEnd
	tests := []struct {
		name, doc, want, err string
	}{
		{"empty doc", "", block + "\n", ""},
		{"append after others' sections", "# Results\n\n## Engine\nfast", "# Results\n\n## Engine\nfast\n\n" + block + "\n", ""},
		{"replace in place", "# R\n" + SectionBegin + "\nOLD\nOLD\n" + SectionEnd + "\n## Tail\nkept\n", "# R\n" + block + "\n## Tail\nkept\n", ""},
		{"markers out of order", SectionEnd + "\n" + SectionBegin, "", "not in order"},
		{"missing end", SectionBegin + "\nOLD", "", "not in order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReplaceSection(tt.doc, "NEW\n")
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := ReplaceSection(got, "NEW\n")
			require.NoError(t, err)
			assert.Equal(t, got, again, "idempotent")
			assert.True(t, strings.Count(got, SectionBegin) == 1)
		})
	}
}

func TestFailOpenIsFlagged(t *testing.T) {
	assert.Empty(t, FailOpenWarning(fixedRows()), "no fallback, no warning")
	md := func(rows []Row) string {
		var b bytes.Buffer
		require.NoError(t, WriteMarkdown(&b, rows, Meta{Command: "pruner bench", Accounting: AccountingEngine}))
		return b.String()
	}
	assert.NotContains(t, md(fixedRows()), "⚠")

	rows := fixedRows()
	// One budget-mode case and one natural-mode case failed open.
	rows[0].outcomes[1].fallback, rows[0].outcomes[1].overBudget = true, true
	rows[0].finish()
	rows[2].outcomes[0].fallback = true
	rows[2].finish()
	w := FailOpenWarning(rows)
	assert.Contains(t, w, "1 budget-mode result failed open")
	assert.Contains(t, w, "heuristic code swe-bench 10%: 1")
	assert.NotContains(t, w, "natural")
	out := md(rows)
	assert.Contains(t, out, "| heuristic | 0.250 ⚠ 1 |", "the merged code row at 10%% carries the mark")
	assert.Contains(t, out, "⚠ N: N cases of the cell failed open")
}
