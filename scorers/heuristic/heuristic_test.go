package heuristic_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
)

func TestContract(t *testing.T) {
	scorertest.Run(t, func() engine.Scorer { return heuristic.New() })
}

func TestParseGoal(t *testing.T) {
	tests := []struct {
		name    string
		goal    string
		present []string // terms that must be extracted
		absent  []string // stop words and noise that must not
		top     string   // the heaviest term
		named   []string // terms marked Named (the goal uses them as an API name); when set, the only ones
	}{
		{
			name:    "identifiers are split and kept whole",
			goal:    "separability_matrix does not compute separability correctly for nested CompoundModels",
			present: []string{"separabilitymatrix", "separability", "matrix", "compoundmodels", "compound", "models", "nested", "compute"},
			absent:  []string{"does", "not", "for"},
		},
		{
			name:    "traceback frames weigh most",
			goal:    "Crash:\nTraceback (most recent call last):\n  File \"lib/io/reader.py\", line 12, in read_block\nValueError: bad size",
			present: []string{"readblock", "reader", "valueerror", "size"},
			top:     "readblock",
		},
		{
			name:    "backticked code outweighs prose",
			goal:    "the parser ignores `maxDepth` when streaming",
			present: []string{"maxdepth", "parser", "streaming"},
			top:     "maxdepth",
		},
		{
			name:    "an API named like a stop word is kept when it is code",
			goal:    "xr.where not preserving attributes; `get` and make() as well; see `self.output`",
			present: []string{"where", "get", "make", "output", "attributes", "preserving"},
			absent:  []string{"not", "see", "self"},
			named:   []string{"get", "make", "output", "where"},
		},
		{
			name:   "the same words in prose stay stop words",
			goal:   "where do we get the output when we make it",
			absent: []string{"where", "get", "output", "make"},
		},
		{
			name:   "stop words and short words dropped",
			goal:   "it is a the of to in an",
			absent: []string{"the", "it", "is"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := heuristic.ParseGoal(tc.goal)
			got := map[string]bool{}
			for _, term := range q.Terms {
				got[term.Text] = true
			}
			for _, p := range tc.present {
				assert.True(t, got[p], "term %q extracted from %q (got %v)", p, tc.goal, q.Terms)
			}
			for _, a := range tc.absent {
				assert.False(t, got[a], "term %q dropped", a)
			}
			weight := map[string]float64{}
			for _, term := range q.Terms {
				weight[term.Text] = term.Weight
			}
			if got["separabilitymatrix"] {
				assert.Greater(t, weight["separabilitymatrix"], weight["separability"], "a whole identifier outweighs its parts")
				assert.Greater(t, weight["separabilitymatrix"], weight["nested"], "and prose")
			}
			if tc.top != "" {
				require.NotEmpty(t, q.Terms)
				assert.Equal(t, tc.top, q.Terms[0].Text)
			}
			if tc.named != nil {
				var named []string
				for _, term := range q.Terms {
					if term.Named {
						named = append(named, term.Text)
					}
				}
				slices.Sort(named)
				assert.Equal(t, tc.named, named)
			}
		})
	}
}

func TestAnalyzeMatchesInflectionsAndIdentifierParts(t *testing.T) {
	q := heuristic.ParseGoal("print the script's directory")
	a := heuristic.Analyze([]string{
		"Return the directory name of pathname path.",
		"List the directories under a path.",
		"unrelated sentence about sockets",
		"def getDirectoryName(p):",
	}, q)
	assert.Greater(t, a.Lex[0], 0.0, "exact word")
	assert.Greater(t, a.Lex[1], 0.0, "plural of a goal word")
	assert.Zero(t, a.Lex[2])
	assert.Greater(t, a.Lex[3], 0.0, "camelCase part")
}

func score(t *testing.T, st engine.SourceType, goal string, lines []string) []float64 {
	t.Helper()
	resp, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: st})
	require.NoError(t, err)
	require.Len(t, resp.Scores, len(lines))
	return resp.Scores
}

func TestCodeScoresTheNamedFunctionAsAUnit(t *testing.T) {
	src := strings.Split(`import os

def load_config(path):
    with open(path) as f:
        return f.read()

def parse_header(data):
    if not data:
        raise ValueError("empty")
    fields = data.split(":")
    return fields

def write_report(rows):
    for r in rows:
        print(r)`, "\n")
	s := score(t, engine.SourceCode, "parse_header raises on empty input", src)
	for i := 6; i <= 10; i++ { // the whole parse_header body
		for _, other := range []int{2, 3, 4, 12, 13, 14} {
			assert.Greater(t, s[i], s[other], "line %d (%q) above line %d (%q)", i+1, src[i], other+1, src[other])
		}
	}
}

// TestCodeScoresKeepTheirOrderAboveTheCap: the named function's header (name, exact
// identifier) and its line with the goal's other words both add up to more than 1; cut at
// 1 they tied, and the budget chose between them by cost. Compressed instead (capTop), they
// keep their order, and the matching line stays above the rest of its body.
func TestCodeScoresKeepTheirOrderAboveTheCap(t *testing.T) {
	src := strings.Split(`'use strict';

function describe(invoice) {
  return 'Invoice ' + invoice.id;
}

function applyDiscount(invoice, percent) {
  const rate = percent / 100;
  const discounted = invoice.total * (1 - rate);
  log('discount applied', invoice.id);
  return Math.floor(discounted * 100) / 100;
}`, "\n")
	s := score(t, engine.SourceCode, "applyDiscount rounds the discounted total down with Math.floor instead of to the nearest cent", src)
	const header, floorLine = 6, 10
	assert.Equal(t, 1.0, s[header], "the best line scores 1")
	assert.Greater(t, s[header], s[floorLine], "header and matching line do not tie")
	for _, other := range []int{7, 8, 9, 11} {
		assert.Greater(t, s[floorLine], s[other], "line %d (%q) above line %d (%q)", floorLine+1, src[floorLine], other+1, src[other])
	}
	for i, v := range s {
		assert.LessOrEqual(t, v, 1.0, "line %d", i+1)
	}
}

