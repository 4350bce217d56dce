package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/train"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// runTrain is `pruner train`: train the line-features model on labelled cases, cross-validate
// it against baseline scorers, and write model.onnx, model.json and MODEL_CARD.md.
func runTrain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(newFlagOutput(stdout, stderr))
	def := train.DefaultConfig()
	var (
		cfg       = def
		data      []string
		dataDir   = fs.String("data-dir", "", "directory whose *.jsonl.gz are the training cases (default: shared/bench beside the module root that holds the working directory, or under a directory above it) (env MCP_PRUNER_BENCH_DATA)")
		out       = fs.String("out", "models/linerank", "model directory to write")
		folds     = fs.Int("folds", 5, "cross-validation folds grouped by repository/page (0: no cross-validation)")
		baselines = fs.String("baselines", "heuristic,structural", "comma-separated scorers compared with the model in cross-validation")
		encoding  = fs.String("encoding", tokenizer.CL100K, "tiktoken encoding for the cross-validation token budgets")
		seed      = fs.Uint64("seed", def.Seed, "random seed (initialisation, shuffling, negative sampling)")
	)
	fs.Func("data", "a JSONL or JSONL.gz case file (repeatable; default: every *.jsonl.gz of --data-dir)", func(s string) error {
		data = append(data, s)
		return nil
	})
	fs.IntVar(&cfg.Hidden, "hidden", def.Hidden, "hidden units of each per-kind expert (>= 1)")
	fs.IntVar(&cfg.Trees, "trees", def.Trees, "boosted oblivious trees fitted on top of each --tree-kinds expert (0: none)")
	fs.IntVar(&cfg.Depth, "depth", def.Depth, "depth of each boosted tree")
	fs.Float64Var(&cfg.Shrink, "shrink", def.Shrink, "learning rate of the boosted trees")
	fs.Float64Var(&cfg.Lambda, "lambda", def.Lambda, "L2 regularisation of the trees' leaf values")
	fs.Float64Var(&cfg.MinLeafHess, "min-leaf-hess", def.MinLeafHess, "least Hessian weight on each side of a tree split")
	fs.IntVar(&cfg.Epochs, "epochs", def.Epochs, "passes over the training cases")
	fs.IntVar(&cfg.Workers, "parallel", def.Workers, "cases whose features are extracted, or that are benched, at once (as pruner bench --parallel; training itself is single-threaded)")
	fs.IntVar(&cfg.Workers, "workers", def.Workers, "the same as --parallel (its older name here)")
	kindsFlag(fs, "structural-kinds", "expert starts from the structural scorer's score instead of the heuristic's", &cfg.StructuralKinds)
	kindsFlag(fs, "linear-kinds", "expert only rescales its base score's logit (skip weight and bias, no MLP)", &cfg.LinearKinds)
	kindsFlag(fs, "tree-kinds", "expert gets --trees boosted trees, fitted on its own cases", &cfg.TreeKinds)
	kindsFlag(fs, "frozen-kinds", "expert stays its base scorer", &cfg.FrozenKinds)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: pruner train [flags]

Trains the line-relevance model of the onnx scorer family on labelled cases (the schema of
../shared/bench), reports grouped K-fold cross-validated recall next to the baselines, and
writes <out>/model.onnx, <out>/model.json and <out>/MODEL_CARD.md. Same data and flags give
the same model bytes.

Examples:
  pruner train --out models/linerank          # what make train runs
  pruner train --folds 0 --out /tmp/linerank  # no cross-validation, faster

