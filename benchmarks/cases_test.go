package benchmarks

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

func writeGzip(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	zw := gzip.NewWriter(f)
	_, err = zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

func TestLoadCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/tiny.jsonl")
	require.NoError(t, err)
	gz := filepath.Join(t.TempDir(), "tiny.jsonl.gz")
	writeGzip(t, gz, raw)

	for _, path := range []string{"testdata/tiny.jsonl", gz} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cs, err := LoadCases(path)
			require.NoError(t, err)
			require.Len(t, cs, 2)
			assert.Equal(t, "t/1", cs[0].ID)
			assert.Equal(t, engine.SourceCode, cs[0].SourceType)
			assert.Equal(t, []int{3, 4}, cs[0].GoldLines)
			assert.Equal(t, "x.go", cs[0].Path)
			assert.Equal(t, "tiny", cs[0].File)
			assert.JSONEq(t, `{"note": "hand-made"}`, string(cs[0].Meta))
			assert.Equal(t, engine.SourceLogs, cs[1].SourceType)
		})
	}
}

func TestLoadCasesRejects(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"malformed json", "{\"id\": \n", "bad.jsonl:1"},
		{"gold outside text", `{"id":"a","source_type":"code","text":"one\ntwo\n","gold_lines":[3]}`, "gold line 3 outside 1..2"},
		{"bad source type", `{"id":"a","source_type":"video","text":"x","gold_lines":[]}`, `source_type "video"`},
		{"missing id", `{"source_type":"code","text":"x"}`, "without id"},
		{"missing goal", `{"id":"a","source_type":"code","goal":"fix it","text":"x","gold_lines":[1]}`, "bad.jsonl:1: case a: no goal_hint"},
		{"an id twice", `{"id":"a","source_type":"code","goal_hint":"g","text":"x","gold_lines":[1]}` + "\n" +
			`{"id":"a","source_type":"code","goal_hint":"g","text":"y","gold_lines":[1]}`, "case a is also in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(tt.content), 0o644))
			_, err := LoadCases(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := LoadCases(filepath.Join(t.TempDir(), "absent.jsonl"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	// A truncated gzip is said as such, not as the bad JSON of its last partial line.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := range 50 {
		fmt.Fprintf(zw, `{"id":"c%d","source_type":"code","goal_hint":"g","text":"some text to pad the stream out","gold_lines":[1]}`+"\n", i)
	}
	require.NoError(t, zw.Close())
	trunc := filepath.Join(t.TempDir(), "trunc.jsonl.gz")
	require.NoError(t, os.WriteFile(trunc, gz.Bytes()[:gz.Len()*2/3], 0o644))
	_, err = LoadCases(trunc)
	assert.ErrorContains(t, err, "trunc.jsonl.gz: the gzip stream is truncated or corrupt")

	// One file named twice counts every case twice: refused.
	p := filepath.Join(t.TempDir(), "ok.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"id":"a","source_type":"code","goal_hint":"g","text":"x","gold_lines":[1]}`), 0o644))
	_, err = LoadCases(p, p)
	assert.ErrorContains(t, err, "case a is also in "+p)
}

func TestDefaultDataDir(t *testing.T) {
	root := t.TempDir()
	mod := filepath.Join(root, "main")
	deep := filepath.Join(mod, "a", "b")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module x\n"), 0o644))

	_, err := DefaultDataDir(deep)
	assert.ErrorIs(t, err, os.ErrNotExist, "no shared/bench yet")

	data := filepath.Join(root, "shared", "bench")
	require.NoError(t, os.MkdirAll(data, 0o755))
	got, err := DefaultDataDir(deep)
	require.NoError(t, err)
	assert.Equal(t, data, got)

	_, err = DataFiles(data)
	assert.ErrorIs(t, err, ErrNoCases)
	_, err = DataFiles(filepath.Join(root, "nowhere"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a missing directory is said as such, not as one without cases")
	_, err = DataFiles(filepath.Join(mod, "go.mod"))
	assert.ErrorContains(t, err, "not a directory")
	writeGzip(t, filepath.Join(data, "b.jsonl.gz"), nil)
	writeGzip(t, filepath.Join(data, "a.jsonl.gz"), nil)
	files, err := DataFiles(data)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(data, "a.jsonl.gz"), filepath.Join(data, "b.jsonl.gz")}, files)
}

func TestSelect(t *testing.T) {
	var cs []Case
	for i := 0; i < 10; i++ {
		cs = append(cs, Case{ID: fmt.Sprintf("a/%d", i), File: "a"})
	}
	for i := 0; i < 3; i++ {
		cs = append(cs, Case{ID: fmt.Sprintf("b/%d", i), File: "b"})
	}
	ids := func(cs []Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	tests := []struct {
		name   string
		filter string
		limit  int
		want   []string
	}{
		{"all", "", 0, ids(cs)},
		{"limit spreads per file", "", 4, []string{"a/0", "a/2", "a/5", "a/7", "b/0", "b/1", "b/2"}},
		{"filter", `^b/|a/1$`, 0, []string{"a/1", "b/0", "b/1", "b/2"}},
		{"filter then limit", `^a/[5-9]`, 2, []string{"a/5", "a/7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var re *regexp.Regexp
			if tt.filter != "" {
				re = regexp.MustCompile(tt.filter)
			}
			assert.Equal(t, tt.want, ids(Select(cs, re, tt.limit)))
		})
	}
}