// TestPathWordsCountLess: a goal word that names the file (router, of web/router.go) tells
// which file the goal is about, not which of its lines; the line with the goal's other word
// ranks first once the path is known. Without the path, the repeated word wins.
func TestPathWordsCountLess(t *testing.T) {
	src := strings.Split(`package web

func setup(mux *http.ServeMux) {
	mux.Handle("/", router)
}

func serve(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, r.URL.Path, 301)
}`, "\n")
	const goal = "router: the router's redirect drops the query"
	scoreAt := func(path string) []float64 {
		resp, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{Lines: src, Goal: goal, SourceType: engine.SourceCode, Path: path})
		require.NoError(t, err)
		return resp.Scores
	}
	const routerLine, redirectLine = 3, 7
	s := scoreAt("")
	require.Greater(t, s[routerLine], s[redirectLine], "without a path, the word said twice leads")
	s = scoreAt("web/router.go")
	assert.Greater(t, s[redirectLine], s[routerLine], "the path names the router: the redirect leads")
	s = scoreAt("web/Router.go")
	assert.Greater(t, s[redirectLine], s[routerLine], "path words are matched as the goal's are, whatever their case")
}

// TestJavaScriptFunctionIsAUnit: "function name() {" heads a definition, so the body of the
// function a goal names scores as one unit with its header, above every line of the other
// function. (It was not a header until the eleventh round: "function" sits in the method
// pattern's exclusions, and its lines without goal words scored near 0.)
func TestJavaScriptFunctionIsAUnit(t *testing.T) {
	src := strings.Split(`'use strict';

function compileTrust(val) {
  if (typeof val === 'function') return val;
  if (val === true) {
    return function () { return true };
  }
  return proxyaddr.compile(val || []);
}

function setCharset(type, charset) {
  if (!type || !charset) {
    return type;
  }
  var parsed = contentType.parse(type);
  return contentType.format(parsed);
}`, "\n")
	s := score(t, engine.SourceCode, "fix compileTrust when the trust proxy setting is a number", src)
	for i := 2; i <= 8; i++ { // compileTrust, header to closing brace
		assert.GreaterOrEqual(t, s[i], 0.6*s[2], "line %d (%q) comes with its function's header", i+1, src[i])
		for other := 10; other < len(src); other++ {
			assert.Greater(t, s[i], s[other], "line %d (%q) above line %d (%q)", i+1, src[i], other+1, src[other])
		}
	}
}

func TestLogsRankTheLastFailureAboveNoise(t *testing.T) {
	var lines []string
	for i := 0; i < 200; i++ {
		lines = append(lines, "Downloading dependency com.example:lib:1.0 ... done")
	}
	lines = append(lines, "warning: deprecated API used", "Running tests", "test_api FAILED", "AssertionError: expected 200, got 500")
	for i := 0; i < 20; i++ {
		lines = append(lines, "cleanup step")
	}
	s := score(t, engine.SourceLogs, "Why did this CI build fail?", lines)
	fail := 202
	for i, v := range s {
		if i < 195 {
			assert.Greater(t, s[fail], v, "failure above line %d", i+1)
		}
	}
	assert.Greater(t, s[fail+1], s[0], "the assertion after it comes along")
}

// TestLogsKeepAFailureWithItsIndentedTrace: the lines indented under a failure (a stack
// trace, a test report's code/stacktrace, a compiler diagnostic) are one event with it,
// however many there are, while an indented section too long to be one event is not lifted.
func TestLogsKeepAFailureWithItsIndentedTrace(t *testing.T) {
	var lines []string
	for i := 0; i < 150; i++ {
		lines = append(lines, fmt.Sprintf("npm info lifecycle step %d ok", i))
	}
	node := len(lines)
	lines = append(lines, "Error: Cannot find module './db.json'")
	for i := 0; i < 11; i++ {
		lines = append(lines, fmt.Sprintf("    at Module._compile (module.js:%d:26)", 400+i))
	}
	lines = append(lines, "")
	exunit := len(lines)
	lines = append(lines,
		"  1) test adapters serve requests (Phoenix.Integration.EndpointTest)",
		"     test/phoenix/integration/endpoint_test.exs:153",
		"     ** (ExUnit.TimeoutError) test timed out after 60000ms",
		"     code: capture_log fn ->",
		"     stacktrace:",
		"       (inets) httpc.erl:623: :httpc.handle_answer/3",
		"       (inets) httpc.erl:567: :httpc.handle_request/9",
		"       test/support/http_client.exs:42: Phoenix.Integration.HTTPClient.request/4",
		"       (ex_unit) lib/ex_unit/runner.ex:312: ExUnit.Runner.exec_test/1",
		"")
	section := len(lines)
	lines = append(lines, "Build summary:")
	for i := 0; i < 200; i++ {
		if i == 10 {
			lines = append(lines, "    step 10: error: disk quota warning ignored")
			continue
		}
		lines = append(lines, fmt.Sprintf("    step %d: copied assets", i))
	}
	lines = append(lines, "Done in 12.3s")
	s := score(t, engine.SourceLogs, "Why did this CI build fail?", lines)
	chatter := slices.Max(s[:100])
	for i := node + 1; i <= node+11; i++ {
		assert.Greater(t, s[i], chatter, "frame at line %d comes with its error", i+1)
		assert.Greater(t, s[i], 0.6*s[node], "frame at line %d comes with its error", i+1)
	}
	for i := exunit; i < exunit+9; i++ {
		assert.Greater(t, s[i], 0.6*s[exunit+2], "line %d of the test report comes with its failure", i+1)
	}
	// The 200-line section is no event: its lines far from the error keep their own score.
	assert.Less(t, s[section+150], 0.5*s[section+11], "a long indented section is not one event")
}

