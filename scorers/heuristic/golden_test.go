package heuristic_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

var update = flag.Bool("update", false, "rewrite golden files")

type goldenReq struct {
	Goal        string            `json:"goal_hint"`
	SourceType  engine.SourceType `json:"source_type"`
	Options     engine.Options    `json:"options"`
	TokenBudget int               `json:"token_budget,omitempty"`
}

// TestGolden prunes testdata/*.txtar (sections request.json, input) through the engine with
// the heuristic scorer and compares the output; -update rewrites the output section.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	reg := engine.NewRegistry()
	reg.Register("heuristic", heuristic.New())
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: tok})
	require.NoError(t, err)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			require.NoError(t, err)
			head, sections := splitTxtar(string(raw))
			var gr goldenReq
			require.NoError(t, json.Unmarshal([]byte(sections["request.json"]), &gr))
			res, err := eng.Prune(context.Background(), &engine.Request{
				Text: sections["input"], GoalHint: gr.Goal, SourceType: gr.SourceType, Options: gr.Options, TokenBudget: gr.TokenBudget,
			})
			require.NoError(t, err)
			got := strings.ReplaceAll(res.PrunedText, res.PruneID, "prn_ID")
			if !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			if *update {
				out := head + "-- request.json --\n" + sections["request.json"] + "-- input --\n" + sections["input"] + "-- output --\n" + got
				require.NoError(t, os.WriteFile(file, []byte(out), 0o644))
				return
			}
			assert.Equal(t, sections["output"], got)
		})
	}
}

func splitTxtar(s string) (head string, sections map[string]string) {
	sections = map[string]string{}
	cur := ""
	for _, line := range strings.SplitAfter(s, "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") {
			cur = strings.TrimSuffix(strings.TrimPrefix(t, "-- "), " --")
			continue
		}
		if cur == "" {
			head += line
		} else {
			sections[cur] += line
		}
	}
	return head, sections
}
