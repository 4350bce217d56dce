package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// archive is a minimal txtar: a comment, then "-- name --" sections.
type archive struct {
	comment  string
	sections []section
}

type section struct{ name, data string }

func parseArchive(s string) archive {
	var a archive
	cur := -1
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(strings.TrimRight(line, "\n"), " --") {
			name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimRight(line, "\n"), "-- "), " --")
			a.sections = append(a.sections, section{name: name})
			cur = len(a.sections) - 1
			continue
		}
		if cur < 0 {
			a.comment += line
		} else {
			a.sections[cur].data += line
		}
	}
	return a
}

func (a archive) get(name string) (string, bool) {
	for _, s := range a.sections {
		if s.name == name {
			return s.data, true
		}
	}
	return "", false
}

func (a *archive) set(name, data string) {
	for i := range a.sections {
		if a.sections[i].name == name {
			a.sections[i].data = data
			return
		}
	}
	a.sections = append(a.sections, section{name, data})
}

func (a archive) format() string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, s := range a.sections {
		b.WriteString("-- " + s.name + " --\n")
		b.WriteString(s.data)
	}
	return b.String()
}

// goldenRequest is the "request" section of a golden file.
type goldenRequest struct {
	Goal        string            `json:"goal_hint"`
	SourceType  engine.SourceType `json:"source_type"`
	Options     engine.Options    `json:"options"`
	Scorer      string            `json:"scorer,omitempty"`
	TokenBudget int               `json:"token_budget,omitempty"`
	Threshold   *float64          `json:"threshold,omitempty"`
}

// goldenRequests reads every golden file; the fuzz test seeds from them too.
func goldenRequests(t testing.TB) (files []string, reqs []*engine.Request, archives []archive) {
	t.Helper()
	files, err := filepath.Glob("testdata/golden/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		a := parseArchive(string(raw))
		reqJSON, ok := a.get("request.json")
		require.True(t, ok, "%s: no request.json section", file)
		input, ok := a.get("input")
		require.True(t, ok, "%s: no input section", file)
		var gr goldenRequest
		require.NoError(t, json.Unmarshal([]byte(reqJSON), &gr), file)
		reqs = append(reqs, &engine.Request{
			Text: input, GoalHint: gr.Goal, SourceType: gr.SourceType, Options: gr.Options,
			Scorer: gr.Scorer, TokenBudget: gr.TokenBudget, Threshold: gr.Threshold,
		})
		archives = append(archives, a)
	}
	return files, reqs, archives
}

// TestGolden prunes each testdata/golden/*.txtar input and compares the pruned text (with the
// prune id replaced by prn_ID) and the warnings with the stored ones. go test -update
// rewrites them.
func TestGolden(t *testing.T) {
	files, reqs, archives := goldenRequests(t)
	for i, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f := newFixture(t, 0)
			res, err := f.eng.Prune(context.Background(), reqs[i])
			require.NoError(t, err)
			checkResult(t, f, reqs[i], res)
			got := strings.ReplaceAll(res.PrunedText, res.PruneID, "prn_ID")
			if !strings.HasSuffix(got, "\n") {
				got += "\n" // txtar sections end with a newline
			}
			warnings := strings.Join(res.Warnings, "\n") + "\n"
			a := archives[i]
			if *update {
				a.set("output", got)
				a.set("warnings", warnings)
				require.NoError(t, os.WriteFile(file, []byte(a.format()), 0o644))
				return
			}
			want, ok := a.get("output")
			require.True(t, ok, "no output section: run go test -update")
			assert.Equal(t, want, got)
			wantWarn, _ := a.get("warnings")
			assert.Equal(t, wantWarn, warnings)
		})
	}
}