// TestLogsBlockFollowedByBlankLines: blank lines after an indented block of the longest
// length still lifted name its header as their parent; they are not in the block (this
// indexed past the decay table and panicked).
func TestLogsBlockFollowedByBlankLines(t *testing.T) {
	lines := []string{"Error: boom"}
	for i := 0; i < 149; i++ {
		lines = append(lines, fmt.Sprintf("    at frame%d (x.js:%d:1)", i, i))
	}
	for i := 0; i < 10; i++ {
		lines = append(lines, "")
	}
	for i := 0; i < 300; i++ {
		lines = append(lines, fmt.Sprintf("step %d ok", i))
	}
	s := score(t, engine.SourceLogs, "Why did this CI build fail?", lines)
	assert.Greater(t, s[149], s[155], "the block's last frame is in it, the blank lines after it are not")
}

// TestIndentSkipsColourCodes: CI logs colour a line before its indentation as often as
// after it, and a colour code is no text.
func TestIndentSkipsColourCodes(t *testing.T) {
	for _, c := range []struct {
		line     string
		width    int
		nonBlank bool
	}{
		{"    at f (a.js:1:2)", 4, true},
		{"\x1b[38;5;230m            \x1b[39mXCTAssertTrue(x)", 12, true},
		{"     \x1b[36mcode: \x1b[0mcapture_log fn ->", 5, true},
		{"\x1b[0m\t\x1b[1mstacktrace:", 4, true},
		{"     \x1b[0m", 0, false},
		{"\x1b[31", 0, false},    // an unterminated code
		{"\x1bc reset", 0, true}, // ESC without '[' is text
	} {
		w, ok := heuristic.Indent(c.line)
		assert.Equal(t, c.width, w, "%q", c.line)
		assert.Equal(t, c.nonBlank, ok, "%q", c.line)
	}
}

func TestDocsScoreTheMatchingEntry(t *testing.T) {
	lines := strings.Split(`.. function:: basename(path)

   Return the base name of pathname *path*.

.. function:: dirname(path)

   Return the directory name of pathname *path*.  This is the first element of
   the pair returned by passing *path* to the function split.

.. function:: exists(path)

   Return True if path refers to an existing path.`, "\n")
	s := score(t, engine.SourceDocs, "get the directory of a file", lines)
	for _, i := range []int{4, 6, 7} {
		for _, j := range []int{0, 2, 9, 11} {
			assert.Greater(t, s[i], s[j], "dirname entry line %d above line %d", i+1, j+1)
		}
	}
}

func TestFocusNamesGoalTermsAsSpelled(t *testing.T) {
	resp, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{
		Lines: []string{"func (s *Server) closeIdleConns() bool {", "return true", "}"},
		Goal:  "Shutdown hangs when closeIdleConns never reports quiescent", SourceType: engine.SourceCode,
	})
	require.NoError(t, err)
	require.NotEmpty(t, resp.Focus)
	assert.Equal(t, "closeIdleConns", resp.Focus[0])
}

// FuzzScore runs the contract's fuzz property on the heuristic (make fuzz runs it for minutes).
func FuzzScore(f *testing.F) {
	scorertest.Fuzz(f, func() engine.Scorer { return heuristic.New() })
}

// TestLogsTestNamesAreNotFailures: a Gradle run skips tests whose names are full of failure
// words (onErrorFailedExceptionNull SKIPPED) after the one test that failed; the failure and
// its assertion outrank every skipped test.
func TestLogsTestNamesAreNotFailures(t *testing.T) {
	var lines []string
	for i := 0; i < 40; i++ {
		lines = append(lines, fmt.Sprintf("io.reactivex.FlowableTest > flatMap%d PASSED", i), "")
	}
	failed := len(lines)
	lines = append(lines,
		"io.reactivex.ObservableRefCountTest > publishNoLeak FAILED",
		"    java.lang.AssertionError: 13,928,704 -> 113,907,376",
		"        at org.junit.Assert.fail(Assert.java:88)", "")
	skipped := len(lines)
	for _, name := range []string{"onErrorFailedExceptionNull", "onErrorThrowableAddValueAsLastCause", "errorThrownWithoutErrorHandlerSynchronous", "onCompleteFailedExceptionMessageAndNull", "safeOnErrorThrows"} {
		lines = append(lines, "io.reactivex.exceptions.ExceptionsTest > "+name+" SKIPPED", "")
	}
	lines = append(lines, "11169 tests completed, 1 failed, 240 skipped")
	s := score(t, engine.SourceLogs, "Why did this CI build fail?", lines)
	for i := skipped; i < len(lines)-1; i += 2 {
		assert.Greater(t, s[failed], s[i], "the failed test outranks %q", lines[i])
		assert.Greater(t, s[failed+1], s[i], "its assertion outranks %q", lines[i])
	}
}

// TestALineHoldingTheGoalClearsTheThreshold: in logs and docs a line's own match is a fifth
// or a quarter of its score, so the one line holding a specific goal ("cache spread" in a
// server log, "configure retries" in a flat page) scored 0.25 to 0.35, under the 0.5
// threshold, and a prune with no floors kept nothing; in the log the tail outranked it. A
// line holding most of the goal's weight, with a clear match, now clears the threshold.
func TestALineHoldingTheGoalClearsTheThreshold(t *testing.T) {
	s := heuristic.New()
	logLines := make([]string, 500)
	for i := range logLines {
		logLines[i] = fmt.Sprintf("2026-01-01T00:00:%02d INFO request served path=/api/v1/item/%d status=200 dur=2ms", i%60, i)
	}
	logLines[250] = "2026-01-01T00:00:10 INFO cache spread rebalanced shards=12 moved=3"
	docLines := make([]string, 56)
	for i := range docLines {
		docLines[i] = fmt.Sprintf("Paragraph %d talks about the client and its many options for logging, proxies and timeouts.", i)
	}
	docLines[30] = "To configure retries, set max_retries in the client config and restart it."
	for _, tc := range []struct {
		st    engine.SourceType
		lines []string
		goal  string
		line  int
	}{
		{engine.SourceLogs, logLines, "cache spread", 250},
		{engine.SourceDocs, docLines, "how do I configure retries", 30},
	} {
		resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: tc.lines, Goal: tc.goal, SourceType: tc.st})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, resp.Scores[tc.line], heuristic.Threshold, "%s: the line holding the goal", tc.st)
		for i, v := range resp.Scores {
			if i < tc.line-3 || i > tc.line+3 {
				assert.Less(t, v, heuristic.Threshold, "%s: line %d holds none of it", tc.st, i)
			}
		}
	}
}

