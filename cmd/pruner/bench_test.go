package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchCases writes a small case file: Go files whose gold is the function the goal names.
func benchCases(t *testing.T) string {
	t.Helper()
	var cases []map[string]any
	for k := 0; k < 6; k++ {
		var src strings.Builder
		gold := 0
		for j := 0; j < 60; j++ {
			if j == k*4 {
				gold = strings.Count(src.String(), "\n") + 1
			}
			fmt.Fprintf(&src, "func handler%d(w http.ResponseWriter, r *http.Request) error {\n\tpage := pages.Lookup(r.URL.Path, %d)\n\treturn render(w, page)\n}\n\n", j, j)
		}
		cases = append(cases, map[string]any{
			"id": fmt.Sprintf("t/%d", k), "source_type": "code", "dataset": "synthetic",
			"goal_hint": fmt.Sprintf("handler%d returns the wrong page", k*4), "text": src.String(), "path": "h.go",
			"gold_lines": []int{gold, gold + 1},
		})
	}
	return writeCases(t, "cases.jsonl", cases)
}

// writeCases writes cases as a JSONL case file named name in a temporary directory.
func writeCases(t *testing.T, name string, cases []map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	for _, c := range cases {
		line, err := json.Marshal(c)
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// TestBenchCases: --cases writes one line per scorer, case and budget, whose recalls
// average to the row's.
func TestBenchCases(t *testing.T) {
	data := benchCases(t)
	path := filepath.Join(t.TempDir(), "results.jsonl")
	var out, errOut bytes.Buffer
	err := runBench(context.Background(), []string{"--data", data, "--scorers", "head,heuristic", "--modes", "budget", "--budgets", "0.1,0.2", "--quiet", "--cases", path, "--json", filepath.Join(t.TempDir(), "rows.json")}, nil, &out, &errOut)
	require.NoError(t, err, errOut.String())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2*6*2, "two scorers, six cases, two budgets")
	sum := map[string]float64{}
	seen := map[string]bool{}
	for _, l := range lines {
		var r struct {
			Scorer       string   `json:"scorer"`
			Budget       *float64 `json:"budget"`
			Case         string   `json:"case"`
			Recall       *float64 `json:"recall"`
			KeptTokens   int      `json:"kept_tokens"`
			TokensBefore int      `json:"tokens_before"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		require.NotNil(t, r.Budget)
		require.NotNil(t, r.Recall, "every case has gold lines")
		assert.LessOrEqual(t, r.KeptTokens, int(*r.Budget*float64(r.TokensBefore)), "within its budget")
		key := fmt.Sprintf("%s@%v", r.Scorer, *r.Budget)
		sum[key] += *r.Recall
		seen[key+"/"+r.Case] = true
	}
	assert.Len(t, seen, 24, "no case twice")
	assert.Greater(t, sum["heuristic@0.2"], sum["head@0.2"], "the heuristic finds the named handlers")
	assert.InDelta(t, 6.0, sum["heuristic@0.2"], 1e-9, "and all their gold lines at 20%")

	err = runBench(context.Background(), []string{"--data", data, "--scorers", "head", "--quiet", "--cases", filepath.Join(t.TempDir(), "missing", "dir", "x.jsonl")}, nil, &out, &errOut)
	assert.Error(t, err, "an unwritable --cases path fails")
}

// TestBenchScores: --scores writes each case's per-line scores once per scorer, in case order
// then the order of --scores, with the rank of the best gold line.
func TestBenchScores(t *testing.T) {
	data := benchCases(t)
	path := filepath.Join(t.TempDir(), "scores.jsonl")
	var out, errOut bytes.Buffer
	err := runBench(context.Background(), []string{"--data", data, "--scorers", "heuristic,head", "--modes", "budget", "--budgets", "0.2", "--quiet", "--parallel", "2", "--scores", path}, nil, &out, &errOut)
	require.NoError(t, err, errOut.String())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2*6, "two scorers, six cases")
	for i, l := range lines {
		var r struct {
			Case         string    `json:"case"`
			Scorer       string    `json:"scorer"`
			GoldLines    []int     `json:"gold_lines"`
			BestGoldRank int       `json:"best_gold_rank"`
			LineTokens   []int     `json:"line_tokens"`
			Scores       []float64 `json:"scores"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		assert.Equal(t, fmt.Sprintf("t/%d", i/2), r.Case, "case order")
		assert.Equal(t, []string{"heuristic", "head"}[i%2], r.Scorer, "then the scorers' order")
		assert.Len(t, r.Scores, 300, "one score per line")
		assert.Len(t, r.LineTokens, 300)
		assert.Len(t, r.GoldLines, 2)
		if r.Scorer == "heuristic" {
			assert.Equal(t, 1, r.BestGoldRank, "%s: the named handler's line ranks first", r.Case)
		} else {
			// head ranks line 1 first, so the first gold line's rank is its number.
			assert.Equal(t, r.GoldLines[0], r.BestGoldRank, r.Case)
		}
	}

	err = runBench(context.Background(), []string{"--data", data, "--scorers", "head", "--quiet", "--scores", filepath.Join(t.TempDir(), "missing", "dir", "x.jsonl")}, nil, &out, &errOut)
	assert.Error(t, err, "an unwritable --scores path fails")
}

func TestBenchCompare(t *testing.T) {
	data := benchCases(t)
	var out, errOut bytes.Buffer
	err := runBench(context.Background(), []string{"--data", data, "--scorers", "head,heuristic", "--modes", "budget", "--budgets", "0.2", "--quiet", "--compare", "head,heuristic"}, nil, &out, &errOut)
	require.NoError(t, err, errOut.String())
	assert.Contains(t, out.String(), "95% interval")
	assert.Regexp(t, `heuristic − head +code +synthetic +20% +6 +\+0\.[5-9]\d\d `, out.String(), "the heuristic finds the named handler, head does not")

	for _, bad := range []string{"head", "head,head", "head,structural"} {
		err := runBench(context.Background(), []string{"--data", data, "--scorers", "head,heuristic", "--compare", bad}, nil, &out, &errOut)
		var usage *usageError
		assert.ErrorAs(t, err, &usage, "--compare %s", bad)
	}
}

// TestBenchWarnsOnFailOpen: budget-mode results that failed open (here: every text over
// --max-input-chars) are named on stderr, since they count the whole text as kept.
func TestBenchWarnsOnFailOpen(t *testing.T) {
	data := benchCases(t)
	var out, errOut bytes.Buffer
	err := runBench(context.Background(), []string{"--data", data, "--scorers", "heuristic", "--modes", "budget", "--budgets", "0.2", "--quiet"}, nil, &out, &errOut)
	require.NoError(t, err, errOut.String())
	assert.NotContains(t, errOut.String(), "failed open")

	errOut.Reset()
	err = runBench(context.Background(), []string{"--data", data, "--scorers", "heuristic", "--modes", "budget", "--budgets", "0.2", "--quiet", "--max-input-chars", "10"}, nil, &out, &errOut)
	require.NoError(t, err, errOut.String())
	assert.Contains(t, errOut.String(), "warning: 6 budget-mode results failed open")
	assert.Contains(t, errOut.String(), "heuristic code synthetic 20%: 6")

	err = runBench(context.Background(), []string{"--data", data, "--timeout", "1us"}, nil, &out, &errOut)
	var usage *usageError
	assert.ErrorAs(t, err, &usage, "a deadline under the engine's 1 ms resolution")
}

// TestBenchOracle: the oracle runs when named, as the ceiling of every scorer, and a run
// without --scorers leaves it out.
func TestBenchOracle(t *testing.T) {
	reg, err := benchRegistry(&engineConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	names := defaultBenchScorers(reg)
	assert.NotContains(t, names, "oracle")
	assert.Contains(t, names, "bm25")
	assert.Contains(t, names, "heuristic")

	data := benchCases(t)
	var out, errOut bytes.Buffer
	err = runBench(context.Background(), []string{"--data", data, "--scorers", "oracle,head", "--modes", "budget", "--budgets", "0.2", "--quiet", "--compare", "head,oracle"}, nil, &out, &errOut)
	require.NoError(t, err, errOut.String())
	assert.Regexp(t, `oracle − head +code +synthetic +20% +6 +\+0\.[5-9]\d\d `, out.String(), "the oracle keeps the gold lines head misses")
}

// TestBenchDiff: two runs' --cases files compare case by case; a run against itself moves
// nothing, and two scorers of one run compare as BASE,OTHER.
func TestBenchSpread(t *testing.T) {
	data := benchCases(t)
	cases := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, stderr := runCLI(t, "", "bench", "--data", data, "--scorers", "head,heuristic", "--modes", "budget", "--budgets", "0.1,0.2", "--quiet", "--cases", cases)
	require.Equal(t, 0, code, stderr)

	// Ids t/0 … t/5 keyed by their digit: six repositories of one case.
	code, out, stderr := runCLI(t, "", "bench", "spread", cases, "--by", `^t/(\d)`, "--aims", "synthetic=0.5", "--draws", "300")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "warning", "the aim applies")
	// An aim that names nothing of the run, or a budget it lacks, is said, not dropped.
	_, _, warned := runCLI(t, "", "bench", "spread", cases, "--aims", "synthetics=0.5", "--draws", "10")
	assert.Contains(t, warned, `warning: aim "synthetics" names no dataset or source type of`)
	_, _, warned = runCLI(t, "", "bench", "spread", cases, "--aims", "synthetic=0.5", "--aim-budget", "0.3", "--draws", "10")
	assert.Contains(t, warned, "has no result at --aim-budget 0.3, so no aim applies")
	for _, scorer := range []string{"head", "heuristic"} {
		assert.Regexp(t, `(?m)^\s*`+scorer+`\s+code\s+synthetic\s+20%\s+6\s+6\s+[01]\.\d{3}\s+.*0\.50\s+\d+\.\d%\s*$`, out)
		assert.Regexp(t, `(?m)^\s*`+scorer+`\s+code\s+synthetic\s+10%\s+6\s+6\s+[01]\.\d{3}(\s+[01]\.\d{3}){3}\s*$`, out, "no aim at 10%%")
	}
	code, out, stderr = runCLI(t, "", "bench", "spread", cases, "--by", `^t/`, "--scorer", "heuristic")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `(?m)^\s*heuristic\s+code\s+synthetic\s+20%\s+6\s+1\s`, out, "one repository: every id has the same key")
	assert.NotContains(t, out, "head ")
	code, out, stderr = runCLI(t, "", "bench", "spread", cases, "--by", "", "--scorer", "heuristic")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `(?m)^\s*heuristic\s+code\s+synthetic\s+20%\s+6\s+6\s`, out, "no key: every case drawn alone")

	for _, args := range [][]string{
		{"bench", "spread"},
		{"bench", "spread", cases, cases},
		{"bench", "spread", cases, "--by", "("},
		{"bench", "spread", cases, "--draws", "0"},
		{"bench", "spread", cases, "--aims", "logs"},
		{"bench", "spread", cases, "--aims", "logs=1.5"},
		{"bench", "spread", cases, "--aim-budget", "0"},
		{"bench", "spread", cases, "--scorer", "nosuch"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
	}
	code, _, stderr = runCLI(t, "", "bench", "spread", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not a per-case result", "a case file is not a results file")
}

func TestBenchDiff(t *testing.T) {
	data := benchCases(t)
	cases := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, stderr := runCLI(t, "", "bench", "--data", data, "--scorers", "head,heuristic", "--modes", "budget", "--budgets", "0.2", "--quiet", "--cases", cases)
	require.Equal(t, 0, code, stderr)

	code, out, stderr := runCLI(t, "", "bench", "diff", cases, cases, "--split", `^t/(\d)`)
	require.Equal(t, 0, code, stderr)
	for _, scorer := range []string{"head", "heuristic"} {
		assert.Regexp(t, `(?m)^\s*`+scorer+`\s+code\s+synthetic\s+20%\s+6\s+\+0\.0000 .* 0\s+0\s+6\s+`, out)
	}
	assert.NotContains(t, out, "most moved")

	code, out, stderr = runCLI(t, "", "bench", "diff", cases, cases, "--scorer", "head,heuristic")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "heuristic − head")
	assert.Contains(t, out, "most moved of")

	for _, args := range [][]string{
		{"bench", "diff", cases},
		{"bench", "diff", cases, cases, "--scorer", "a,b,c"},
		{"bench", "diff", cases, cases, "--split", "("},
		{"bench", "diff", cases, cases, "--moved", "-1"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
	}
	code, _, stderr = runCLI(t, "", "bench", "diff", cases, data)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not a per-case result", "a case file is not a results file")
}

// TestBenchRefusesWhatWouldMislead: a run that names a scorer or a budget twice (rows counted
// twice), or asks for a chart of budgets it does not run, is a usage error, not a quiet
// result.
func TestBenchRefusesWhatWouldMislead(t *testing.T) {
	data := benchCases(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scorers", "head,head"}, "--scorers: head twice"},
		{[]string{"--scorers", "head", "--budgets", "0.1,0.1"}, "--budgets: 0.1 twice"},
		{[]string{"--scorers", "head", "--modes", "natural", "--svg", filepath.Join(t.TempDir(), "x.svg")}, "--svg plots recall against budget"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"bench", "--data", data, "--quiet"}, tc.args...)...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want)
	}
}
