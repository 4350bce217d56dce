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
	var b bytes.Buffer
	for k := 0; k < 6; k++ {
		var src strings.Builder
		gold := 0
		for j := 0; j < 30; j++ {
			if j == k*4 {
				gold = strings.Count(src.String(), "\n") + 1
			}
			fmt.Fprintf(&src, "func handler%d(w http.ResponseWriter) error {\n\treturn render(w, %d)\n}\n\n", j, j)
		}
		c := map[string]any{
			"id": fmt.Sprintf("t/%d", k), "source_type": "code", "dataset": "synthetic",
			"goal_hint": fmt.Sprintf("handler%d returns the wrong page", k*4), "text": src.String(), "path": "h.go",
			"gold_lines": []int{gold, gold + 1},
		}
		line, err := json.Marshal(c)
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

func TestBenchCompare(t *testing.T) {
	data := benchCases(t)
	var out, errOut bytes.Buffer
	err := runBench(context.Background(), []string{"--data", data, "--scorers", "head,heuristic", "--modes", "budget", "--budgets", "0.2", "--quiet", "--compare", "head,heuristic"}, nil, &out, &errOut)
	require.NoError(t, err, errOut.String())
	assert.Contains(t, out.String(), "95% interval")
	assert.Regexp(t, `heuristic − head +code +synthetic +20% +6 +\+0\.\d+`, out.String(), "the heuristic finds the named handler, head does not")

	for _, bad := range []string{"head", "head,head", "head,structural"} {
		err := runBench(context.Background(), []string{"--data", data, "--scorers", "head,heuristic", "--compare", bad}, nil, &out, &errOut)
		var usage *usageError
		assert.ErrorAs(t, err, &usage, "--compare %s", bad)
	}
}
