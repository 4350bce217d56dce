package heuristic

import (
	"context"
	"slices"
	"strings"
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

// TestNamedTermsInsideLongerNames: a name the goal writes as code counts namedPartShare inside
// a longer identifier and 1 as itself, however the line spells it (member, call, declaration);
// prose terms and whole multi-part names count as before.
func TestNamedTermsInsideLongerNames(t *testing.T) {
	q := ParseGoal("`template` is an import and also used as a variable name")
	tf := func(line, term string) float32 {
		a := Analyze([]string{line}, q)
		for _, m := range a.lineMatches(0) {
			if q.Terms[m.term].Text == term {
				return m.tf
			}
		}
		return 0
	}
	require.True(t, q.Terms[slices.IndexFunc(q.Terms, func(x Term) bool { return x.Text == "template" })].Named)
	assert.Equal(t, float32(1), tf("template := fmt.Sprintf(x)", "template"))
	assert.Equal(t, float32(2), tf("t := template.New(x); template.Must(t)", "template"))
	assert.Equal(t, float32(namedPartShare), tf("templateFuncs[k] = v", "template"))
	assert.Equal(t, float32(namedPartShare), tf("func AddTemplateFunc(f any) {", "template"))
	assert.Equal(t, float32(1+namedPartShare), tf("template = add_template(x)", "template"))
	assert.Equal(t, float32(1), tf("variableName := 1", "variable"), "a prose term counts whole inside a name")

	a := Analyze([]string{"templateFuncs[k] = v", "template := v"}, q)
	assert.Greater(t, a.Lex[1], a.Lex[0], "the name itself outranks a longer name holding it")
}

// TestSpanScorerMatchesSpanScore: a SpanScorer reused over many spans, overlapping and in any
// order, answers each as a fresh SpanScore does (its scratch is reset between calls), named
// terms' fractional counts included.
func TestSpanScorerMatchesSpanScore(t *testing.T) {
	lines := strings.Split(`func parseHeader(l string) (Header, error) {
	h := Header{}
	if l == "" {
		return h, errEmptyHeader // parseHeader fails on empty input
	}
	for _, f := range strings.Fields(l) {
		h.fields = append(h.fields, parseHeaderField(f))
	}
	return h, nil
}

func render(w io.Writer, h Header) error {
	_, err := fmt.Fprintf(w, "%v", h.fields)
	return err
}`, "\n")
	a := Analyze(lines, ParseGoal("`parseHeader` fails on empty input: the header fields are lost"))
	spans := a.SpanScorer()
	n := len(lines)
	got, want := 0, 0
	for _, span := range [][2]int{{0, n}, {0, 4}, {2, 5}, {10, n}, {0, n}, {5, 8}, {3, 4}, {0, 1}, {11, 12}, {0, n}} {
		s := spans.Score(span[0], span[1], 6)
		assert.Equal(t, a.SpanScore(span[0], span[1], 6), s, "span %v", span)
		if s > 0 {
			got++
		}
		want++
	}
	assert.Greater(t, got, want/2, "most spans hold a goal term, so the comparison says something")
}
