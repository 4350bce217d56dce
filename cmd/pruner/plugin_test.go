package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
)

// builtBinary builds this command into the test's temporary directory, with its checksum.
func builtBinary(t *testing.T) (string, string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pruner")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	sum, err := plugins.FileSHA256(bin)
	require.NoError(t, err)
	return bin, sum
}

// builtinServer returns a plugin client for 'pruner plugin serve name'.
func builtinServer(t *testing.T, bin, sum, name string) engine.Scorer {
	t.Helper()
	c, err := plugins.New(t.Context(), plugins.Config{Name: "builtin/" + name, Command: bin, Args: []string{"plugin", "serve", name}, SHA256: sum})
	require.NoError(t, err)
	return c
}

// inProcess lists the in-process scorers this binary registers by default.
func inProcess(t *testing.T) (*engine.Registry, []string) {
	t.Helper()
	reg, err := newRegistry(&engineConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	var names []string
	for _, info := range reg.List() {
		if info.Where == "in-process" {
			names = append(names, info.Name)
		}
	}
	require.NotEmpty(t, names)
	return reg, names
}

// Every built-in scorer passes the contract in-process and through the plugin shim, and
// prunes the bench cases identically both ways.
func TestBuiltinsInProcessAndAsPlugins(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and starts plugin processes")
	}
	reg, names := inProcess(t)
	bin, sum := builtBinary(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			inproc, err := reg.Get(context.Background(), name)
			require.NoError(t, err)
			t.Run("contract in-process", func(t *testing.T) {
				scorertest.Run(t, func() engine.Scorer { return inproc })
			})
			t.Run("contract as plugin", func(t *testing.T) {
				scorertest.Run(t, func() engine.Scorer { return builtinServer(t, bin, sum, name) })
			})
			t.Run("same prunes", func(t *testing.T) {
				p := builtinServer(t, bin, sum, name)
				t.Cleanup(func() { p.(*plugins.Client).Close() })
				scorertest.SamePrunes(t, inproc, p, scorertest.BenchRequests(t, 3))
			})
		})
	}
}

// TestBuiltinChildGetsTheEngineFlags: plugin:builtin/onnx:DIR runs 'pruner plugin serve' in a
// child that reads only its environment, so the parent's --onnxruntime-lib reaches it there
// (childEnv). The child runs where it cannot find the library by itself.
func TestBuiltinChildGetsTheEngineFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and starts plugin processes")
	}
	wd, err := os.Getwd()
	require.NoError(t, err)
	lib := onnx.FindLibrary(wd)
	if lib == "" {
		t.Skip("onnxruntime library absent: run scripts/install-onnxruntime.sh")
	}
	model, err := filepath.Abs("../../models/linerank")
	require.NoError(t, err)
	bin, sum := builtBinary(t)
	t.Chdir(t.TempDir())
	t.Setenv(onnx.LibraryEnv, "")
	start := func(env []string) error {
		c, err := plugins.New(t.Context(), plugins.Config{Name: "builtin/onnx", Command: bin,
			Args: []string{"plugin", "serve", "onnx:" + model}, SHA256: sum, Env: env})
		require.NoError(t, err)
		defer c.Close()
		_, err = c.Score(t.Context(), &engine.ScoreRequest{Lines: []string{"a", "b"}, Goal: "a", SourceType: engine.SourceCode})
		return err
	}
	require.Error(t, start(nil), "without the flag's value the child finds no library")
	cfg := &engineConfig{onnxLib: lib, onnxThreads: 1}
	assert.Equal(t, []string{onnx.LibraryEnv + "=" + lib, onnxThreadsEnv + "=1"}, cfg.childEnv())
	assert.NoError(t, start(cfg.childEnv()))
}

func TestPluginsFile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and starts a plugin process")
	}
	bin, sum := builtBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "plugins.json")
	writeJSON(t, file, map[string]any{"plugins": map[string]any{
		"mine": map[string]any{"command": bin, "args": []string{"plugin", "serve", "heuristic"}, "sha256": strings.ToUpper(sum), "timeout": "5s", "start": "eager"},
	}})
	reg, err := newRegistry(&engineConfig{pluginsFile: file})
	require.NoError(t, err)
	defer reg.Close()

	s, err := reg.Get(context.Background(), "plugin:mine")
	require.NoError(t, err)
	resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: []string{"func parse()", "x := 1"}, Goal: "parse", SourceType: engine.SourceCode})
	require.NoError(t, err)
	assert.Len(t, resp.Scores, 2)
	assert.Equal(t, "plugin", s.(engine.Describer).Describe().Where)

	_, err = reg.Get(context.Background(), "plugin:absent")
	assert.ErrorIs(t, err, engine.ErrUnknownScorer)
	_, err = reg.Get(context.Background(), "plugin:builtin/nosuch")
	assert.ErrorIs(t, err, engine.ErrUnknownScorer)

	var out bytes.Buffer
	require.NoError(t, runScorers(context.Background(), []string{"--plugins", file}, nil, &out, &out))
	assert.Contains(t, out.String(), "plugin:mine")
	assert.Contains(t, out.String(), "plugin:builtin/heuristic")

	var usage *usageError
	assert.ErrorAs(t, runScorers(context.Background(), []string{"--plugins", file, "stray"}, nil, &out, &out), &usage, "a positional argument is refused")
}

