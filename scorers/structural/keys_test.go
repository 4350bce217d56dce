package structural

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigPaths runs real-world-shaped configuration files (testdata/keys: a Kubernetes
// deployment, a manifest of several Kubernetes objects, a docker-compose file, a GitHub Actions workflow, a pyproject.toml, a Cargo
// manifest, a VS Code launch.json) whose goal names one item among siblings of the same
// shape. Each "outrank" row "W > D ..." (1-based lines) says that line W of the item the
// goal names (the leaf it is about, or a key that says where that leaf is) scores above
// the same lines D of the sibling items. The per-line scores are compared with the golden
// section (-update rewrites it).
func TestConfigPaths(t *testing.T) {
	files, err := filepath.Glob("testdata/keys/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			a, path, lines := readLangCase(t, f)
			goal := strings.TrimSpace(a.get("goal"))
			resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: engine.SourceCode, Path: path})
			require.NoError(t, err)
			require.Empty(t, resp.Warnings, "structure must be used, not the fallback")
			rows := strings.Split(strings.TrimSpace(a.get("outrank")), "\n")
			require.NotEmpty(t, rows)
			for _, row := range rows {
				w, d, ok := strings.Cut(row, ">")
				require.True(t, ok, "outrank row %q", row)
				ws := lineNumbers(t, w, len(lines))
				require.Len(t, ws, 1, "outrank row %q", row)
				for _, d := range lineNumbers(t, d, len(lines)) {
					assert.Greater(t, resp.Scores[ws[0]], resp.Scores[d], "line %d %q must outrank line %d %q", ws[0]+1, lines[ws[0]], d+1, lines[d])
				}
			}
			golden := marks(lines, resp.Scores)
			if *update {
				a.set("golden", golden)
				require.NoError(t, os.WriteFile(f, a.format(), 0o644))
				return
			}
			assert.Equal(t, a.get("golden"), golden, "golden differs (go test -run TestConfigPaths -update)")
		})
	}
}

// lineNumbers reads 1-based line numbers and returns them 0-based.
func lineNumbers(t *testing.T, s string, n int) []int {
	t.Helper()
	var out []int
	for _, f := range fields(s) {
		v, err := strconv.Atoi(f)
		require.NoError(t, err)
		require.True(t, v >= 1 && v <= n, "line %d out of range", v)
		out = append(out, v-1)
	}
	return out
}

// TestConfigShapes covers the configuration shapes beside the real-world files: keys that
// repeat at every level, anchors and aliases, several documents in one stream, and JSON.
// In each, line want (0-based: the leaf under the entry the goal names) outranks every
// line of over (the same key elsewhere).
func TestConfigShapes(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	tests := []struct {
		name, path, goal string
		text             string
		want             int
		over             []int
	}{
		{
			name: "a key repeated at every level", path: "gateway.yaml",
			goal: "requests to the payments route time out too early; raise its timeout",
			text: `timeout: 30s
routes:
  - name: users
    timeout: 30s
    upstream:
      timeout: 30s
  - name: payments
    timeout: 5s
    upstream:
      timeout: 30s
  - name: search
    timeout: 30s
`,
			want: 7, over: []int{0, 3, 5, 11},
		},
		{
			name: "anchors and aliases", path: "docker-compose.yml",
			goal: "the worker service restarts forever; its restart policy should be on-failure",
			text: `x-defaults: &defaults
  restart: always
  logging:
    driver: json-file
services:
  web:
    <<: *defaults
    image: nginx
    restart: always
  worker:
    <<: *defaults
    image: acme/worker
    restart: always
`,
			want: 12, over: []int{1, 8},
		},
		{
			// The api's restart policy is in the mapping it merges: that mapping's lines are
			// the api's, over the other anchor's and the db's own.
			name: "a merged anchor", path: "compose.yaml",
			goal: "the api service keeps restarting; change its restart policy",
			text: `x-defaults: &defaults
  restart: always
  logging:
    driver: json-file
    options:
      max-size: 10m
x-batch: &batch
  restart: on-failure
  logging:
    driver: syslog
services:
  web:
    <<: *defaults
    image: acme/web:1.4
    ports:
      - "80:80"
  api:
    <<: *batch
    image: acme/api:2.0
    ports:
      - "8080:8080"
  db:
    image: postgres:16
    restart: unless-stopped
`,
			want: 7, over: []int{1, 23},
		},
		{
			name: "several documents", path: "k8s/all.yaml",
			goal: "prometheus cannot scrape the metrics port",
			text: `apiVersion: v1
kind: Service
spec:
  ports:
    - name: http
      port: 80
---
apiVersion: v1
kind: Service
spec:
  ports:
    - name: metrics
      port: 9090
`,
			want: 12, over: []int{5},
		},
		{
			name: "a JSON array of objects", path: "renovate.json",
			goal: "automerge must be off for the react package rule",
			text: `{
  "packageRules": [
    {
      "matchPackageNames": ["eslint"],
      "automerge": true
    },
    {
      "matchPackageNames": ["react"],
      "automerge": true
    }
  ]
}
`,
			want: 8, over: []int{4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(tt.text, "\n"), "\n")
			resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: tt.goal, SourceType: engine.SourceCode, Path: tt.path})
			require.NoError(t, err)
			require.Empty(t, resp.Warnings)
			for _, o := range tt.over {
				assert.Greater(t, resp.Scores[tt.want], resp.Scores[o], "line %d %q over line %d %q", tt.want+1, lines[tt.want], o+1, lines[o])
			}
		})
	}
}

