package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/swepruner"
)

// runScorers lists what --scorer accepts and where each scorer runs: the registry's
// in-process scorers and families, each built-in again as plugin:builtin/<name>, and the
// plugins file's entries.
func runScorers(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scorers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg engineConfig
	cfg.register(fs, registryFlags)
	asJSON := fs.Bool("json", false, "print a JSON array of {name, description, where, threshold}")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: pruner scorers [flags]

Lists the scorers that --scorer (and prune_text's "scorer" argument) accept: the built-in ones,
each built-in again as an out-of-process plugin (plugin:builtin/NAME), the plugins of
--plugins, and the families that take an argument: onnx:DIR (a model directory such as
models/linerank, run by onnxruntime) and swepruner:URL (a SWE-Pruner model server). For each:
where it runs, its default keep threshold and what it does.

Examples:
  pruner scorers
  pruner scorers --plugins plugins.json --json

Flags:
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, &cfg); err != nil {
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
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tWHERE\tTHRESHOLD\tDESCRIPTION")
	for _, s := range list {
		th := "-"
		if s.Threshold > 0 {
			th = fmt.Sprintf("%.2f", s.Threshold)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Where, th, s.Description)
	}
	return tw.Flush()
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
	url, ok := os.LookupEnv("MCP_PRUNER_SWEPRUNER_URL")
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