Flags:
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg.Seed = *seed
	if err := checkTrainNumbers(cfg, *folds); err != nil {
		return err
	}
	if len(data) == 0 {
		dir := *dataDir
		if v, ok := lookupEnv("MCP_PRUNER_BENCH_DATA"); ok && dir == "" {
			dir = v
		}
		if dir == "" {
			var err error
			if dir, err = benchmarks.DefaultDataDir(""); err != nil {
				return usagef("no --data given and no default data (%v); pass --data FILE or --data-dir DIR", err)
			}
		}
		files, err := benchmarks.DataFiles(dir)
		if err != nil {
			return err
		}
		data = files
	}
	cases, err := benchmarks.LoadCases(data...)
	if err != nil {
		return err
	}
	tok, err := tokenizer.Load(*encoding)
	if err != nil {
		return usagef("--encoding: %v", err)
	}
	var ec engineConfig
	reg, err := newRegistry(&ec)
	if err != nil {
		return err
	}
	defer reg.Close()
	// Cross-validation resolves the baselines only after the features and the first fold's
	// model: a misspelt one is said now instead.
	if *folds > 1 {
		for _, b := range benchList(*baselines) {
			if _, err := reg.Get(ctx, b); err != nil {
				return usagef("--baselines: %v", err)
			}
		}
	}
	res, err := train.Run(ctx, cases, train.Options{
		Config: cfg, Folds: *folds, Tokens: tok, Baselines: benchList(*baselines), Registry: reg, Log: stderr,
	})
	if err != nil {
		return err
	}
	command := "pruner train " + strings.Join(canonicalArgs(args), " ")
	if err := res.Write(*out, cfg, strings.TrimSpace(command)); err != nil {
		return err
	}
	for _, r := range res.CV {
		fmt.Fprintf(stdout, "%-8s %3.0f%%  %-12s cases=%-4d recall=%.3f hit=%.3f reduction=%.3f\n", r.File, 100*r.Budget, r.Scorer, r.Cases, r.Recall, r.HitRate, r.Reduction)
	}
	fmt.Fprintf(stdout, "wrote %s (threshold %.4f)\n", filepath.Join(*out, train.ONNXFile), res.Threshold)
	return nil
}

// canonicalArgs writes the recorded command's absolute paths relative to the working
// directory when they lie beside it (../shared/bench from a checkout), so the shipped card
// does not depend on where the checkout lives, and leaves other paths whole, so the card's
// command still runs.
func canonicalArgs(args []string) []string {
	wd, _ := os.Getwd()
	var out []string
	for _, a := range args {
		if filepath.IsAbs(a) && wd != "" {
			if rel, err := filepath.Rel(wd, a); err == nil && !strings.HasPrefix(rel, filepath.Join("..", "..")) {
				a = rel
			}
		}
		out = append(out, a)
	}
	return out
}

// kindsFlag defines a flag holding a comma-separated list of source kinds in *dst ("none"
// for an empty list); its help shows *dst as the default.
func kindsFlag(fs *flag.FlagSet, name, whose string, dst *[]string) {
	def := strings.Join(*dst, ",")
	if def == "" {
		def = "none"
	}
	fs.Func(name, "comma-separated source kinds whose "+whose+" (default "+def+"; 'none' for none)", func(s string) error {
		*dst = nil
		if s == "none" {
			return nil
		}
		for _, k := range benchList(s) {
			if !slices.Contains(linefeat.Kinds, k) {
				return fmt.Errorf("unknown source kind %q: the kinds are %s, or 'none'", k, strings.Join(linefeat.Kinds, ", "))
			}
			*dst = append(*dst, k)
		}
		return nil
	})
}

// checkTrainNumbers refuses the first numeric flag out of its range, naming it with its value:
// a message listing every rule at once left the user to find which value broke one.
func checkTrainNumbers(cfg train.Config, folds int) error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for _, c := range []struct {
		bad  bool
		flag string
		want string
		got  any
	}{
		{cfg.Epochs < 1, "epochs", ">= 1", cfg.Epochs},
		{cfg.Hidden < 1, "hidden", ">= 1", cfg.Hidden},
		{folds < 0 || folds == 1, "folds", "0 (no cross-validation) or >= 2", folds},
		{cfg.Trees < 0, "trees", ">= 0", cfg.Trees},
		{cfg.Depth < 1 || cfg.Depth > train.MaxTreeDepth, "depth", fmt.Sprintf("1 to %d", train.MaxTreeDepth), cfg.Depth},
		{!finite(cfg.Shrink) || cfg.Shrink <= 0, "shrink", "a finite number > 0", cfg.Shrink},
		{!finite(cfg.Lambda) || cfg.Lambda < 0, "lambda", "a finite number >= 0", cfg.Lambda},
		{!finite(cfg.MinLeafHess) || cfg.MinLeafHess < 0, "min-leaf-hess", "a finite number >= 0", cfg.MinLeafHess},
		{cfg.Workers < 1, "parallel", ">= 1", cfg.Workers},
	} {
		if c.bad {
			return usagef("--%s must be %s, got %v", c.flag, c.want, c.got)
		}
	}
	return nil
}