// TestTestFailureMessagesAreFailureLines: go test's "name_test.go:NN: message" (t.Errorf)
// and pytest's "E   assert …" say what went wrong, often without a failure word, and a
// go test message may sit several lines above its "--- FAIL", past the reach of its
// neighbours' lift: in a 'go test -v' log the message was cut while the FAIL lines stayed.
func TestTestFailureMessagesAreFailureLines(t *testing.T) {
	var lines []string
	for i := range 60 {
		lines = append(lines, fmt.Sprintf("=== RUN   TestParse%d", i), fmt.Sprintf("--- PASS: TestParse%d (0.00s)", i))
	}
	msg := len(lines) + 1
	lines = append(lines, "=== RUN   TestSum",
		"    calc_test.go:52: Sum([1 2 3]) = 5, want 6",
		"    calc.go:10: adding 1", "    calc.go:10: adding 2", "    calc.go:10: adding 3", "    calc.go:12: returning",
		"--- FAIL: TestSum (0.00s)")
	for i := range 60 {
		lines = append(lines, fmt.Sprintf("=== RUN   TestRender%d", i), fmt.Sprintf("--- PASS: TestRender%d (0.00s)", i))
	}
	pyMsg := len(lines) + 2
	lines = append(lines, "    def test_total():", ">       assert total([1, 2]) == 4", "E       assert 3 == 4",
		"E        +  where 3 = total([1, 2])", "", "tests/test_calc.py:7: AssertionError", "FAIL", "FAIL\texample.com/calc\t0.01s")
	resp, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "which test fails and why", SourceType: engine.SourceLogs})
	require.NoError(t, err)
	for _, i := range []int{msg, pyMsg} {
		assert.Greater(t, resp.Scores[i], resp.Scores[i-10], "%q over a passing test's lines", lines[i])
	}
	assert.Greater(t, resp.Scores[msg], resp.Scores[msg+2], "the log lines around it are no failure")
	assert.Greater(t, resp.Scores[msg], 2*resp.Scores[msg-4])
}

// TestGitLogScoredAsRecords: a git log sent as logs is searched, not read as a build: the
// commit whose message the goal matches outranks the log's tail (its oldest commit) and its
// failure words, and comes with its header (hash, author, date).
func TestGitLogScoredAsRecords(t *testing.T) {
	commit := func(hash, subject string) []string {
		return []string{
			"commit " + hash,
			"Author: Dev <dev@example.org>",
			"Date:   Fri Nov 27 16:40:46 2026 +0000",
			"",
			"    " + subject,
			"",
			" server/swe.go | 13 +++++++++++--",
			" 1 file changed, 11 insertions(+), 2 deletions(-)",
			"",
		}
	}
	var lines []string
	for i := 0; i < 40; i++ {
		subject := fmt.Sprint("engine: tidy the selection loop, step ", i)
		switch i {
		case 12:
			subject = "server: a stalled upload no longer holds a shutdown"
		case 30:
			subject = "tests: fix the failing flaky build error on CI"
		}
		lines = append(lines, commit(fmt.Sprintf("%07xabcdef", 0x1000000+i), subject)...)
	}
	s := score(t, engine.SourceLogs, "when did stalled uploads stop holding the shutdown", lines)
	subject, head := 12*9+4, 12*9
	for i, v := range s {
		if i < head || i > subject {
			assert.Greater(t, s[subject], v, "the matching commit's subject above line %d", i+1)
		}
	}
	for i := head; i < head+3; i++ {
		assert.GreaterOrEqual(t, s[i], s[subject], "the matching commit's header line %d comes with it", i+1)
	}
}

// TestGoalNamesInAnyScript: a goal naming an identifier with non-ASCII letters (größe,
// durée_totale, 合計) finds its definition as an ASCII one would; the goal used to split it at
// each such letter, so the definition scored as an unrelated line and was cut.
func TestGoalNamesInAnyScript(t *testing.T) {
	for _, name := range []string{"größe", "durée_totale", "合計", "ДлинаСтроки"} {
		lines := []string{
			"def helper(x):", "    return x + 1", "",
			"def " + name + "(x):", "    return x * 2", "",
			"def other(y):", "    return y - 1",
		}
		s := score(t, engine.SourceCode, "why does "+name+" return the wrong value", lines)
		for i, v := range s {
			if i != 3 {
				assert.Greater(t, s[3], v, "%s: its definition above line %d", name, i+1)
			}
		}
	}
}

