package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// engineConfig is what every command that prunes needs: limits, store, tokenizer and the
// default scorer. Flags win over the MCP_PRUNER_* environment, which wins over defaults.
type engineConfig struct {
	maxInputChars int
	ttl           time.Duration
	storeBytes    int64
	encoding      string
	scorer        string
	pluginsFile   string
	onnxLib       string
	onnxThreads   int
	// serving: the command answers clients, so the family specs their requests may name
	// are limited to plugin:*, --scorer's and allowScorers (Registry.Allow).
	serving      bool
	allowScorers string
	// defaultScorer: the command offers --scorer (and reads MCP_PRUNER_SCORER); a benchmark
	// names every scorer it runs, so there the flag would do nothing.
	defaultScorer bool
	// eager lists the plugins file's entries with "start": "eager", sorted (registerPlugins).
	eager []string
	// pluginLogs receives what the plugin host writes of its plugins; nil: stderr as is.
	pluginLogs io.Writer
}

// pluginLog is where plugin clients write: the server's log when it has one.
func (c *engineConfig) pluginLog() io.Writer {
	if c.pluginLogs == nil {
		return os.Stderr
	}
	return c.pluginLogs
}

// engineFlags says which engine flags a command offers. The scorer registry's flags (--plugins,
// --onnxruntime-lib, --onnx-threads, and --scorer but in benchFlags) come with every set.
type engineFlags int

const (
	registryFlags engineFlags = iota // listing scorers: the registry alone
	pruneFlags                       // pruning: plus --max-input-chars and --encoding
	serverFlags                      // serving: plus the recovery store's --ttl and --store-bytes
	benchFlags                       // benchmarking: pruneFlags but --scorer (bench names every scorer it runs)
)

// register adds the engine flags of set to fs with the built-in defaults; --help shows those,
// whatever the environment holds. applyEnv reads the variables after parsing, and a malformed
// one is a usage error, not silently ignored.
// Only the servers keep pruned texts for recovery: a one-shot prune or a benchmark has nothing
// to recover from once it exits, so they get no store flags.
func (c *engineConfig) register(fs *flag.FlagSet, set engineFlags) {
	// Defaults first: a command without a flag still gets the engine's value.
	c.maxInputChars, c.encoding = engine.DefaultMaxInputChars, tokenizer.CL100K
	c.ttl, c.storeBytes = engine.DefaultTTL, engine.DefaultStoreBytes
	if set != registryFlags {
		fs.IntVar(&c.maxInputChars, "max-input-chars", c.maxInputChars, "largest text pruned, in characters; larger input is returned unchanged with warning input_too_large (env MCP_PRUNER_MAX_INPUT_CHARS)")
		fs.StringVar(&c.encoding, "encoding", c.encoding, "tiktoken encoding for token stats: cl100k_base or o200k_base (env MCP_PRUNER_ENCODING)")
	}
	if set == serverFlags {
		c.serving = true
		fs.StringVar(&c.allowScorers, "allow-scorers", "", "comma-separated scorer specs with an argument that a request's \"scorer\" may name besides the registered scorers, plugin:NAME and --scorer: onnx:DIR, swepruner:URL, or FAMILY:* for any argument (a client could then make the server load any directory or call any URL); default none (env MCP_PRUNER_ALLOW_SCORERS)")
		fs.DurationVar(&c.ttl, "ttl", c.ttl, "how long a prune_id can be recovered (env MCP_PRUNER_PRUNE_ID_TTL_S, in seconds)")
		fs.Int64Var(&c.storeBytes, "store-bytes", c.storeBytes, "recovery store cap in bytes: each distinct text counts once, each prune its id and ~160 bytes more; least recently used prunes are evicted beyond it (env MCP_PRUNER_STORE_BYTES)")
	}
	if c.defaultScorer = set != benchFlags; c.defaultScorer {
		fs.StringVar(&c.scorer, "scorer", "", "default scorer for requests that name none (default: structural for code, heuristic otherwise; see 'pruner scorers') (env MCP_PRUNER_SCORER)")
	}
	fs.StringVar(&c.pluginsFile, "plugins", "", "JSON file describing out-of-process scorer plugins (env MCP_PRUNER_PLUGINS)")
	fs.StringVar(&c.onnxLib, "onnxruntime-lib", c.onnxLib, "onnxruntime shared library for onnx: scorers (default: .tools/onnxruntime/libonnxruntime.so from scripts/install-onnxruntime.sh) (env MCP_PRUNER_ONNXRUNTIME_LIB)")
	fs.IntVar(&c.onnxThreads, "onnx-threads", max(c.onnxThreads, 1), "intra-op threads of one onnxruntime run (env MCP_PRUNER_ONNX_THREADS)")
}