// TestConfigFallbacks: a configuration the scorer cannot read answers as the heuristic
// does, with the warning it gives for code.
func TestConfigFallbacks(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	// A mapping, then a sequence item at its level: the YAML grammar reads the first
	// entry and gives up.
	var broken []string
	for i := range 20 {
		broken = append(broken, fmt.Sprintf("key%d: value", i), fmt.Sprintf("- item%d", i))
	}
	minified := `{"dependencies":{` + strings.Repeat(`"left-pad-x":"^1.3.0",`, 400) + `"react":"^18.3.1"}}`
	require.Greater(t, len(minified), longLine)
	tests := []struct {
		name, path string
		lines      []string
		warn       string
	}{
		{name: "YAML with syntax errors", path: "values.yaml", lines: broken, warn: WarnSyntaxErrors},
		{name: "minified JSON on one line", path: "package-lock.json", lines: []string{minified}, warn: WarnLongLines},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := engine.ScoreRequest{Lines: tt.lines, Goal: "react version", SourceType: engine.SourceCode, Path: tt.path}
			resp, err := s.Score(context.Background(), &req)
			require.NoError(t, err)
			assert.Equal(t, []string{tt.warn}, resp.Warnings)
			h, err := heuristic.New().Score(context.Background(), &req)
			require.NoError(t, err)
			assert.Equal(t, h.Scores, resp.Scores)
		})
	}
}

// longJSON is a pretty-printed JSON document of about n lines: a lock file's packages.
func longJSON(n int) []string {
	lines := []string{"{", `  "packages": {`}
	for k := 0; len(lines) < n-3; k++ {
		name := fmt.Sprintf("pkg-%05d", k)
		if k == 1500 {
			name = "left-pad"
		}
		lines = append(lines,
			fmt.Sprintf(`    "node_modules/%s": {`, name),
			fmt.Sprintf(`      "version": "1.%d.0",`, k%40),
			fmt.Sprintf(`      "resolved": "https://registry.example/%s.tgz",`, name),
			`      "dev": true`,
			"    },")
	}
	lines[len(lines)-1] = "    }"
	return append(lines, "  }", "}")
}

// longYAML is a YAML document of about n lines: a Helm values file's services.
func longYAML(n int) []string {
	lines := []string{"services:"}
	for k := 0; len(lines) < n; k++ {
		name := fmt.Sprintf("svc-%05d", k)
		if k == 700 {
			name = "billing"
		}
		lines = append(lines,
			"  - name: "+name,
			fmt.Sprintf("    image: registry.example/svc-%05d:1.%d", k, k%30),
			"    resources:",
			"      limits:",
			fmt.Sprintf("        memory: %dMi", 128+k%8*64),
			"        cpu: 250m",
			"    env:",
			"      - name: LOG_LEVEL",
			"        value: info")
	}
	return lines
}

// TestLongConfigs: configurations past parseLines are parsed in windows, JSON included
// (a window cut from inside a JSON object parses with errors at its edges only), and the
// item the goal names still leads.
func TestLongConfigs(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	tests := []struct {
		name, path, goal string
		lines            []string
		want, other      string // the identifying line of the named item, and of another
		leaf             int    // lines from the identifying line to a leaf the goal names
	}{
		{name: "yaml", path: "values.yaml", goal: "the billing service runs out of memory; raise its memory limit", lines: longYAML(10000),
			want: "  - name: billing", other: "  - name: svc-00701", leaf: 4},
		{name: "json", path: "package-lock.json", goal: "left-pad resolves to the wrong tarball", lines: longJSON(10000),
			want: `    "node_modules/left-pad": {`, other: `    "node_modules/pkg-01501": {`, leaf: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Greater(t, len(tt.lines), parseLines)
			resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: tt.lines, Goal: tt.goal, SourceType: engine.SourceCode, Path: tt.path})
			require.NoError(t, err)
			require.Empty(t, resp.Warnings)
			w, o := slices.Index(tt.lines, tt.want), slices.Index(tt.lines, tt.other)
			require.True(t, w >= 0 && o >= 0)
			// The named item's leaf outranks its twin in the next item.
			assert.Greater(t, resp.Scores[w+tt.leaf], resp.Scores[o+tt.leaf], "%q over %q", tt.lines[w+tt.leaf], tt.lines[o+tt.leaf])
			assert.GreaterOrEqual(t, resp.Scores[w], Threshold)
		})
	}
}