// TestLogsPassingTestMessagesAreNoFailure: in go test -v output, a passing test's t.Log
// lines (file:line messages like a failure's) rank below the failing test's message; they
// used to count as failures and fill a budget with a passing test's output.
func TestLogsPassingTestMessagesAreNoFailure(t *testing.T) {
	lines := []string{"=== RUN   TestClamp"}
	for i := range 25 {
		lines = append(lines, fmt.Sprintf("    clamp_test.go:12: clamp(%d, 0, 3) = %d", i, min(i, 3)))
	}
	lines = append(lines, "--- PASS: TestClamp (0.00s)", "=== RUN   TestSum", "    sum_test.go:20: Sum([1 2 3]) = 5, want 6", "--- FAIL: TestSum (0.00s)")
	for i := range 25 {
		lines = append(lines, fmt.Sprintf("=== RUN   TestOther%d", i), fmt.Sprintf("--- PASS: TestOther%d (0.00s)", i))
	}
	lines = append(lines, "FAIL", "FAIL\texample.com/calc\t0.012s")
	s := score(t, engine.SourceLogs, "which test fails and why", lines)
	msg := 28
	require.Equal(t, "    sum_test.go:20: Sum([1 2 3]) = 5, want 6", lines[msg])
	for i := 1; i <= 25; i++ {
		assert.Less(t, s[i], s[msg]/2, "the passing test's line %d well below the failing message", i+1)
	}
}

// TestLogsFailedTestMessagesComeWithTheirVerdict: go test -v prints a failing test's
// messages above its "--- FAIL" line. In a run of many packages whose failing one is in the
// middle, they scored by their place in the log, below a later package's "ok" line, while
// the verdict, which names the test, ranked high; now they rank with it.
func TestLogsFailedTestMessagesComeWithTheirVerdict(t *testing.T) {
	var lines []string
	msg, cont, verdict, lastOK := -1, -1, -1, -1
	for p := range 8 {
		for i := range 40 {
			lines = append(lines, fmt.Sprintf("=== RUN   TestThing%d_%d", p, i))
			if p == 3 && i == 20 {
				msg = len(lines)
				lines = append(lines, "    thing_test.go:142: expected status 200, got 503 (upstream timeout after 30s), body:")
				cont = len(lines)
				lines = append(lines, "            {\"error\":\"deadline exceeded\"}")
				verdict = len(lines)
				lines = append(lines, fmt.Sprintf("--- FAIL: TestThing%d_%d (30.01s)", p, i))
				continue
			}
			lines = append(lines, fmt.Sprintf("--- PASS: TestThing%d_%d (0.0%ds)", p, i, i%10))
		}
		if p == 3 {
			lines = append(lines, "FAIL", fmt.Sprintf("FAIL\texample.com/svc/pkg%d\t31.2s", p))
			continue
		}
		lastOK = len(lines) + 1
		lines = append(lines, "PASS", fmt.Sprintf("ok  \texample.com/svc/pkg%d\t0.41s", p))
	}
	lines = append(lines, "FAIL")
	for _, goal := range []string{"which test fails and why", "why is CI red"} {
		s := score(t, engine.SourceLogs, goal, lines)
		for _, i := range []int{msg, cont} {
			assert.GreaterOrEqual(t, s[i], 0.95*s[verdict]-1e-9, "%q: line %d with its verdict", goal, i+1)
			assert.Greater(t, s[i], s[lastOK], "%q: line %d above the last package's ok line", goal, i+1)
		}
	}
}

// TestLogsGoBuildFailureIsNoRestatement: a package that did not build is reported by
// "FAIL\t<package> [build failed]" under the compiler's messages, which hold no failure word
// ("undefined: …", "declared and not used: …"). The messages are failures by their shape
// (goDiagnostic), and the report, unlike a tested package's summary, is no restatement: both
// rank above the passing packages after them.
func TestLogsGoBuildFailureIsNoRestatement(t *testing.T) {
	var lines []string
	for p := range 30 {
		if p == 12 {
			lines = append(lines, "# example.com/svc/config [example.com/svc/config.test]",
				"config/load.go:41:9: undefined: yaml.UnmarshalStrict",
				"config/load.go:57:2: declared and not used: port",
				"FAIL\texample.com/svc/config [build failed]")
			continue
		}
		lines = append(lines, fmt.Sprintf("ok  \texample.com/svc/pkg%d\t0.%02ds", p, p))
	}
	lines = append(lines, "FAIL")
	s := score(t, engine.SourceLogs, "why is CI red", lines)
	const report, lastOK = 15, 32
	require.Equal(t, "FAIL\texample.com/svc/config [build failed]", lines[report])
	require.Equal(t, "ok  \texample.com/svc/pkg29\t0.29s", lines[lastOK])
	for _, i := range []int{report - 2, report - 1, report} {
		assert.Greater(t, s[i], s[lastOK], "line %d above the last passing package", i+1)
	}
}

// TestLogsGoPanicKeepsTheProgramFrame: a test's panic in the middle of a go test run prints
// the runtime's and the test harness's frames first, then the program's. The program's first
// call and its place rank with the panic, above the trace's header, the harness's frames and
// the passing packages after them; before, the trace ended at its first frame (Go's calls
// hold no "at "), and the program's frames scored below the log's tail.
func TestLogsGoPanicKeepsTheProgramFrame(t *testing.T) {
	var lines []string
	for p := range 9 {
		lines = append(lines, fmt.Sprintf("ok  \texample.com/svc/pkg%d\t0.0%ds", p, p))
	}
	lines = append(lines, "=== RUN   TestCache", "--- FAIL: TestCache (0.00s)",
		"panic: runtime error: invalid memory address or nil pointer dereference [recovered]",
		"\tpanic: runtime error: invalid memory address or nil pointer dereference",
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5d1a2f]",
		"",
		"goroutine 7 [running]:",
		"testing.tRunner.func1.2({0x61c0e0, 0x8a3c40})",
		"\t/usr/local/go/src/testing/testing.go:1545 +0x238",
		"panic({0x61c0e0?, 0x8a3c40?})",
		"\t/usr/local/go/src/runtime/panic.go:914 +0x21f",
		"example.com/svc/cache.(*LRU).Get(0x0, {0x64a1b3, 0x3})",
		"\t/work/svc/cache/lru.go:42 +0x2f",
		"example.com/svc/cache.TestCache(0xc000007860)",
		"\t/work/svc/cache/lru_test.go:15 +0x45",
		"FAIL\texample.com/svc/cache\t0.012s")
	for p := 10; p < 20; p++ {
		lines = append(lines, fmt.Sprintf("ok  \texample.com/svc/pkg%d\t0.0%ds", p, p%10))
	}
	lines = append(lines, "FAIL")
	s := score(t, engine.SourceLogs, "why is CI red", lines)
	call := slices.Index(lines, "example.com/svc/cache.(*LRU).Get(0x0, {0x64a1b3, 0x3})")
	harness := slices.Index(lines, "testing.tRunner.func1.2({0x61c0e0, 0x8a3c40})")
	header := slices.Index(lines, "goroutine 7 [running]:")
	require.Positive(t, call)
	for _, i := range []int{call, call + 1} {
		assert.Greater(t, s[i], s[header], "%q above the trace's header, so a small budget buys it first", lines[i])
		assert.Greater(t, s[i], s[harness], "%q above the harness's frame", lines[i])
		assert.Greater(t, s[i], s[harness+1], "%q above the harness's place", lines[i])
		for j := call + 5; j < len(lines)-1; j++ {
			assert.Greater(t, s[i], s[j], "%q above %q", lines[i], lines[j])
		}
	}
}

