// Command pruner prunes text for coding agents: a CLI (prune, bench, train), an MCP server
// (serve, stdio) and a scorer plugin host (plugin serve, scorers).
//
// This package is the only place that reads flags, environment variables and config files,
// owns signal handling, and wires scorers into the registry handed to server and bench.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0"

// command is one subcommand of pruner.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"prune", "prune a file or stdin for a goal and print the result", runPrune},
		{"serve", "run the HTTP server (/rpc, /mcp, /prune, /health)", runServe},
		{"stdio", "run the MCP server over stdin/stdout", runStdio},
		{"bench", "compare scorers on labelled cases (see pruner bench --help)", runBench},
		{"scorers", "list the available scorers and where they run", runScorers},
		{"plugin", "serve a built-in scorer as a go-plugin process (pruner plugin serve NAME)", runPlugin},
		{"train", "train the line-features relevance model (models/linerank)", runTrain},
		{"version", "print the version", runVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `pruner %s — cut what coding agents read down to the lines that matter for their goal.
Every cut is marked, annotated and recoverable; every failure returns the text unchanged.

Usage: pruner <command> [flags]

Commands:
`, version)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'pruner <command> --help' for the flags of a command.\n")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and turns its error into an exit code: 2 for usage errors,
// 1 for everything else.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdin, stdout, stderr)
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, new(*usageError)):
			fmt.Fprintf(stderr, "pruner %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(stderr, "pruner %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "pruner: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// usageError is a bad command line; it exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

func runVersion(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
	_, err := fmt.Fprintf(stdout, "pruner %s\n", version)
	return err
}

// parseFlags applies each configuration's environment variables (flags parsed after them
// win), parses args and rejects positional arguments, for commands that take none.
func parseFlags(fs *flag.FlagSet, args []string, envs ...interface{ applyEnv() error }) error {
	for _, e := range envs {
		if err := e.applyEnv(); err != nil {
			return err
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	return nil
}

// parseInterspersed parses flags that may come before or after positional arguments
// ("pruner prune FILE --goal …"), which the flag package alone stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
