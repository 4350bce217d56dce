package structural

import (
	"context"
	"fmt"
	"hash/maphash"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"reflect"
)

// synthFile builds a realistic file of about n lines in lang ("go" or "python") from
// varied definitions, so benchmarks and the memory test parse real structure.
func synthFile(lang string, n int) []string {
	var out []string
	switch lang {
	case "go":
		out = append(out, "package synth", "", "import (", "\t\"errors\"", "\t\"strings\"", ")", "")
		for k := 0; len(out) < n; k++ {
			out = append(out,
				fmt.Sprintf("// handle%d validates and normalises one request field.", k),
				fmt.Sprintf("func handle%d(s string, limit int) (string, error) {", k),
				"\tif len(s) > limit {",
				fmt.Sprintf("\t\treturn \"\", errors.New(\"field %d too long\")", k),
				"\t}",
				"\tparts := strings.Split(s, \",\")",
				"\tfor i, p := range parts {",
				"\t\tparts[i] = strings.TrimSpace(p)",
				"\t}",
				"\treturn strings.Join(parts, \",\"), nil",
				"}",
				"")
		}
	default:
		out = append(out, "import os", "import re", "")
		for k := 0; len(out) < n; k++ {
			out = append(out,
				fmt.Sprintf("class Handler%d(object):", k),
				fmt.Sprintf("    \"\"\"Handles field %d.\"\"\"", k),
				"",
				"    def validate(self, s, limit):",
				"        if len(s) > limit:",
				fmt.Sprintf("            raise ValueError('field %d too long')", k),
				"        parts = [p.strip() for p in s.split(',')]",
				"        return ','.join(parts)",
				"",
				"")
		}
	}
	return out[:n]
}

// rssBytes reads the resident set size from /proc (C allocations included).
func rssBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm: cannot measure RSS here")
	}
	f := strings.Fields(string(b))
	require.GreaterOrEqual(t, len(f), 2)
	pages, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return pages * int64(os.Getpagesize())
}

// TestNoMemoryGrowth parses 10,000 times and checks the resident memory does not grow with
// the number of parses: trees and parsers must be freed, not left to finalizers.
func TestNoMemoryGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 parses: skipped with -short")
	}
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	reqs := []*engine.ScoreRequest{
		{Lines: synthFile("go", 60), Goal: "handle7 field too long", SourceType: engine.SourceCode, Path: "a.go"},
		{Lines: synthFile("python", 60), Goal: "Handler3 validate", SourceType: engine.SourceCode, Path: "a.py"},
	}
	run := func(times int) {
		for i := 0; i < times; i++ {
			_, err := s.Score(context.Background(), reqs[i%len(reqs)])
			require.NoError(t, err)
		}
		runtime.GC()
	}
	run(500) // warm up: pools, allocator arenas
	before := rssBytes(t)
	run(10000)
	after := rssBytes(t)
	growth := after - before
	t.Logf("RSS before %d KiB, after 10,000 parses %d KiB", before>>10, after>>10)
	// A leaked tree of these files is ~100 KiB: 10,000 of them would be ~1 GiB.
	assert.Less(t, growth, int64(32<<20), "resident memory grew by %d KiB over 10,000 parses", growth>>10)
}

// benchRevision numbers the texts benchmarks make, unique across -count runs (a repeated
// text would hit the caches).
var benchRevision atomic.Int64