// TestLogsRaceReportComesWithItsVerdict: go test -race in the middle of a run of many
// packages prints the race report, then the test's verdict. The report's header, the racing
// accesses and their program frames rank with the verdict, above the package's "FAIL" lines
// and every passing package, and the accesses above the goroutines' creation; before, "warning"
// weighed little and the report scored by its place in the log, so a small budget kept the
// verdict and cut where the race is.
func TestLogsRaceReportComesWithItsVerdict(t *testing.T) {
	var lines []string
	for p := range 30 {
		lines = append(lines, fmt.Sprintf("ok  \texample.com/shop/pkg%d\t0.%02ds", p, p))
	}
	report := len(lines)
	lines = append(lines, "==================",
		"WARNING: DATA RACE",
		"Write at 0x00c0000a4010 by goroutine 8:",
		"  runtime.mapassign_faststr()",
		"      /usr/local/go/src/runtime/map_faststr.go:223 +0x0",
		"  example.com/shop/cache.(*LRU).Put()",
		"      /work/shop/cache/lru.go:58 +0x84",
		"",
		"Previous read at 0x00c0000a4010 by goroutine 7:",
		"  example.com/shop/cache.(*LRU).Get()",
		"      /work/shop/cache/lru.go:42 +0x5c",
		"",
		"Goroutine 8 (running) created at:",
		"  example.com/shop/cache.TestConcurrentAccess()",
		"      /work/shop/cache/lru_test.go:29 +0x1a4",
		"  testing.tRunner()",
		"      /usr/local/go/src/testing/testing.go:1689 +0x184",
		"==================",
		"--- FAIL: TestConcurrentAccess (0.00s)",
		"    testing.go:1398: race detected during execution of test",
		"FAIL",
		"FAIL\texample.com/shop/cache\t0.041s")
	after := len(lines) - 2
	for p := 30; p < 60; p++ {
		lines = append(lines, fmt.Sprintf("ok  \texample.com/shop/pkg%d\t0.%02ds", p, p))
	}
	lines = append(lines, "FAIL")
	s := score(t, engine.SourceLogs, "why is CI red", lines)
	finding := []int{report + 1, report + 2, report + 5, report + 6, report + 8, report + 9, report + 10}
	creation := report + 13
	for _, i := range finding {
		for j := after; j < len(lines); j++ {
			assert.Greater(t, s[i], s[j], "%q above %q", lines[i], lines[j])
		}
		for j := range report {
			assert.Greater(t, s[i], s[j], "%q above %q", lines[i], lines[j])
		}
		assert.Greater(t, s[i], s[creation], "%q above where the goroutine began", lines[i])
	}
	assert.Greater(t, s[report+5], s[report+3], "the program's frame above the runtime's")
}

// TestLogsRaceReportInAProgramsLog: a program built with -race reports a race in the middle
// of its own log, and no test verdict follows. The report's header weighs as a failure, so it
// and the racing accesses rank above the log's lines, its tail among them.
func TestLogsRaceReportInAProgramsLog(t *testing.T) {
	var lines []string
	for k := range 60 {
		lines = append(lines, fmt.Sprintf("2024/03/01 10:00:%02d INFO request path=/api/items/%d status=200", k, k))
	}
	report := len(lines)
	lines = append(lines, "==================",
		"WARNING: DATA RACE",
		"Write at 0x00c0000a4010 by goroutine 8:",
		"  example.com/shop/cache.(*LRU).Put()",
		"      /work/shop/cache/lru.go:58 +0x84",
		"",
		"Previous read at 0x00c0000a4010 by goroutine 7:",
		"  example.com/shop/cache.(*LRU).Get()",
		"      /work/shop/cache/lru.go:42 +0x5c",
		"==================")
	for k := range 60 {
		lines = append(lines, fmt.Sprintf("2024/03/01 10:01:%02d INFO request path=/api/items/%d status=200", k, k))
	}
	lines = append(lines, "Found 1 data race(s)", "exit status 66")
	s := score(t, engine.SourceLogs, "why did the server crash", lines)
	for _, i := range []int{report + 1, report + 2, report + 3, report + 4, report + 6, report + 7, report + 8} {
		for j := range lines {
			if j < report || j > report+9 && j < len(lines)-2 {
				assert.Greater(t, s[i], s[j], "%q above %q", lines[i], lines[j])
			}
		}
	}
}

