package heuristic

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
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
	var seen atomic.Int64 // the scan's parts call the hook concurrently
	count := func(int, []termHash) { seen.Add(1) }

	a, err := analyze(context.Background(), lines, q, "", count, nil)
	require.NoError(t, err)
	require.Len(t, a.Lex, len(lines))
	assert.Equal(t, int64(len(lines)), seen.Load())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	seen.Store(0)
	a, err = analyze(ctx, lines, q, "", count, nil)
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, a == nil, "an analysis of a cancelled scan")
	assert.Less(t, seen.Load(), int64(scanWorkers(lines)*analyzeCheckEvery), "lines scanned after the context ended")
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

// TestAnalysisInPartsIsTheSame: a large input is scanned by several goroutines, and the
// analysis they join must be the one a single scan makes, bit for bit, hook calls included,
// and what the calling goroutine finds beside them must be what it finds alone.
func TestAnalysisInPartsIsTheSame(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	lines = append(lines, "", "\x1b[31merror\x1b[0m: analyze failed", "")
	q := New().goals.parse("`analyze` returns the wrong matchStart when appendTerms splits ParseGoal's terms")
	scan := func(k int) (*Analysis, []int) {
		hooked := make([]int, len(lines))
		a, err := analyzeParts(context.Background(), lines, q, "scorers/heuristic/analysis.go",
			func(i int, hs []termHash) { hooked[i] = len(hs) + 1 }, k,
			func(a *Analysis) { a.tree, a.comment = buildTree(lines), CommentLines(lines) })
		require.NoError(t, err)
		return a, hooked
	}
	want, wantHooked := scan(1)
	require.NotEmpty(t, want.matches, "the goal's terms are in the package's source")
	assert.Nil(t, want.comment, "one part: nothing runs beside the scan")
	for _, k := range []int{2, 3, 7, len(lines) + 5} {
		got, hooked := scan(k)
		assert.Equal(t, buildTree(lines), got.tree, "%d parts: the tree found beside the scan", k)
		assert.Equal(t, CommentLines(lines), got.comment, "%d parts: the comments found beside the scan", k)
		assert.Equal(t, got.tree, got.indentTree(lines))
		assert.Equal(t, got.comment, got.CommentLines(lines))
		got.tree, got.comment = tree{}, nil
		assert.Equal(t, want, got, "%d parts", k)
		assert.Equal(t, wantHooked, hooked, "%d parts", k)
	}
}

// TestAnalyzeDoesNotWaitForAlongsideOnceDone: what runs beside a large scan cannot be
// cancelled, so once the context is done analyze must answer without waiting for it (here it
// would wait forever), or a deadline would stretch by the tree's and the comments' time.
func TestAnalyzeDoesNotWaitForAlongsideOnceDone(t *testing.T) {
	lines := make([]string, 4*parallelScanLines)
	for i := range lines {
		lines[i] = "worker processed batch in 12ms"
	}
	q := New().goals.parse("worker batch timeout")
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, err := analyzeParts(ctx, lines, q, "", nil, 2, func(*Analysis) { <-release })
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, a == nil, "an analysis of a cancelled scan")
}

// FuzzAnalysisInParts: for any text and goal, the analysis joined from parts is the one a
// single scan makes (the dev texts that reach the parts in practice are 2,000 lines and more;
// here every split point the fuzzer finds is one).
func FuzzAnalysisInParts(f *testing.F) {
	f.Add("func f() {\n\treturn err\n}\n\n// `f` fails\nx := f()", "why does `f` fail with err", uint8(2))
	f.Add("\x1b[31mERROR\x1b[0m one\ntwo\n\nthree error_code\n", "error code three", uint8(3))
	f.Add("a\nb\nc", "", uint8(7))
	f.Fuzz(func(t *testing.T, text, goal string, parts uint8) {
		lines := strings.Split(text, "\n")
		q := New().goals.parse(goal)
		scan := func(k int) (*Analysis, []int) {
			hooked := make([]int, len(lines))
			a, err := analyzeParts(context.Background(), lines, q, "", func(i int, hs []termHash) { hooked[i] = len(hs) + 1 }, k, nil)
			require.NoError(t, err)
			return a, hooked
		}
		want, wantHooked := scan(1)
		got, hooked := scan(2 + int(parts)%6)
		assert.Equal(t, want, got)
		assert.Equal(t, wantHooked, hooked)
	})
}

// TestPartBounds: the scan's parts share the work (bytes and lines) about evenly, however
// uneven the lines, and every part holds at least one line. A split by line counts gave one
// of two workers 34 KB of a CI log and the other 162 KB.
func TestPartBounds(t *testing.T) {
	work := func(ls []string) int {
		w := 0
		for _, l := range ls {
			w += len(l) + lineWork
		}
		return w
	}
	short, long := "ok", strings.Repeat("x", 2000)
	uneven := slices.Repeat([]string{short}, 5000)
	uneven = append(uneven, slices.Repeat([]string{long}, 100)...) // most of the bytes at the end
	for _, tc := range []struct {
		name  string
		lines []string
		k     int
	}{
		{"one part", uneven, 1},
		{"even lines", slices.Repeat([]string{"some line of text"}, 1000), 2},
		{"short lines first", uneven, 2},
		{"short lines first, 3 parts", uneven, 3},
		{"one huge line first", append([]string{strings.Repeat("y", 1<<20)}, slices.Repeat([]string{short}, 10)...), 4},
		{"as many parts as lines", []string{"a", long, "b"}, 3},
		{"empty lines", slices.Repeat([]string{""}, 10), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := partBounds(tc.lines, tc.k)
			require.Len(t, b, tc.k+1)
			assert.Equal(t, 0, b[0])
			assert.Equal(t, len(tc.lines), b[tc.k])
			total, line := work(tc.lines), 0
			for _, l := range tc.lines {
				line = max(line, len(l)+lineWork)
			}
			for w := range tc.k {
				require.Less(t, b[w], b[w+1], "part %d holds a line", w)
				// A part of several lines does its share, and at most the line that
				// crosses it more.
				if b[w+1]-b[w] > 1 {
					assert.LessOrEqual(t, work(tc.lines[b[w]:b[w+1]]), total/tc.k+line, "part %d of %v", w, b)
				}
			}
		})
	}
}
