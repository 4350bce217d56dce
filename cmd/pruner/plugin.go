package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
)

// pluginFamily is the scorer family prefix of out-of-process scorers: "plugin:NAME" for an
// entry of the plugins file, "plugin:builtin/<scorer>" for a scorer of this binary served by
// a child process of it.
const pluginFamily = "plugin"

const builtinPrefix = "builtin/"

// pluginEntry is one plugin in the plugins file (--plugins, MCP_PRUNER_PLUGINS):
//
//	{"plugins": {"rules": {"command": "/opt/pruner/rulefile", "args": ["-rules", "/etc/pruner/rules.txt"],
//	  "sha256": "<hex>", "timeout": "2s", "start": "lazy", "env": ["K=V"]}}}
type pluginEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	Env     []string `json:"env,omitempty"`
	SHA256  string   `json:"sha256"`
	// Timeout caps each call (Go duration, e.g. "1.5s"); empty means the request's deadline only.
	Timeout string `json:"timeout,omitempty"`
	// Start is "lazy" (first use, the default) or "eager" (when the scorer is set up).
	Start string `json:"start,omitempty"`
}

type pluginsFile struct {
	Plugins map[string]pluginEntry `json:"plugins"`
}

// loadPlugins reads and checks the plugins file; relative commands are resolved against
// the file's directory. An empty path means no file.
func loadPlugins(path string) (map[string]pluginEntry, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--plugins: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f pluginsFile
	if err := dec.Decode(&f); err != nil {
		return nil, usagef("--plugins %s: %v", path, err)
	}
	for name, e := range f.Plugins {
		if name == "" || strings.Contains(name, ":") || strings.HasPrefix(name, builtinPrefix) {
			return nil, usagef("--plugins %s: plugin name %q: must be non-empty, without ':' and not start with %q", path, name, builtinPrefix)
		}
		if e.Command != "" && !filepath.IsAbs(e.Command) && strings.ContainsRune(e.Command, filepath.Separator) {
			e.Command = filepath.Join(filepath.Dir(path), e.Command)
		}
		if _, err := e.config(name, io.Discard); err != nil {
			return nil, usagef("--plugins %s: %v", path, err)
		}
		f.Plugins[name] = e
	}
	return f.Plugins, nil
}

// config turns an entry into a plugins.Config, checking what New does not.
func (e pluginEntry) config(name string, logs io.Writer) (plugins.Config, error) {
	cfg := plugins.Config{
		Name: name, Command: e.Command, Args: e.Args, Env: e.Env, SHA256: strings.ToLower(e.SHA256),
		Start: plugins.StartMode(e.Start), Logs: logs,
	}
	if e.Timeout != "" {
		d, err := time.ParseDuration(e.Timeout)
		if err != nil || d <= 0 {
			return cfg, fmt.Errorf("plugin %q: timeout %q: want a positive duration such as \"2s\"", name, e.Timeout)
		}
		cfg.Timeout = d
	}
	if e.Command == "" {
		return cfg, fmt.Errorf("plugin %q: command is required", name)
	}
	if len(cfg.SHA256) != 64 {
		return cfg, fmt.Errorf("plugin %q: sha256 must be the 64 hex digits of the binary (pruner plugin checksum %s)", name, e.Command)
	}
	if cfg.Start != "" && cfg.Start != plugins.StartLazy && cfg.Start != plugins.StartEager {
		return cfg, fmt.Errorf("plugin %q: start must be \"lazy\" or \"eager\", got %q", name, e.Start)
	}
	return cfg, nil
}

// registerPlugins adds the plugin family to reg: entries of the plugins file and the
// built-in scorers of this binary run out of process.
func registerPlugins(reg *engine.Registry, c *engineConfig) error {
	entries, err := loadPlugins(c.pluginsFile)
	if err != nil {
		return err
	}
	c.eager = nil
	for name, e := range entries {
		if plugins.StartMode(e.Start) == plugins.StartEager {
			c.eager = append(c.eager, name)
		}
	}
	slices.Sort(c.eager)
	self := sync.OnceValues(selfBinary)
	reg.RegisterFamily(pluginFamily, "out-of-process scorer: NAME from the plugins file, or builtin/<scorer> served by this binary",
		func(ctx context.Context, arg string) (engine.Scorer, error) {
			if name, ok := strings.CutPrefix(arg, builtinPrefix); ok {
				if err := servable(reg, name); err != nil {
					return nil, err
				}
				// plugin:* is open to clients (the operator's plugins and built-ins), but a
				// built-in family spec inside it names a directory to load or a URL to call:
				// it is built only if the spec is allowed itself, or the operator named the
				// plugin form exactly (--scorer, --allow-scorers).
				if strings.Contains(name, ":") && !reg.Allows(name) && !reg.AllowedByName(pluginFamily+":"+arg) {
					return nil, fmt.Errorf("scorer %q: %w: a client may name %q only when the operator allows it (--allow-scorers)",
						pluginFamily+":"+arg, engine.ErrScorerNotAllowed, name)
				}
				bin, err := self()
				if err != nil {
					return nil, err
				}
				return plugins.New(ctx, plugins.Config{
					Name: arg, Command: bin.path, Args: []string{"plugin", "serve", name}, SHA256: bin.sha256, Logs: c.pluginLog(),
					Env: c.childEnv(),
				})
			}
			e, ok := entries[arg]
			if !ok {
				return nil, fmt.Errorf("no plugin %q in the plugins file (--plugins, MCP_PRUNER_PLUGINS): %w", arg, engine.ErrUnknownScorer)
			}
			cfg, err := e.config(arg, c.pluginLog())
			if err != nil {
				return nil, err
			}
			return plugins.New(ctx, cfg)
		})
	return nil
}