// BenchmarkScore measures parse + score of a file the scorer meets in three states:
//   - file=new: a file never seen (a new path, and a comment appended to every 100th line,
//     so every window of a long file is parsed too);
//   - file=edited: the file at the same path with one line changed since the last call (an
//     agent's read, edit, read again), reparsed incrementally from the kept tree;
//   - file=unchanged: the same text again (a re-read with another goal), which the outline
//     cache answers without parsing.
func BenchmarkScore(b *testing.B) {
	s := New()
	b.Cleanup(func() { _ = s.Close() })
	for _, lang := range []string{"go", "python"} {
		for _, n := range []int{1000, 2000, 10000} {
			for _, state := range []string{"new", "edited", "unchanged"} {
				lines := synthFile(lang, n)
				ext, comment := "go", " // revision %d"
				if lang == "python" {
					ext, comment = "py", " # revision %d"
				}
				req := &engine.ScoreRequest{Lines: lines, Goal: "handle42 returns field too long for a short value", SourceType: engine.SourceCode, Path: fmt.Sprintf("%s-%d.%s", state, n, ext)}
				orig := slices.Clone(lines)
				bytes := 0
				for _, l := range lines {
					bytes += len(l) + 1
				}
				b.Run(fmt.Sprintf("lang=%s/lines=%d/file=%s", lang, n, state), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(bytes))
					cpu0 := processCPU()
					for b.Loop() {
						i := benchRevision.Add(1)
						switch state {
						case "new":
							req.Path = fmt.Sprintf("new-%d-%d.%s", n, i, ext)
							for k := 0; k < len(lines); k += 100 {
								lines[k] = orig[k] + fmt.Sprintf(comment, i)
							}
						case "edited":
							lines[n/2] = orig[n/2] + fmt.Sprintf(comment, i)
						}
						if _, err := s.Score(context.Background(), req); err != nil {
							b.Fatal(err)
						}
					}
					// CPU per op (all threads, GC included): wall time on the shared machine
					// mostly measures its load.
					b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
				})
			}
		}
	}
}

// TestCancelAfterScore checks that cancelling a request's context after Score returned
// cannot spoil the pooled parser for the next request (the bindings' cancellation watcher
// used to set the flag late, and the next parse failed with parse_failed).
func TestCancelAfterScore(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	lines := synthFile("go", 200)
	for i := range 300 {
		ctx, cancel := context.WithCancel(t.Context())
		resp, err := s.Score(ctx, &engine.ScoreRequest{Lines: lines, Goal: "handle7 field too long", SourceType: engine.SourceCode, Path: "f.go"})
		cancel()
		require.NoError(t, err)
		require.Empty(t, resp.Warnings, "request %d", i)
	}
}

// TestOutlineCacheReturnsPrivateCopies: a cached outline is reused across goals, and a caller
// shifting its copy (windows do) must not change what the next caller gets.
func TestOutlineCacheReturnsPrivateCopies(t *testing.T) {
	c := newOutlineCache(2)
	o := &outline{units: []unit{{start: 1, end: 5, parent: -1, blocks: [][2]int{{2, 3}}}}, keys: []entry{{start: 1, end: 3, parent: -1, ids: [3]int32{2, -1, -1}}}}
	k := c.keyLines("go", []string{"package x"})
	c.put(k, o, "")
	got, _, ok := c.get(k)
	if !ok {
		t.Fatal("cached outline not found")
	}
	got.shift(100, 7, 3)
	again, _, _ := c.get(k)
	if again.units[0].start != 1 || again.units[0].blocks[0][0] != 2 {
		t.Fatalf("cache entry changed by a caller: %+v", again.units[0])
	}
	if again.keys[0].start != 1 || again.keys[0].ids[0] != 2 {
		t.Fatalf("cache entry's keys changed by a caller: %+v", again.keys[0])
	}
	c.put(c.keyLines("go", []string{"a"}), o, "")
	c.put(c.keyLines("go", []string{"b"}), o, "")
	if _, _, ok := c.get(k); ok {
		t.Fatal("the least recently used entry should be evicted past the bound")
	}
}

// TestOutlineKeyIsTheJoinedSourcesHash: an outline's key, hashed line by line, is the hash
// of the lines joined, the source the outline was parsed from, and its size.
func TestOutlineKeyIsTheJoinedSourcesHash(t *testing.T) {
	c := newOutlineCache(2)
	for _, lines := range [][]string{nil, {""}, {"", ""}, {"package x"}, {"a", "", "b"}, {"x\n", "y"},
		strings.Split(strings.Repeat("func f() {\n\treturn 1\n}\n", 40), "\n")} {
		src := strings.Join(lines, "\n")
		want := cacheKey{lang: "go", hash: maphash.String(c.seed, src), size: len(src)}
		if got := c.keyLines("go", lines); got != want {
			t.Errorf("%q: key %+v, want %+v", lines, got, want)
		}
	}
	if c.keyLines("go", []string{"a", "b"}) == c.keyLines("go", []string{"ab"}) {
		t.Error("the line break is part of the key")
	}
}