// TestLogsTimedOutTestKeepsItsGoroutine: go test's timeout panic dumps every goroutine of the
// test binary. The goroutine of the test it names under "running tests:" (or, without that
// list, each one testing.(*T).Run started) ranks with the panic, above the harness's, the
// HTTP clients' and the pools' goroutines and above the passing packages; before, only the
// dump's first frames (the alarm's) were lifted, and no line of the hung test was kept at 20%
// of the tokens. go test's FAIL summaries, a token or a few each, may rank above it.
func TestLogsTimedOutTestKeepsItsGoroutine(t *testing.T) {
	for _, listed := range []bool{true, false} {
		var lines []string
		for p := range 10 {
			lines = append(lines, fmt.Sprintf("ok  \texample.com/shop/pkg%d\t0.%02ds", p, p))
		}
		panicAt := len(lines)
		lines = append(lines, "panic: test timed out after 10m0s")
		if listed {
			lines = append(lines, "running tests:", "\tTestWorkerDrainsQueue/large_queue (10m0s)")
		}
		lines = append(lines, "", "goroutine 1841 [running]:",
			"testing.(*M).startAlarm.func1()",
			"\t/usr/local/go/src/testing/testing.go:2366 +0x385",
			"created by time.goFunc",
			"\t/usr/local/go/src/time/sleep.go:177 +0x2d",
			"")
		for g := range 12 {
			lines = append(lines, fmt.Sprintf("goroutine %d [IO wait, 9 minutes]:", 20+g),
				"internal/poll.runtime_pollWait(0x7f2c4c1e8f08, 0x72)",
				"\t/usr/local/go/src/runtime/netpoll.go:345 +0x85",
				"net/http.(*persistConn).readLoop(0xc0002c0000)",
				"\t/usr/local/go/src/net/http/transport.go:2205 +0x8d",
				fmt.Sprintf("created by net/http.(*Transport).dialConn in goroutine %d", 19+g),
				"\t/usr/local/go/src/net/http/transport.go:1874 +0x154f",
				"")
		}
		test := len(lines)
		lines = append(lines, "goroutine 87 [chan send, 9 minutes]:",
			"example.com/shop/worker.(*Pool).Drain(0xc0003a8000)",
			"\t/work/shop/worker/pool.go:142 +0x1b4",
			"example.com/shop/worker.TestWorkerDrainsQueue.func2(0xc0001a2680)",
			"\t/work/shop/worker/pool_test.go:58 +0x2f1",
			"testing.tRunner(0xc0001a2680, 0x6e2f60)",
			"\t/usr/local/go/src/testing/testing.go:1689 +0xfb",
			"created by testing.(*T).Run in goroutine 1",
			"\t/usr/local/go/src/testing/testing.go:1742 +0x390",
			"",
			"goroutine 98 [select, 9 minutes]:",
			"example.com/shop/metrics.(*Reporter).loop(0xc000212000)",
			"\t/work/shop/metrics/reporter.go:77 +0x12c",
			"created by example.com/shop/metrics.Start in goroutine 1",
			"\t/work/shop/metrics/reporter.go:41 +0x8e",
			"",
			"FAIL\texample.com/shop/worker\t600.213s")
		for p := 10; p < 20; p++ {
			lines = append(lines, fmt.Sprintf("ok  \texample.com/shop/pkg%d\t0.%02ds", p, p))
		}
		lines = append(lines, "FAIL")
		s := score(t, engine.SourceLogs, "why is CI red", lines)
		for _, i := range []int{test, test + 1, test + 2, test + 3, test + 4} {
			for j := range lines {
				// go test's FAIL summaries restate the panic, as short lines near the end.
				if (j < test || j >= test+9) && j != panicAt && !(listed && (j == panicAt+1 || j == panicAt+2)) && !strings.HasPrefix(lines[j], "FAIL") {
					assert.Greater(t, s[i], s[j], "listed %v: %q above %q", listed, lines[i], lines[j])
				}
			}
		}
		assert.GreaterOrEqual(t, s[panicAt], s[test], "listed %v: the panic first", listed)
	}
}

// TestLogsPytestReportComesWhole: a pytest failure report (the test's source with its ">"
// line, the "E" lines, the place) ranks as one, with the short summary's line for that test,
// above a long warnings summary between them; before, the report's source scored as chatter
// and the warnings, nearer the log's end, outranked even its "E" lines.
func TestLogsPytestReportComesWhole(t *testing.T) {
	lines := []string{"============================= test session starts ==============================",
		"collected 312 items", "",
		"tests/test_billing.py ....................F............................. [ 33%]",
		"tests/test_cart.py ...................................................... [100%]", "",
		"=================================== FAILURES ===================================",
		"\x1b[1m\x1b[31m_________________________ TestInvoice.test_total_rounding _________________________\x1b[0m", "",
		"    def test_total_rounding(self):",
		"        inv = Invoice(lines=[Line(amount=Decimal(\"10.005\"), qty=3)])",
		">       assert inv.total == Decimal(\"30.02\")",
		"E       AssertionError: assert Decimal('30.01') == Decimal('30.02')", "",
		"tests/test_billing.py:88: AssertionError",
		"=============================== warnings summary ==============================="}
	report, reportEnd := 7, 15
	for k := range 25 {
		lines = append(lines, fmt.Sprintf("tests/test_cart.py::test_case_%d", k),
			fmt.Sprintf("  /work/.venv/lib/python3.12/site-packages/sqlalchemy/orm/query.py:%d: DeprecationWarning: Query.get() is legacy", 1000+k),
			"    return self._get_impl(ident, loading.load_on_pk_identity)", "")
	}
	lines = append(lines, "=========================== short test summary info ============================",
		"\x1b[31mFAILED\x1b[0m tests/test_billing.py::TestInvoice::test_total_rounding - AssertionError: assert Decimal('30.01') == Decimal('30.02')",
		"============ 1 failed, 311 passed, 25 warnings in 12.34s =============")
	summary := len(lines) - 2
	s := score(t, engine.SourceLogs, "which test fails and why", lines)
	for i := report; i < reportEnd; i++ {
		assert.GreaterOrEqual(t, s[i], 0.9*s[summary]-1e-9, "%q with the summary's line", lines[i])
		for j := reportEnd; j < summary-1; j++ {
			assert.Greater(t, s[i], s[j], "%q above %q", lines[i], lines[j])
		}
	}
}

