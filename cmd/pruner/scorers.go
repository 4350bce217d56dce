package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/swepruner"
)

// runScorers lists what --scorer accepts and where each scorer runs: the registry's
// in-process scorers and families, each built-in again as plugin:builtin/<name>, and the
// plugins file's entries.
func runScorers(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scorers", flag.ContinueOnError)
	fs.SetOutput(newFlagOutput(stdout, stderr))
	var cfg engineConfig
	cfg.register(fs, registryFlags)
	asJSON := fs.Bool("json", false, "print a JSON array of {name, description, where, threshold, default_for}")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: pruner scorers [flags]

Lists the scorers that --scorer (and prune_text's "scorer" argument) accept: the built-in ones,
each built-in again as an out-of-process plugin (plugin:builtin/NAME), the plugins of
--plugins, and the families that take an argument: onnx:DIR (a model directory such as
models/linerank, run by onnxruntime) and swepruner:URL (a SWE-Pruner model server). For each:
where it runs, its default keep threshold and what it does; then which scorer a request that
names none gets for each source type, with --scorer and MCP_PRUNER_SCORER applied (so this
also checks a --scorer before a server starts with it).

Examples:
  pruner scorers
  pruner scorers --plugins plugins.json --json
  pruner scorers --scorer onnx:models/linerank   # is the model loadable, and where does it apply?

Flags:
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, &cfg); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	reg, err := newRegistry(&cfg)
	if err != nil {
		return err
	}
	defer reg.Close()
	entries, err := loadPlugins(cfg.pluginsFile)
	if err != nil {
		return err
	}
	list := scorerListing(reg.List(), entries)
	if len(list) == 0 {
		return errNoScorers
	}
	// What a server would start with it is started here too: the plugins file's eager
	// entries, and the --scorer spec (onnx:DIR, plugin:NAME), a plugin one started even if
	// lazy, since whether it starts at all is what this command is asked (not a built-in
	// one: that is this binary, running).
	for _, name := range cfg.eager {
		if _, err := reg.Get(ctx, pluginFamily+":"+name); err != nil {
			return usagef("--plugins (MCP_PRUNER_PLUGINS): plugin %q starts eagerly and did not start: %v", name, err)
		}
	}
	if cfg.scorer != "" {
		sc, err := reg.Get(ctx, cfg.scorer)
		if err != nil {
			return usagef("--scorer (MCP_PRUNER_SCORER): %v", err)
		}
		if p, ok := sc.(interface{ Ping(context.Context) error }); ok && !strings.HasPrefix(cfg.scorer, pluginFamily+":"+builtinPrefix) {
			if err := p.Ping(ctx); err != nil {
				return usagef("--scorer (MCP_PRUNER_SCORER): %v", err)
			}
		}
		list = withSpec(list, cfg.scorer, sc)
	}
	listed := markDefaults(list, reg)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(listed)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tWHERE\tTHRESHOLD\tDESCRIPTION")
	for _, s := range listed {
		th := "-"
		if s.Threshold > 0 {
			th = fmt.Sprintf("%.2f", s.Threshold)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Where, th, s.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	from := "built in"
	if cfg.scorer != "" {
		from = "--scorer or MCP_PRUNER_SCORER"
	}
	var parts []string
	for _, t := range sourceTypes {
		parts = append(parts, fmt.Sprintf("%s → %s", t, reg.DefaultFor(t)))
	}
	_, err = fmt.Fprintf(stdout, "\nRequests that name no scorer get: %s (%s).\n", strings.Join(parts, ", "), from)
	return err
}

// sourceTypes are the contract's source types in the order listings give them.
var sourceTypes = []engine.SourceType{engine.SourceCode, engine.SourceLogs, engine.SourceDocs}

// listedScorer is a listing row with the source types it is the default scorer for.
type listedScorer struct {
	engine.ScorerInfo
	DefaultFor []engine.SourceType `json:"default_for,omitempty"`
}

// markDefaults attaches to each row the source types whose requests get it when they name
// no scorer.
func markDefaults(list []engine.ScorerInfo, reg *engine.Registry) []listedScorer {
	out := make([]listedScorer, len(list))
	for i, s := range list {
		out[i].ScorerInfo = s
		for _, t := range sourceTypes {
			if reg.DefaultFor(t) == s.Name {
				out[i].DefaultFor = append(out[i].DefaultFor, t)
			}
		}
	}
	return out
}

// withSpec adds a row for spec, a family's scorer built from its argument (onnx:DIR), when
// the listing has no row of that name: a default must appear among the rows.
func withSpec(list []engine.ScorerInfo, spec string, sc engine.Scorer) []engine.ScorerInfo {
	for _, s := range list {
		if s.Name == spec {
			return list
		}
	}
	info := engine.ScorerInfo{Name: spec, Where: "in-process"}
	if d, ok := sc.(engine.Describer); ok {
		info = d.Describe()
		info.Name = spec
	}
	return append(list, info)
}

// scorerListing merges the registry's listing with the out-of-process ways to run it.
func scorerListing(reg []engine.ScorerInfo, entries map[string]pluginEntry) []engine.ScorerInfo {
	var out, builtins []engine.ScorerInfo
	for _, s := range reg {
		out = append(out, s)
		if s.Where == "in-process" {
			builtins = append(builtins, engine.ScorerInfo{
				Name: pluginFamily + ":" + builtinPrefix + s.Name, Where: "plugin",
				Description: "'" + s.Name + "' in a child process of this binary", Threshold: s.Threshold,
			})
		}
	}
	out = append(out, builtins...)
	return append(out, pluginListing(entries)...)
}

var errNoScorers = errors.New("no scorers registered")

// registerSWEPruner adds the swepruner family ("swepruner:http://gpu:8000") and, when
// MCP_PRUNER_SWEPRUNER_URL is set, the scorer "swepruner" at that URL.
func registerSWEPruner(reg *engine.Registry) error {
	reg.RegisterFamily("swepruner", "SWE-Pruner model server (POST /prune) at the given URL; fails open when it is down",
		func(_ context.Context, url string) (engine.Scorer, error) {
			return swepruner.New(swepruner.Config{URL: url})
		})
	url, ok := lookupEnv("MCP_PRUNER_SWEPRUNER_URL")
	if !ok || url == "" {
		return nil
	}
	s, err := swepruner.New(swepruner.Config{URL: url})
	if err != nil {
		return usagef("MCP_PRUNER_SWEPRUNER_URL: %v", err)
	}
	reg.Register("swepruner", s)
	return nil
}
