// Command pruner prunes text for coding agents: a CLI (prune, bench, train), an MCP server
// (serve, stdio) and a scorer plugin host (plugin serve, scorers).
//
// This package is the only place that reads flags, environment variables and config files,
// owns signal handling, and wires scorers into the registry handed to server and bench.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
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
		{"plugin", "serve a built-in scorer as a go-plugin process, or print the SHA-256 to pin for a plugin", runPlugin},
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
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "-v") {
		args = []string{"version"}
	}
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
		var ue *usageError
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &ue):
			if !ue.shown {
				fmt.Fprintf(stderr, "pruner %s: %v\n", c.name, err)
			}
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

// usageError is a bad command line; it exits with status 2. shown: the flag package has
// already printed it, with the command's usage, so it is not printed again.
type usageError struct {
	msg   string
	shown bool
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// parseError is fs.Parse's error as a usage error the flag package has already printed
// (with the usage); flag.ErrHelp stays itself, so --help exits 0. An unknown flag that is
// a near miss of one fs has ("--scorer" to bench, "--budget" to prune) gets a last line
// naming that flag, below the usage where the reader's eye ends.
func parseError(fs *flag.FlagSet, err error) error {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		if meant := nearestFlag(fs, name); meant != "" {
			fmt.Fprintf(fs.Output(), "did you mean --%s?\n", meant)
		}
	}
	return &usageError{msg: err.Error(), shown: true}
}

// flagSynonyms are names one command uses for what another calls otherwise.
var flagSynonyms = map[string][]string{
	"workers":  {"parallel"},
	"parallel": {"workers"},
	"jobs":     {"parallel", "workers"},
	"budget":   {"token-budget", "budgets"},
	"query":    {"goal"},
}

// nearestFlag returns the flag of fs that name (as the flag package reports it: no dashes,
// no value) most likely meant: a synonym fs has, else the closest name within an edit
// distance of 2 (1 for names of under 5 bytes), "-" and "_" read alike; "" if none is that
// close.
func nearestFlag(fs *flag.FlagSet, name string) string {
	for _, s := range flagSynonyms[name] {
		if fs.Lookup(s) != nil {
			return s
		}
	}
	limit := 2
	if len(name) < 5 {
		limit = 1
	}
	best, bestDist := "", limit+1
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(strings.ReplaceAll(name, "_", "-"), f.Name)
		if d < bestDist || d == bestDist && f.Name < best {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the number of byte insertions, deletions, substitutions and swaps of two
// neighbours that turn a into b (optimal string alignment: "prot" is one swap from "port").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			sub := d[i-1][j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// env reads MCP_PRUNER_* variables into the settings whose flag the command line did not
// set, so a flag wins over its variable, even over a malformed one.
type env struct {
	explicit map[string]bool
}

// explicitFlags is the env of a parsed command line.
func explicitFlags(fs *flag.FlagSet) env {
	e := env{explicit: map[string]bool{}}
	fs.Visit(func(f *flag.Flag) { e.explicit[f.Name] = true })
	return e
}

// lookupEnv is os.LookupEnv with a variable set to nothing (or only spaces) taken as unset:
// Compose files and .env files write "VAR=" for a setting left at its default.
func lookupEnv(name string) (string, bool) {
	v, ok := os.LookupEnv(name)
	if !ok || strings.TrimSpace(v) == "" {
		return "", false
	}
	return v, true
}

// str sets *dst to variable name when it is set (lookupEnv) and flag was not given.
func (e env) str(name, flag string, dst *string) {
	if e.explicit[flag] {
		return
	}
	if v, ok := lookupEnv(name); ok {
		*dst = v
	}
}

// int64 reads the integer variable name, if set (lookupEnv) and flag was not given, into set; a value
// that is not an integer in [lo, hi] is a usage error "NAME="value": want".
func (e env) int64(name, flag string, lo, hi int64, want string, set func(int64)) error {
	if e.explicit[flag] {
		return nil
	}
	v, ok := lookupEnv(name)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return usagef("%s=%q: %s", name, v, want)
	}
	set(n)
	return nil
}

func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(newFlagOutput(stdout, stderr))
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: pruner version

Prints the version (also: pruner --version, pruner -v). It takes no flags.

Examples:
  pruner version
`)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	_, err := fmt.Fprintf(stdout, "pruner %s\n", version)
	return err
}

// parseFlags parses the command line, then applies each configuration's environment variables
// to the settings it left alone (a flag wins over its variable, and --help works whatever the
// environment holds), and refuses positional arguments, for commands that take none.
func parseFlags(fs *flag.FlagSet, args []string, envs ...interface{ applyEnv(env) error }) error {
	if err := parseHeld(fs, args); err != nil {
		return parseError(fs, err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	e := explicitFlags(fs)
	for _, c := range envs {
		if err := c.applyEnv(e); err != nil {
			return err
		}
	}
	return nil
}

// flagOutput is a FlagSet's output. What the flag package prints while it parses is held
// until the parse ends, then goes to stdout if it is the usage asked for with -h or --help
// (so that 'pruner prune --help | grep budget' works) and to stderr otherwise (a mistake, with
// the usage under it). Anything written after the parse goes to stderr.
type flagOutput struct {
	stdout, stderr io.Writer
	held           bytes.Buffer
	parsing        bool
}

func newFlagOutput(stdout, stderr io.Writer) *flagOutput {
	return &flagOutput{stdout: stdout, stderr: stderr}
}

func (o *flagOutput) Write(p []byte) (int, error) {
	if o.parsing {
		return o.held.Write(p)
	}
	return o.stderr.Write(p)
}

// parseHeld is fs.Parse with fs's output, if a *flagOutput, sent where it belongs once the
// parse has ended.
func parseHeld(fs *flag.FlagSet, args []string) error {
	o, ok := fs.Output().(*flagOutput)
	if !ok {
		return fs.Parse(args)
	}
	o.parsing = true
	err := fs.Parse(args)
	o.parsing = false
	w := o.stderr
	if errors.Is(err, flag.ErrHelp) {
		w = o.stdout
	}
	_, _ = o.held.WriteTo(w)
	return err
}

// parseInterspersed parses flags that may come before or after positional arguments
// ("pruner prune FILE --goal …"), which the flag package alone stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := parseHeld(fs, args); err != nil {
			return nil, parseError(fs, err)
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
