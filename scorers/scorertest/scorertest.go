// Package scorertest is the contract suite every engine.Scorer passes, in-process and through
// the plugin shim. Scorer authors call Run from their own tests:
//
//	func TestContract(t *testing.T) { scorertest.Run(t, func() engine.Scorer { return mine.New() }) }
//
// It imports engine, benchmarks (to read the bench cases) and testify only; it must not
// import a scorer, plugins or server.
package scorertest

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Watchdog bounds how long one Score call may take in the suite before it counts as a hang.
// It is a safety net for a broken scorer, never a synchronisation device.
const Watchdog = 30 * time.Second

// Requests returns the suite's fixed inputs: one per source type plus the awkward ones
// (empty lines, CRLF leftovers, invalid UTF-8, NUL bytes, a very long line, non-Latin text).
// Parity tests reuse them to compare two ways of running the same scorer.
func Requests() []*engine.ScoreRequest {
	code := []string{
		"package server",
		"",
		"import (",
		"\t\"context\"",
		"\t\"net/http\"",
		")",
		"",
		"// handleRecover returns the original lines of a prune.",
		"func handleRecover(ctx context.Context, w http.ResponseWriter, r *http.Request) {",
		"\tid := r.URL.Query().Get(\"prune_id\")",
		"\tif id == \"\" {",
		"\t\thttp.Error(w, \"missing prune_id\", http.StatusBadRequest)",
		"\t\treturn",
		"\t}",
		"}",
	}
	logs := []string{
		"2024-05-01T10:00:00Z INFO starting build",
		"2024-05-01T10:00:01Z INFO go test ./...",
		"--- FAIL: TestRecover (0.00s)",
		"    recover_test.go:42: expected 3 lines, got 2",
		"FAIL",
		"FAIL\tgithub.com/x/y/server\t0.012s",
		"\x1b[31mError: Process completed with exit code 1.\x1b[0m",
	}
	docs := []string{
		"json --- JSON encoder and decoder",
		"=================================",
		"",
		".. function:: dumps(obj, *, skipkeys=False, ensure_ascii=True)",
		"",
		"   Serialize *obj* to a JSON formatted :class:`str`.",
	}
	awkward := []string{
		"line with a stray carriage return\r",
		"\r",
		"invalid utf-8 \xff\xfe\xfd here",
		"nul \x00 byte",
		strings.Repeat("very long line ", 2000),
		"日本語のログ行: エラーが発生しました",
		"",
		"\t\t   ",
		"🙂 emoji error",
	}
	return []*engine.ScoreRequest{
		{Lines: code, Goal: "why does recover return a bad request for a missing prune_id", SourceType: engine.SourceCode, Path: "server/recover.go", Language: "go"},
		{Lines: logs, Goal: "Why did this CI build fail?", SourceType: engine.SourceLogs},
		{Lines: docs, Goal: "serialize a dict to a JSON string", SourceType: engine.SourceDocs, Path: "library/json.rst"},
		{Lines: awkward, Goal: "error", SourceType: engine.SourceLogs},
		{Lines: awkward, Goal: "", SourceType: engine.SourceCode},
		{Lines: []string{"only one line"}, Goal: "one", SourceType: engine.SourceCode},
		{Lines: []string{""}, Goal: "anything", SourceType: engine.SourceDocs},
	}
}