// selfBinary is this executable and its SHA-256, pinned for the builtin plugins the first
// time one is set up: a binary replaced on disk afterwards is refused, not run.
func selfBinary() (binary, error) {
	exe, err := os.Executable()
	if err != nil {
		return binary{}, fmt.Errorf("builtin plugin: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	sum, err := plugins.FileSHA256(exe)
	if err != nil {
		return binary{}, fmt.Errorf("builtin plugin: %w", err)
	}
	return binary{path: exe, sha256: sum}, nil
}

type binary struct{ path, sha256 string }

// servable reports whether name is something 'pruner plugin serve' can serve: a registered
// scorer or a family spec, but not a plugin itself.
func servable(reg *engine.Registry, name string) error {
	prefix, _, isSpec := strings.Cut(name, ":")
	if prefix == pluginFamily {
		return fmt.Errorf("%q is already a plugin: %w", name, engine.ErrUnknownScorer)
	}
	for _, info := range reg.List() {
		if info.Where == "family" && isSpec && info.Name == prefix+":<arg>" {
			return nil
		}
		if info.Where != "family" && !isSpec && info.Name == name {
			return nil
		}
	}
	return fmt.Errorf("builtin scorer %q: %w", name, engine.ErrUnknownScorer)
}

// runPlugin is 'pruner plugin serve NAME' (run by a host, not by hand) and
// 'pruner plugin checksum FILE'.
func runPlugin(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plugin", flag.ContinueOnError)
	fs.SetOutput(newFlagOutput(stdout, stderr))
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage:
  pruner plugin serve NAME     serve scorer NAME of this binary as a go-plugin process; the
                               server starts it for --scorer plugin:builtin/NAME
  pruner plugin checksum FILE  print the SHA-256 to pin as "sha256" in the plugins file

'pruner scorers' lists the names.

Examples:
  pruner plugin checksum /opt/pruner/errfirst   # then pin it in plugins.json
  pruner serve --scorer plugin:builtin/structural  # structural in a child process
`)
	}
	if err := parseHeld(fs, args); err != nil {
		return parseError(fs, err)
	}
	switch sub := fs.Arg(0); {
	case sub == "serve" && fs.NArg() == 2:
		return servePlugin(ctx, fs.Arg(1))
	case sub == "checksum" && fs.NArg() == 2:
		sum, err := plugins.FileSHA256(fs.Arg(1))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, sum)
		return err
	default:
		fs.Usage()
		return usagef("want 'serve NAME' or 'checksum FILE'")
	}
}

// childEnv passes the settings a built-in scorer reads to the child process that serves it
// (pruner plugin serve reads only the environment): --onnxruntime-lib and --onnx-threads given
// as flags would otherwise not reach plugin:builtin/onnx:DIR, whose every call then failed.
func (c *engineConfig) childEnv() []string {
	var env []string
	if c.onnxLib != "" {
		env = append(env, onnx.LibraryEnv+"="+c.onnxLib)
	}
	if c.onnxThreads > 0 {
		env = append(env, fmt.Sprintf("%s=%d", onnxThreadsEnv, c.onnxThreads))
	}
	return env
}

// servePlugin serves one scorer of this binary's registry until the host closes it.
func servePlugin(ctx context.Context, name string) error {
	var cfg engineConfig
	if err := cfg.applyEnv(env{}); err != nil {
		return err
	}
	cfg.scorer = "" // the host's default is not ours to check
	reg, err := newRegistry(&cfg)
	if err != nil {
		return err
	}
	defer reg.Close()
	if err := servable(reg, name); err != nil {
		return usagef("%v", err)
	}
	s, err := reg.Get(ctx, name)
	if err != nil {
		return err
	}
	plugins.Serve(s)
	return nil
}

// pluginListing describes the plugins file's entries for 'pruner scorers'.
func pluginListing(entries map[string]pluginEntry) []engine.ScorerInfo {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]engine.ScorerInfo, 0, len(names))
	for _, n := range names {
		e := entries[n]
		start := e.Start
		if start == "" {
			start = string(plugins.StartLazy)
		}
		out = append(out, engine.ScorerInfo{
			Name: pluginFamily + ":" + n, Where: "plugin",
			Description: fmt.Sprintf("%s (start %s, sha256 %s…)", strings.Join(append([]string{e.Command}, e.Args...), " "), start, e.SHA256[:12]),
		})
	}
	return out
}