// TestLogsCargoTestReportComesWhole: what cargo test printed for a failing test, above its
// panic, ranks with the panic, above the run's passing tests.
func TestLogsCargoTestReportComesWhole(t *testing.T) {
	lines := []string{"running 120 tests"}
	for k := range 120 {
		lines = append(lines, fmt.Sprintf("test tests::case_%03d ... ok", k))
	}
	lines = append(lines, "", "failures:", "")
	report := len(lines)
	lines = append(lines, "---- tests::grid_reset stdout ----",
		"[49][0] Cell { c: ' ', fg: Named(Black), bg: Named(BrightRed) } => Cell { c: 'U' }",
		"[49][1] Cell { c: 'L', fg: Named(Black), bg: Named(BrightRed) } => Cell { c: ' ' }",
		"thread 'tests::grid_reset' panicked at alacritty_terminal/tests/ref.rs:125:9:",
		"Ref test failed; grid doesn't match",
		"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
		"")
	reportEnd := len(lines)
	lines = append(lines, "", "failures:", "    tests::grid_reset", "",
		"test result: FAILED. 119 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.41s", "",
		"error: test failed, to rerun pass `--test ref`")
	s := score(t, engine.SourceLogs, "which test fails and why", lines)
	panicAt := report + 3
	for i := report; i < reportEnd; i++ {
		assert.GreaterOrEqual(t, s[i], 0.9*s[panicAt]-1e-9, "%q with the panic", lines[i])
		for j := 1; j <= 120; j++ {
			assert.Greater(t, s[i], s[j], "%q above %q", lines[i], lines[j])
		}
	}
}

// TestLogsPHPUnitReportsComeWhole: each of PHPUnit's numbered failure reports (its message,
// the expected/actual diff, the places) ranks as one, with its message, above the suites that
// ran after it.
func TestLogsPHPUnitReportsComeWhole(t *testing.T) {
	lines := []string{"PHPUnit 4.8.36 by Sebastian Bergmann and contributors.", "",
		"...........................F...........S.......", "", "Time: 1.25 seconds, Memory: 10.50MB", "",
		"There were 2 failures:", ""}
	first := len(lines)
	lines = append(lines, "1) Symfony\\Component\\VarDumper\\Tests\\ExceptionCasterTest::testDefaultSettings",
		"Failed asserting that format description matches text.",
		"--- Expected", "+++ Actual", "@@ @@", " Exception {", "   #message: \"foo\"",
		"-  #line: 30", "+  #line: 28", " }", "",
		"/work/symfony/src/Symfony/Component/VarDumper/Test/VarDumperTestTrait.php:41", "")
	second := len(lines)
	lines = append(lines, "2) Symfony\\Component\\VarDumper\\Tests\\XmlReaderCasterTest::testNodes",
		"Failed asserting that two strings are identical.",
		"--- Expected", "+++ Actual", "@@ @@", "-    #depth: 1", "+    #depth: 2", "",
		"/work/symfony/src/Symfony/Component/VarDumper/Tests/Caster/XmlReaderCasterTest.php:64", "")
	end := len(lines)
	lines = append(lines, "\x1b[37;41mFAILURES!\x1b[0m", "Tests: 268, Assertions: 330, Failures: 2, Skipped: 34.", "")
	for k := range 40 {
		lines = append(lines, fmt.Sprintf("Testing src/Symfony/Component/Suite%02d", k), "...................", "OK (12 tests, 30 assertions)", "")
	}
	s := score(t, engine.SourceLogs, "which test fails and why", lines)
	for _, r := range [][2]int{{first, second}, {second, end}} {
		msg := r[0] + 1
		for i := r[0]; i < r[1]; i++ {
			assert.GreaterOrEqual(t, s[i], 0.9*s[msg]-1e-9, "%q with its report's message", lines[i])
			for j := end + 3; j < len(lines); j++ {
				assert.Greater(t, s[i], s[j], "%q above %q", lines[i], lines[j])
			}
		}
	}
}

// TestDiffsKeepTheirHeaders: a diff, sent as any source type, is read as code: a changed line
// the goal names ranks above the same words in a context line, and the line naming its file
// and its hunk's "@@" line rank above it, so a budget that buys the change buys where it is.
func TestDiffsKeepTheirHeaders(t *testing.T) {
	lines := []string{
		"diff --git a/server/other.go b/server/other.go",
		"index 1111111..2222222 100644",
		"--- a/server/other.go",
		"+++ b/server/other.go",
		"@@ -10,3 +10,3 @@ func other() {",
		" 	a := 1",
		"-	b := 2",
		"+	b := 3",
		"diff --git a/server/swe.go b/server/swe.go",
		"index 3333333..4444444 100644",
		"--- a/server/swe.go",
		"+++ b/server/swe.go",
		"@@ -120,6 +120,6 @@ func (s *Server) servePrune(w http.ResponseWriter, r *http.Request) {",
		" 	// the document's score",
		" 	total := 0.0",
		"-	out.Score = mean(res.Scores)",
		"+	out.Score = best",
		" 	return out",
	}
	const changed = 15
	asContext := slices.Clone(lines)
	asContext[changed] = " " + lines[changed][1:]
	for _, st := range []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs} {
		s := score(t, st, "why is out.Score the mean of res.Scores", lines)
		assert.Greater(t, s[changed], score(t, st, "why is out.Score the mean of res.Scores", asContext)[changed], "%s: a change above the same line as context", st)
		assert.GreaterOrEqual(t, s[8], s[changed], "%s: the line naming the file", st)
		assert.GreaterOrEqual(t, s[12], s[changed], "%s: the hunk's header", st)
		assert.Less(t, s[0], s[8], "%s: the other file's header below this one's", st)
	}
}
