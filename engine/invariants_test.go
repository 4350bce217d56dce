package engine_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

var markerRE = regexp.MustCompile(`^⟦PRUNÉ: prune_id=(?P<id>[^\s]+) lignes (?P<start>\d+)-(?P<end>\d+) \((?P<count>\d+)\) raison=(?P<reason>.*)⟧$`)

// checkResult asserts every invariant the seed promises of a prune result.
func checkResult(t testing.TB, f *fixture, req *engine.Request, res *engine.Result) {
	t.Helper()
	lines := engine.SplitLines(req.Text)
	n := len(lines)
	o := req.Options
	s := res.Stats

	require.Regexp(t, `^prn_[0-9a-f]{32}$`, res.PruneID)
	require.NotNil(t, res.Annotations)
	require.NotNil(t, res.Warnings)
	assert.Equal(t, n, s.OriginalLines)
	assert.Equal(t, n, s.KeptLines+s.PrunedLines)
	if slices.Contains(res.Warnings, engine.WarnInputTooLarge) || slices.Contains(res.Warnings, engine.WarnNotUTF8Text) {
		est := (len(req.Text) + 3) / 4
		assert.Equal(t, est, s.TokensEstBefore, "an oversized or undecodable text's tokens are estimated, not counted")
		assert.Equal(t, est, s.TokensEstAfter)
	} else {
		assert.Equal(t, f.tok.Count(req.Text), s.TokensEstBefore, "tokens_est_before is the exact count")
		assert.Equal(t, f.tok.Count(res.PrunedText), s.TokensEstAfter, "tokens_est_after is the exact count")
	}

	if s.UsedFallback {
		assert.Equal(t, req.Text, res.PrunedText, "fallback returns the text unchanged")
		assert.Empty(t, res.Annotations)
		assert.NotEmpty(t, res.Warnings)
	} else {
		maxPruned := int(float64(n)*o.MaxPruneRatio + 1e-9)
		assert.LessOrEqual(t, s.PrunedLines, maxPruned, "max_prune_ratio is a hard constraint")
		assert.GreaterOrEqual(t, s.KeptLines, min(o.MinKeepLines, n), "min_keep_lines is a hard constraint")
		if n > 0 {
			assert.InDelta(t, float64(s.PrunedLines)/float64(n), s.PrunedRatio, 1e-6)
		}
	}

	// Kept lines are an ordered subsequence; annotations cover exactly the cut lines.
	kept := map[int]bool{}
	prev := 0
	for _, k := range res.Kept {
		require.Greater(t, k, prev, "kept lines ascend")
		require.LessOrEqual(t, k, n)
		kept[k] = true
		prev = k
	}
	assert.Len(t, res.Kept, s.KeptLines)
	covered := 0
	for _, a := range res.Annotations {
		assert.Equal(t, engine.AnnotationKind, a.Kind)
		assert.Equal(t, a.OriginalEndLine-a.OriginalStartLine+1, a.PrunedLineCount)
		for l := a.OriginalStartLine; l <= a.OriginalEndLine; l++ {
			require.False(t, kept[l], "line %d is both kept and cut", l)
			covered++
		}
		m := markerRE.FindStringSubmatch(a.Marker)
		require.NotNil(t, m, "marker %q has the canonical form", a.Marker)
		assert.Equal(t, res.PruneID, m[1])
		assert.Equal(t, strconv.Itoa(a.OriginalStartLine), m[2])
		assert.Equal(t, strconv.Itoa(a.OriginalEndLine), m[3])
		assert.Equal(t, strconv.Itoa(a.PrunedLineCount), m[4])
		assert.Equal(t, a.Reason, m[5])
		assert.NotContains(t, a.Marker, "\n")
	}
	assert.Equal(t, n-s.KeptLines, covered, "annotations cover exactly the cut lines")

	if !s.UsedFallback {
		assert.Equal(t, rebuild(lines, strings.HasSuffix(req.Text, "\n"), res, o), res.PrunedText,
			"pruned_text is the kept lines with each marker where its run was")
	}

	// Recovery of the whole text and of every annotation returns the original bytes.
	if n > 0 {
		rec, err := f.eng.Recover(context.Background(), res.PruneID, []engine.Range{{StartLine: 1, EndLine: n + 5}}, false)
		require.NoError(t, err)
		assert.Equal(t, req.Text, rec.RawText, "recovering 1..N returns the original bytes")
		for _, a := range res.Annotations {
			rec, err := f.eng.Recover(context.Background(), res.PruneID, []engine.Range{{StartLine: a.OriginalStartLine, EndLine: a.OriginalEndLine}}, false)
			require.NoError(t, err)
			want := strings.Join(lines[a.OriginalStartLine-1:a.OriginalEndLine], "\n")
			if a.OriginalEndLine == n && strings.HasSuffix(req.Text, "\n") {
				want += "\n"
			}
			assert.Equal(t, want, rec.RawText)
		}
	}
}

// rebuild renders the expected pruned_text from the result's kept lines and annotations.
func rebuild(lines []string, trailing bool, res *engine.Result, o engine.Options) string {
	var out []string
	ann := map[int]engine.Annotation{}
	for _, a := range res.Annotations {
		ann[a.OriginalStartLine] = a
	}
	kept := map[int]bool{}
	for _, k := range res.Kept {
		kept[k] = true
	}
	for i := 1; i <= len(lines); i++ {
		if kept[i] {
			if o.AnnotateLines {
				out = append(out, engine.LinePrefix(i)+lines[i-1])
			} else {
				out = append(out, lines[i-1])
			}
		} else if a, ok := ann[i]; ok && o.IncludeMarkers {
			// A marker line ends as the last line it stands for does: "\r" in a CRLF text.
			if strings.HasSuffix(lines[a.OriginalEndLine-1], "\r") {
				out = append(out, a.Marker+"\r")
			} else {
				out = append(out, a.Marker)
			}
		}
	}
	s := strings.Join(out, "\n")
	if trailing && len(out) > 0 {
		s += "\n"
	}
	return s
}
