package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mcp-pruner/mcp-pruner/server"
)

// runStdio serves MCP over stdin/stdout. stdout carries protocol messages only; every log
// line goes to stderr.
func runStdio(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("stdio", flag.ContinueOnError)
	fs.SetOutput(newFlagOutput(stdout, stderr))
	var (
		ecfg    engineConfig
		logging logConfig
		content mcpContent
		drain   time.Duration
	)
	ecfg.register(fs, serverFlags)
	content.register(fs)
	fs.DurationVar(&drain, "shutdown-timeout", 10*time.Second, "when stdin ends, how long to wait for the next answer to a call still in flight before the server exits (each answer restarts the wait); after SIGINT or SIGTERM, how long calls in flight may still take before they are cancelled")
	logging.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: pruner stdio [flags]

Serves the prune_text, recover_text and health tools as an MCP server over stdin/stdout
(newline-delimited JSON-RPC), for IDE agents that launch their servers as subprocesses.
Logs go to stderr. When stdin ends, the calls already read are answered before it exits,
so 'pruner stdio < requests.jsonl' prints every answer.

Examples:
  claude mcp add pruner -- pruner stdio       # or "command": "pruner", "args": ["stdio"]
  pruner stdio --ttl 30m < requests.jsonl     # one JSON-RPC message per line, initialize first

Flags:
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, &ecfg, &logging, &content); err != nil {
		return err
	}
	if drain <= 0 {
		return usagef("--shutdown-timeout must be positive, got %s", drain)
	}
	logger, err := logging.logger(stderr)
	if err != nil {
		return err
	}
	ecfg.pluginLogs = &logLines{log: logger.With("component", "plugins")}
	b, err := buildEngine(ctx, &ecfg)
	if err != nil {
		return err
	}
	defer b.reg.Close()
	srv, err := server.New(server.Config{Engine: b.engine, Version: version, Logger: logger, ShutdownTimeout: drain, MCPText: content.text()})
	if err != nil {
		return err
	}
	return srv.RunStdio(ctx, stdin, stdout)
}