// BenchmarkScoreLongYAML is a 10,000-line YAML file scored afresh (no outline cached, a new
// goal each time is not needed: the outline cache is keyed by content, so the file changes
// by one line each iteration): parse of the windows, key walk and scoring.
func BenchmarkScoreLongYAML(b *testing.B) {
	s := New()
	b.Cleanup(func() { _ = s.Close() })
	lines := longYAML(10000)
	req := engine.ScoreRequest{Lines: lines, Goal: "the billing service runs out of memory; raise its memory limit", SourceType: engine.SourceCode, Path: "values.yaml"}
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		lines[0] = fmt.Sprintf("services: # %d", i)
		if _, err := s.Score(context.Background(), &req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConfigBudgetKeepsTheLeaf prunes two of testdata/keys under tight token budgets, markers
// priced by cl100k_base as the server prices them: the leaf the goal is about must be kept.
// A budget takes lines by value per token, and a configuration's outer keys ("spec:",
// "containers:") are a few tokens at the file's head; followed at code's 0.97 of the leaf,
// they came first and grew a marker-free run from the head through the wrong container.
func TestConfigBudgetKeepsTheLeaf(t *testing.T) {
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	reg := engine.NewRegistry()
	reg.Register("structural", New())
	t.Cleanup(func() { _ = reg.Close() })
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(0, 1<<20, nil), Tokens: tok})
	require.NoError(t, err)
	tests := []struct {
		name   string
		file   string
		budget int
		leaf   string
	}{
		{name: "deployment at 110 tokens", file: "k8s", budget: 110, leaf: "memory: 2Gi"},
		{name: "deployment at 150 tokens", file: "k8s", budget: 150, leaf: "memory: 2Gi"},
		{name: "manifest at 150 tokens", file: "manifest", budget: 150, leaf: "memory: 1Gi"},
		{name: "manifest at 200 tokens", file: "manifest", budget: 200, leaf: "memory: 1Gi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, path, lines := readLangCase(t, filepath.Join("testdata", "keys", tt.file+".txtar"))
			res, err := eng.Prune(context.Background(), &engine.Request{
				Text: strings.Join(lines, "\n") + "\n", GoalHint: strings.TrimSpace(a.get("goal")), SourceType: engine.SourceCode, Path: path,
				TokenBudget: tt.budget, Options: engine.Options{MaxPruneRatio: 0.95, MinKeepLines: 3, TimeoutMS: 5000, IncludeMarkers: true},
			})
			require.NoError(t, err)
			require.False(t, res.Stats.UsedFallback, "%v", res.Warnings)
			require.Positive(t, res.Stats.PrunedLines)
			assert.Contains(t, res.PrunedText, tt.leaf, "%s", res.PrunedText)
		})
	}
}

// TestJSONFormFeedEscape: a JSON key holding a form-feed escape (\f, which JSON allows and
// tree-sitter-yaml rejects) leaves the file structured, not a syntax-error fallback; and
// "\\f", an escaped backslash before an f, is no form feed.
func TestJSONFormFeedEscape(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	lines := strings.Split(`{
  "weird": {
    "foo\fbar": {"type": "number"},
    "path\\file": {"type": "string"}
  },
  "limits": {
    "memory": "512Mi",
    "cpu": "1"
  },
  "worker": {
    "memory": "2Gi",
    "cpu": "2"
  },
  "sidecar": {
    "memory": "256Mi",
    "cpu": "1"
  }
}`, "\n")
	resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "raise the worker's memory", SourceType: engine.SourceCode, Path: "deploy.json"})
	require.NoError(t, err)
	assert.Empty(t, resp.Warnings)
	assert.Greater(t, resp.Scores[10], resp.Scores[6], "the worker's memory over the limits' one")
	assert.Greater(t, resp.Scores[10], resp.Scores[14], "the worker's memory over the sidecar's")

	src := []byte(`"a\fb", "c\\f", "d\\\fe"`)
	formFeedsAsTabs(src)
	assert.Equal(t, `"a\tb", "c\\f", "d\\\te"`, string(src))
}