// Run checks newScorer's scorers against the contract of engine.Scorer. newScorer is called a
// few times (fresh scorers must agree); scorers that implement io.Closer are closed at the end.
func Run(t *testing.T, newScorer func() engine.Scorer) {
	t.Helper()
	s := open(t, newScorer)

	t.Run("one score per line in [0,1]", func(t *testing.T) {
		for i, req := range Requests() {
			resp := score(t, context.Background(), s, req)
			CheckScores(t, resp, len(req.Lines), fmt.Sprintf("request %d", i))
		}
	})

	t.Run("empty input", func(t *testing.T) {
		for _, st := range []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs} {
			resp := score(t, context.Background(), s, &engine.ScoreRequest{Lines: []string{}, Goal: "goal", SourceType: st})
			require.NotNil(t, resp, "%s: nil response", st)
			assert.Empty(t, resp.Scores, "%s: scores for no lines", st)
			resp = score(t, context.Background(), s, &engine.ScoreRequest{Lines: nil, Goal: "", SourceType: st})
			require.NotNil(t, resp, "%s: nil response for nil lines", st)
			assert.Empty(t, resp.Scores, "%s: scores for nil lines", st)
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		fresh := open(t, newScorer)
		for i, req := range Requests() {
			a := score(t, context.Background(), s, req)
			b := score(t, context.Background(), s, req)
			c := score(t, context.Background(), fresh, req)
			assert.Equal(t, a.Scores, b.Scores, "request %d: two calls disagree", i)
			assert.Equal(t, a.Scores, c.Scores, "request %d: a fresh scorer disagrees", i)
			assert.Equal(t, a.Focus, c.Focus, "request %d: focus differs", i)
		}
	})

	t.Run("concurrent use", func(t *testing.T) {
		reqs := Requests()
		want := make([][]float64, len(reqs))
		for i, req := range reqs {
			want[i] = score(t, context.Background(), s, req).Scores
		}
		const workers = 4
		got := make([][][]float64, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, req := range reqs {
					resp, err := s.Score(context.Background(), req)
					if err != nil {
						errs[w] = err
						return
					}
					got[w] = append(got[w], resp.Scores)
				}
			}()
		}
		wg.Wait()
		for w := range workers {
			require.NoError(t, errs[w], "worker %d", w)
			assert.Equal(t, want, got[w], "worker %d saw different scores", w)
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := Requests()[0]
		resp, err := scoreWithin(ctx, s, req)
		if err == nil {
			// Finishing anyway is allowed; the answer must still be well formed.
			CheckScores(t, resp, len(req.Lines), "after cancel")
		}
		// The scorer must still work after a cancelled call.
		CheckScores(t, score(t, context.Background(), s, req), len(req.Lines), "after a cancelled call")
	})
}

// CheckScores asserts resp holds exactly n finite scores in [0, 1].
func CheckScores(t testing.TB, resp *engine.ScoreResponse, n int, what string) {
	t.Helper()
	require.NotNil(t, resp, "%s: nil response", what)
	require.Len(t, resp.Scores, n, "%s: want one score per line", what)
	for i, v := range resp.Scores {
		if math.IsNaN(v) || v < 0 || v > 1 {
			assert.Failf(t, "score out of range", "%s: line %d scored %v", what, i+1, v)
		}
	}
}

func open(t *testing.T, newScorer func() engine.Scorer) engine.Scorer {
	t.Helper()
	s := newScorer()
	require.NotNil(t, s, "newScorer returned nil")
	if c, ok := s.(io.Closer); ok {
		t.Cleanup(func() { assert.NoError(t, c.Close(), "Close") })
	}
	return s
}

func score(t *testing.T, ctx context.Context, s engine.Scorer, req *engine.ScoreRequest) *engine.ScoreResponse {
	t.Helper()
	resp, err := scoreWithin(ctx, s, req)
	require.NoError(t, err)
	return resp
}

// scoreWithin calls s.Score and turns a hang past Watchdog into an error.
func scoreWithin(ctx context.Context, s engine.Scorer, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	type outcome struct {
		resp *engine.ScoreResponse
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := s.Score(ctx, req)
		done <- outcome{r, err}
	}()
	timer := time.NewTimer(Watchdog)
	defer timer.Stop()
	select {
	case o := <-done:
		return o.resp, o.err
	case <-timer.C:
		return nil, fmt.Errorf("the scorer's Score did not return within %s", Watchdog)
	}
}