// applyEnv reads the MCP_PRUNER_* variables into the settings whose flags e did not see.
func (c *engineConfig) applyEnv(e env) error {
	const positive = "want a positive integer"
	if err := e.int64("MCP_PRUNER_MAX_INPUT_CHARS", "max-input-chars", 1, math.MaxInt32, positive, func(n int64) { c.maxInputChars = int(n) }); err != nil {
		return err
	}
	if err := e.int64("MCP_PRUNER_PRUNE_ID_TTL_S", "ttl", 1, math.MaxInt32, "want an integer number of seconds from 1 to 2147483647", func(n int64) { c.ttl = time.Duration(n) * time.Second }); err != nil {
		return err
	}
	if err := e.int64("MCP_PRUNER_STORE_BYTES", "store-bytes", minStoreBytes, math.MaxInt64, fmt.Sprintf("want an integer >= %d", minStoreBytes), func(n int64) { c.storeBytes = n }); err != nil {
		return err
	}
	e.str("MCP_PRUNER_ENCODING", "encoding", &c.encoding)
	if c.defaultScorer {
		e.str("MCP_PRUNER_SCORER", "scorer", &c.scorer)
	}
	e.str("MCP_PRUNER_ALLOW_SCORERS", "allow-scorers", &c.allowScorers)
	e.str("MCP_PRUNER_PLUGINS", "plugins", &c.pluginsFile)
	e.str(onnx.LibraryEnv, "onnxruntime-lib", &c.onnxLib)
	return e.int64(onnxThreadsEnv, "onnx-threads", 1, math.MaxInt32, positive, func(n int64) { c.onnxThreads = int(n) })
}

// minStoreBytes is the smallest recovery store accepted: a store smaller than one prune's
// bookkeeping (engine.StoreEntryOverhead and its id) keeps nothing, and every prune fails
// open.
const minStoreBytes = 1024

// validate checks values after flag parsing.
func (c *engineConfig) validate() error {
	switch {
	case c.maxInputChars < 1:
		return usagef("--max-input-chars must be >= 1, got %d", c.maxInputChars)
	case c.ttl < time.Second:
		return usagef("--ttl must be at least 1s, got %s", c.ttl)
	case c.storeBytes < minStoreBytes:
		return usagef("--store-bytes must be >= %d (each prune's id and bookkeeping take about 200 bytes), got %d", minStoreBytes, c.storeBytes)
	case c.onnxThreads < 1:
		return usagef("--onnx-threads must be >= 1, got %d", c.onnxThreads)
	}
	return nil
}

// newRegistry wires every scorer this binary knows into a fresh registry.
func newRegistry(c *engineConfig) (*engine.Registry, error) {
	reg := engine.NewRegistry()
	reg.Register("heuristic", heuristic.New())
	reg.Register("structural", structural.New())
	if err := registerSWEPruner(reg); err != nil {
		return nil, err
	}
	if err := registerPlugins(reg, c); err != nil {
		return nil, err
	}
	if err := registerONNX(reg, c); err != nil {
		return nil, err
	}
	if c.scorer != "" {
		reg.SetDefault(c.scorer)
	} else {
		// structural beats the heuristic on code at 10, 20 and 30% of tokens on both
		// code bench sets (scorers/structural/RESULTS.md); an explicit --scorer wins for
		// every source type.
		reg.SetDefault("structural", engine.SourceCode)
		// Where structural knows no language it defers to the heuristic, as a default for
		// code should: a Makefile, a Dockerfile or a CSV file is no degraded prune.
		reg.QuietWhenDefault("structural", structural.WarnUnknownLanguage)
	}
	return reg, nil
}

// allowedSpecs is what a server's clients may name beyond the registered scorers: every
// plugin of the plugins file and every built-in as a plugin (names the operator chose), the
// operator's --scorer, and --allow-scorers.
func allowedSpecs(c *engineConfig) []string {
	specs := []string{pluginFamily + ":*"}
	if strings.Contains(c.scorer, ":") {
		specs = append(specs, c.scorer)
	}
	return append(specs, splitList(c.allowScorers)...)
}

// built is a ready engine with the pieces commands need to reach directly.
type built struct {
	engine *engine.Engine
	reg    *engine.Registry
	store  *engine.MemoryStore
}

// buildEngine validates c and builds the registry, store, tokenizer and engine.
func buildEngine(ctx context.Context, c *engineConfig) (*built, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(c.encoding)
	if err != nil {
		return nil, usagef("--encoding (MCP_PRUNER_ENCODING): %v", err)
	}
	reg, err := newRegistry(c)
	if err != nil {
		return nil, err
	}
	if c.scorer != "" {
		if _, err := reg.Get(ctx, c.scorer); err != nil {
			return nil, usagef("--scorer (MCP_PRUNER_SCORER): %v", err)
		}
	}
	if c.serving {
		// An eager plugin starts with the server, so a broken one fails start-up loudly
		// rather than at its first request.
		for _, name := range c.eager {
			if _, err := reg.Get(ctx, pluginFamily+":"+name); err != nil {
				reg.Close()
				return nil, usagef("--plugins (MCP_PRUNER_PLUGINS): plugin %q starts eagerly and did not start: %v", name, err)
			}
		}
		if err := reg.Allow(allowedSpecs(c)...); err != nil {
			return nil, usagef("--allow-scorers (MCP_PRUNER_ALLOW_SCORERS): %v", err)
		}
	}
	store := engine.NewMemoryStore(c.ttl, c.storeBytes, nil)
	eng, err := engine.New(engine.Config{Registry: reg, Store: store, Tokens: tok, MaxInputChars: c.maxInputChars})
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return &built{engine: eng, reg: reg, store: store}, nil
}
