package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// testRepo is a throwaway git repository with a fixed identity and no user config.
type testRepo struct {
	t   *testing.T
	dir string
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func (r *testRepo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for name, content := range files {
		p := filepath.Join(r.dir, name)
		require.NoError(r.t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(r.t, os.WriteFile(p, []byte(content), 0o644))
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func TestBuildCommits(t *testing.T) {
	r := newTestRepo(t)
	v1 := "package calc\n\nfunc Div(a, b int) int {\n\treturn a / b\n}\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
	r.commit("initial import", map[string]string{"calc.go": v1, "logo.bin": "\x00\x01\x02", "README.md": "# calc\n\nAdds.\n"})

	// A modification: line 4 changes.
	v2 := strings.Replace(v1, "\treturn a / b\n", "\tif b == 0 {\n\t\treturn 0\n\t}\n\treturn a / b\n", 1)
	v2 = strings.Replace(v2, "\treturn a + b\n", "\treturn a + b // fixed\n", 1)
	fix1 := r.commit("Fix crash on division by zero\n\nDiv panicked when b was 0.", map[string]string{"calc.go": v2, "logo.bin": "\x00\x01\x03"})

	// Not a fix: ignored.
	r.commit("Add Sub", map[string]string{"calc.go": v2 + "\nfunc Sub(a, b int) int { return a - b }\n"})
	v3 := v2 + "\nfunc Sub(a, b int) int { return a - b }\n"

	// A pure insertion after line 5 ("\treturn 0" block end is line 6: "\t}"); gold = nearest
	// non-blank line at or above, and below.
	lines := engine.SplitLines(v3)
	v4 := strings.Join(lines[:6], "\n") + "\n\t// guarded above\n" + strings.Join(lines[6:], "\n") + "\n"
	fix2 := r.commit("bug: document the guard", map[string]string{"calc.go": v4, "new.go": "package calc\n"})

	cases, st, err := BuildCommits(context.Background(), CommitOptions{Repo: r.dir})
	require.NoError(t, err)
	assert.Equal(t, 4, st.Commits)
	assert.Equal(t, 2, st.FixCommits)
	assert.Equal(t, 1, st.SkippedBinary, "logo.bin")
	require.Len(t, cases, 2, "new.go (added) and README.md (untouched) give no case")

	// Newest first.
	c := cases[0]
	assert.Equal(t, fix2, jsonField(t, c.Meta, "commit"))
	assert.Equal(t, "bug: document the guard", c.GoalHint)
	assert.Equal(t, v3, c.Text)
	assert.Equal(t, []int{6, 7}, c.GoldLines, "lines around the insertion: \\t} and \\treturn a / b")
	assert.Equal(t, "calc.go", c.Path)
	assert.Equal(t, engine.SourceCode, c.SourceType)
	assert.Equal(t, "fix-commits", c.Dataset)
	assert.Equal(t, "go", jsonField(t, c.Meta, "language"))

	c = cases[1]
	assert.Equal(t, fix1, jsonField(t, c.Meta, "commit"))
	assert.Equal(t, "Fix crash on division by zero\n\nDiv panicked when b was 0.", c.GoalHint)
	assert.Equal(t, v1, c.Text)
	assert.Equal(t, []int{3, 4, 8}, c.GoldLines, "both sides of the guard inserted after line 3, and the modified line 8")
	assert.True(t, strings.HasPrefix(c.ID, "commits/"+filepath.Base(r.dir)+"@"+fix1[:12]+"/calc.go"))
	assert.Equal(t, filepath.Base(r.dir), regexp.MustCompile(DevRepoKey).FindStringSubmatch(c.ID)[2], "spread's key finds the repository")

	t.Run("round trip through LoadCases", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteCases(&buf, cases))
		p := filepath.Join(t.TempDir(), "mine.jsonl")
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		back, err := LoadCases(p)
		require.NoError(t, err)
		require.Len(t, back, 2)
		assert.Equal(t, cases[1].GoldLines, back[1].GoldLines)
		assert.Equal(t, cases[1].Text, back[1].Text)
	})

	t.Run("options", func(t *testing.T) {
		cs, _, err := BuildCommits(context.Background(), CommitOptions{Repo: r.dir, Limit: 1})
		require.NoError(t, err)
		assert.Len(t, cs, 1)
		cs, st, err := BuildCommits(context.Background(), CommitOptions{Repo: r.dir, Grep: `^Add`})
		require.NoError(t, err)
		assert.Equal(t, 1, st.FixCommits)
		assert.Len(t, cs, 1)
		_, st, err = BuildCommits(context.Background(), CommitOptions{Repo: r.dir, MaxFileBytes: 10})
		require.NoError(t, err)
		assert.Equal(t, 2, st.SkippedLarge)
		_, _, err = BuildCommits(context.Background(), CommitOptions{Repo: r.dir, Grep: "("})
		assert.ErrorContains(t, err, "--grep")
		_, _, err = BuildCommits(context.Background(), CommitOptions{Repo: filepath.Join(r.dir, "absent")})
		assert.Error(t, err)
	})
}

func TestGoldFromDiff(t *testing.T) {
	lines := []string{"a", "", "b", "c", "", "", "d"}
	tests := []struct {
		name, diff string
		want       []int
	}{
		{"modified range", "@@ -3,2 +3,2 @@\n-b\n-c\n+B\n+C\n", []int{3, 4}},
		{"single line, count omitted", "@@ -7 +7 @@\n-d\n+D\n", []int{7}},
		{"pure insertion skips blanks both ways", "@@ -5,0 +6 @@\n+x\n", []int{4, 7}},
		{"insertion at the top", "@@ -0,0 +1 @@\n+x\n", []int{1}},
		{"insertion at the end", "@@ -7,0 +8 @@\n+x\n", []int{7}},
		{"two hunks", "@@ -1 +1 @@\n-a\n+A\n@@ -4,0 +5 @@\n+y\n", []int{1, 4, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, goldFromDiff([]byte(tt.diff), lines))
		})
	}
}

func jsonField(t *testing.T, raw []byte, key string) string {
	t.Helper()
	var m map[string]string
	require.NoError(t, json.Unmarshal(raw, &m))
	return m[key]
}