// TestEagerPluginsStartWithTheServer: a plugin the file starts eagerly is started when a
// server starts, named or not by --scorer, so one that cannot start stops start-up; the
// same entry started lazily lets the server start and fails open at its first request.
// 'pruner scorers' checks a spec before a server starts with it, so it starts what a server
// would, and the --scorer plugin even when lazy: both passed with exit 0 while the server
// refused to start or failed every request.
func TestEagerPluginsStartWithTheServer(t *testing.T) {
	sum, err := plugins.FileSHA256("/bin/true") // runs, but is no plugin
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "plugins.json")
	for _, start := range []string{"eager", "lazy"} {
		writeJSON(t, file, map[string]any{"plugins": map[string]any{
			"broken": map[string]any{"command": "/bin/true", "sha256": sum, "start": start},
		}})
		for _, cmd := range []string{"stdio", "scorers"} {
			code, _, stderr := runCLI(t, "", cmd, "--plugins", file)
			if start == "eager" {
				assert.Equal(t, 2, code, cmd)
				assert.Contains(t, stderr, `plugin "broken" starts eagerly and did not start`, cmd)
			} else {
				assert.Equal(t, 0, code, "%s: %s", cmd, stderr)
			}
		}
		code, _, stderr := runCLI(t, "", "scorers", "--plugins", file, "--scorer", "plugin:broken")
		assert.Equal(t, 2, code, start)
		assert.Contains(t, stderr, "did not start", start)
	}
}

func TestPluginsFileErrors(t *testing.T) {
	good := map[string]any{"command": "/bin/true", "sha256": strings.Repeat("a", 64)}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range good {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	tests := []struct {
		name    string
		content any
	}{
		{name: "unknown field", content: map[string]any{"plugins": map[string]any{"x": with("comand", "/bin/true")}}},
		{name: "no command", content: map[string]any{"plugins": map[string]any{"x": with("command", "")}}},
		{name: "short checksum", content: map[string]any{"plugins": map[string]any{"x": with("sha256", "abc")}}},
		{name: "bad timeout", content: map[string]any{"plugins": map[string]any{"x": with("timeout", "soon")}}},
		{name: "bad start", content: map[string]any{"plugins": map[string]any{"x": with("start", "later")}}},
		{name: "reserved name", content: map[string]any{"plugins": map[string]any{"builtin/x": good}}},
		{name: "name with colon", content: map[string]any{"plugins": map[string]any{"a:b": good}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "plugins.json")
			writeJSON(t, file, tt.content)
			_, err := newRegistry(&engineConfig{pluginsFile: file})
			assert.Error(t, err)
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := newRegistry(&engineConfig{pluginsFile: filepath.Join(t.TempDir(), "absent.json")})
		assert.Error(t, err)
	})
}

func TestPluginCommandUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{name: "nothing", args: nil},
		{name: "serve without name", args: []string{"serve"}},
		{name: "unknown", args: []string{"start", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runPlugin(context.Background(), tt.args, nil, &out, &out)
			assert.ErrorAs(t, err, new(*usageError))
		})
	}
	t.Run("serving a plugin is refused", func(t *testing.T) {
		var out bytes.Buffer
		err := runPlugin(context.Background(), []string{"serve", "plugin:builtin/heuristic"}, nil, &out, &out)
		assert.ErrorAs(t, err, new(*usageError))
	})
	t.Run("checksum", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "f")
		require.NoError(t, os.WriteFile(file, []byte("abc"), 0o600))
		var out bytes.Buffer
		require.NoError(t, runPlugin(context.Background(), []string{"checksum", file}, nil, &out, &out))
		assert.Equal(t, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n", out.String())
	})
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
}

// TestBuiltinPluginsObeyTheAllowList: a server's clients may name plugin:* (the operator's
// plugins and the built-ins), but a built-in family spec in it (plugin:builtin/swepruner:URL,
// plugin:builtin/onnx:DIR) names a URL to call or a directory to load: it is built only when
// the inner spec is allowed, or the operator named the plugin form itself. It used to be
// built for any client, which sent the text to any URL.
func TestBuiltinPluginsObeyTheAllowList(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    engineConfig
		spec   string
		denied bool
	}{
		{name: "a URL no one allowed", spec: "plugin:builtin/swepruner:http://127.0.0.1:1/x", denied: true},
		{name: "a directory no one allowed", spec: "plugin:builtin/onnx:/etc", denied: true},
		{name: "a registered built-in", spec: "plugin:builtin/heuristic"},
		{name: "the inner spec allowed", cfg: engineConfig{allowScorers: "swepruner:http://127.0.0.1:1/x"}, spec: "plugin:builtin/swepruner:http://127.0.0.1:1/x"},
		{name: "its family opened", cfg: engineConfig{allowScorers: "swepruner:*"}, spec: "plugin:builtin/swepruner:http://127.0.0.1:1/y"},
		{name: "the plugin form named by the operator", cfg: engineConfig{scorer: "plugin:builtin/swepruner:http://127.0.0.1:1/z"}, spec: "plugin:builtin/swepruner:http://127.0.0.1:1/z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			reg, err := newRegistry(&c)
			require.NoError(t, err)
			t.Cleanup(func() { reg.Close() })
			require.NoError(t, reg.Allow(allowedSpecs(&c)...))
			_, err = reg.Get(context.Background(), tc.spec)
			if tc.denied {
				assert.ErrorIs(t, err, engine.ErrScorerNotAllowed)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}