// TestScoreGivenMatchesScore: handing structural the heuristic's own answer must not change
// a single score, and must leave the caller's answer untouched.
func TestScoreGivenMatchesScore(t *testing.T) {
	s := New()
	defer s.Close()
	for _, req := range []*engine.ScoreRequest{
		{Lines: strings.Split("package x\n\nfunc parseHeader(l string) string {\n\treturn l\n}\n\nfunc other() {}\n", "\n"), Goal: "parseHeader", SourceType: engine.SourceCode},
		{Lines: []string{"ERROR x", "ok"}, Goal: "why", SourceType: engine.SourceLogs},
		{Lines: []string{"no language here at all", "just words"}, Goal: "words", SourceType: engine.SourceCode},
	} {
		want, err := s.Score(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		h, a, err := heuristic.New().ScoreWithAnalysis(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		hWarnings := len(h.Warnings)
		got, err := s.ScoreGiven(context.Background(), req, h, a)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("ScoreGiven differs from Score:\n%+v\n%+v", want, got)
		}
		if len(h.Warnings) != hWarnings {
			t.Fatal("ScoreGiven changed the caller's heuristic answer")
		}
	}
}

// BenchmarkExtractOutline measures the outline's extraction alone, from a tree parsed once:
// the first 2,000 lines of GOROOT's net/http/server.go. (Walking children with a TreeCursor
// instead of NamedChild(i) was tried: 1.0 -> 1.2-1.4 ms, three cgo calls per child cost more
// than NamedChild's walk in C.)
func BenchmarkExtractOutline(b *testing.B) {
	lines, err := benchmarks.GoSourceLines(2000)
	if err != nil {
		b.Skipf("no Go sources to read: %v", err)
	}
	s := New()
	b.Cleanup(func() { _ = s.Close() })
	l := s.langs.byName["go"]
	src := []byte(strings.Join(lines, "\n"))
	p := l.getParser()
	defer l.putParser(p)
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		b.Fatal(err)
	}
	defer tree.Close()
	root := tree.RootNode()
	b.ReportAllocs()
	for b.Loop() {
		if o, err := extractOutline(context.Background(), l, root, src, lines); err != nil || len(o.units) == 0 {
			b.Fatal("no units", err)
		}
	}
}

// TestTreeWalksStopWhenContextEnds: a dense file (here 60,000 one-line statements) can parse
// inside the deadline and still cost as much again to walk, so the outline's walk and the
// error count look at the request's context as they go and return its error.
func TestTreeWalksStopWhenContextEnds(t *testing.T) {
	ls := loadLanguages()
	t.Cleanup(ls.close)
	l := ls.byName["python"]
	lines := make([]string, 120)
	for i := range lines {
		lines[i] = strings.Repeat("a;", 500)
	}
	lines[len(lines)-1] = "a = )" // one syntax error, so errorShare walks the root's children
	src := []byte(strings.Join(lines, "\n"))
	p := l.getParser()
	defer l.putParser(p)
	tree, err := p.ParseCtx(context.Background(), nil, src)
	require.NoError(t, err)
	defer tree.Close()
	root := tree.RootNode()
	require.True(t, root.HasError())

	o, err := extractOutline(context.Background(), l, root, src, lines)
	require.NoError(t, err)
	require.NotEmpty(t, o.units)
	_, err = errorShare(context.Background(), root, len(lines))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = extractOutline(ctx, l, root, src, lines)
	assert.ErrorIs(t, err, context.Canceled, "extractOutline")
	_, err = errorShare(ctx, root, len(lines))
	assert.ErrorIs(t, err, context.Canceled, "errorShare")
}
