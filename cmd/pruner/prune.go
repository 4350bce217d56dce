package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
)

func runPrune(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("prune", flag.ContinueOnError)
	fs.SetOutput(newFlagOutput(stdout, stderr))
	var (
		cfg        engineConfig
		goal       = fs.String("goal", "", "what the reader is trying to do (required), e.g. \"why does parse_header fail on empty input\"")
		sourceType = fs.String("source-type", "", "code, logs or docs (default: guessed from the file name, else code)")
		def        = engine.DefaultOptions()
		maxRatio   = fs.Float64("max-prune-ratio", cliMaxPruneRatio, "largest fraction of lines that may be cut (0..1); a hard constraint (the MCP tool's callers set their own)")
		minKeep    = fs.Int("min-keep-lines", cliMinKeepLines, "fewest lines kept; a hard constraint")
		timeoutMS  = fs.Int("timeout-ms", def.TimeoutMS, "deadline; past it the text comes back unchanged with warning timeout")
		annotate   = fs.Bool("annotate-lines", false, "prefix kept lines with their original number, \"N│ \"")
		markers    = fs.Bool("markers", def.IncludeMarkers, "insert a ⟦PRUNÉ …⟧ marker line for each cut run")
		threshold  optionalFloat
		budget     = fs.Int("token-budget", 0, "cap the output at this many tokens (⟦NO_PRUNE⟧ regions are kept even past it; other protected lines compete on score, and protected_lines_cut says when one is cut); with a budget, --max-prune-ratio and --min-keep-lines default to 1 and 0 so the budget decides; 0: no budget")
		language   = fs.String("language", "", "language hint for code (e.g. go, python); default from the file name")
		asJSON     = fs.Bool("json", false, "print the prune_text JSON payload (prune_id, pruned_text, annotations, stats, warnings)")
	)
	fs.Var(&threshold, "threshold", "keep lines scored at or above this `number` (0..1; default: the scorer's own)")
	cfg.register(fs, pruneFlags)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: pruner prune [FILE|-] --goal "..." [flags]

Prints FILE (or stdin) cut down to the lines relevant to --goal. Cut runs become one-line
markers "⟦PRUNÉ: prune_id=… lignes A-B (N) raison=…⟧"; with --json the payload also has the
annotations, token stats and warnings. Failures (timeout, oversize, scorer error) print the text
unchanged and say why in the warnings (on stderr without --json). Nothing is kept once the
command exits: a marker's prune_id is recoverable only from a server (pruner serve, stdio);
here, the file itself is the original.

Examples:
  pruner prune engine/select.go --goal "why does fillCheapGaps keep a cut run?" --token-budget 600
  go test ./... 2>&1 | pruner prune - --source-type logs --goal "which test fails and why" --json

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	set := explicitFlags(fs)
	if err := cfg.applyEnv(set); err != nil {
		return err
	}
	if !engine.HasWord(*goal) {
		// Blank, or invisible (a zero-width space, a bidi mark): nothing to score against.
		return usagef("--goal is required, and not blank: it is what the lines are scored against (it needs a letter or a digit)")
	}
	if *budget > 0 {
		// A budget is the reader's word on how much to keep: the command line's own floors
		// give way unless they were asked for.
		if !set.explicit["max-prune-ratio"] {
			*maxRatio = 1
		}
		if !set.explicit["min-keep-lines"] {
			*minKeep = 0
		}
	}
	if len(pos) > 1 {
		return usagef("at most one FILE, got %d%s", len(pos), boolHint(pos))
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	// Past 4 bytes a character of --max-input-chars a text is sure to be too large to prune:
	// without --json it streams through unchanged instead of filling memory (pruner prune on
	// an endless pipe is cat); --json needs it whole in its payload.
	limit := int64(-1)
	if !*asJSON && cfg.maxInputChars >= 1 {
		limit = 4*int64(cfg.maxInputChars) + 1
	}
	text, rest, err := readInput(path, stdin, limit)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && boolHint(pos) != "" {
			return usagef("%v%s", err, boolHint(pos))
		}
		return err
	}
	if rest != nil {
		defer rest.Close()
		if _, err := io.WriteString(stdout, text); err != nil {
			return err
		}
		if _, err := io.Copy(stdout, rest); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "pruner: returned unchanged, warnings: %s (the text is over %d characters; --max-input-chars raises the limit)\n",
			engine.WarnInputTooLarge, cfg.maxInputChars)
		return nil
	}
	st := engine.SourceType(*sourceType)
	if st == "" {
		st = guessSourceType(path)
	}
	if !st.Valid() {
		return usagef("--source-type must be code, logs or docs, got %q", *sourceType)
	}
	if *language != "" {
		if names, ok := structural.Languages(*language); !ok {
			return usagef("--language %q is not a language the structural scorer knows (%s, or a common alias such as py, js, ts); leave it out to go by the file name and the content",
				*language, strings.Join(names, ", "))
		}
	}
	b, err := buildEngine(ctx, &cfg)
	if err != nil {
		return err
	}
	defer b.reg.Close()
	req := &engine.Request{
		Text: text, GoalHint: *goal, SourceType: st, Path: path, Language: *language,
		Options: engine.Options{
			MaxPruneRatio: *maxRatio, MinKeepLines: *minKeep, TimeoutMS: *timeoutMS,
			AnnotateLines: *annotate, IncludeMarkers: *markers,
		},
		TokenBudget: *budget,
	}
	req.Threshold = threshold.v // the engine checks it is in [0, 1]
	res, err := b.engine.Prune(ctx, req)
	if err != nil {
		return usagef("%v", inFlagTerms(fs, err))
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
		if !utf8.ValidString(text) {
			fmt.Fprintln(stderr, "pruner: the input is not valid UTF-8: JSON strings show U+FFFD for its invalid bytes; without --json the output keeps every byte")
		}
		if why := fallbackCause(res, cfg.maxInputChars); why != "" {
			fmt.Fprintf(stderr, "pruner: returned unchanged: %s\n", why)
		}
		return nil
	}
	if _, err := io.WriteString(stdout, res.PrunedText); err != nil {
		return err
	}
	if !strings.HasSuffix(res.PrunedText, "\n") && res.PrunedText != "" {
		// stdout stays byte for byte the answer (a text returned unchanged is the input);
		// on a terminal the summary still starts on a line of its own.
		fmt.Fprintln(stderr)
	}
	s := res.Stats
	fmt.Fprintf(stderr, "pruner: kept %d of %d lines, %d → %d tokens", s.KeptLines, s.OriginalLines, s.TokensEstBefore, s.TokensEstAfter)
	if len(res.Warnings) > 0 {
		fmt.Fprintf(stderr, ", warnings: %s", strings.Join(res.Warnings, ", "))
	}
	if why := fallbackCause(res, cfg.maxInputChars); why != "" {
		fmt.Fprintf(stderr, " (%s)", why)
	}
	fmt.Fprintln(stderr)
	return nil
}

// fallbackCause says why a result came back unchanged, for the person at the command line:
// the engine's reason (which the wire's payload does not carry), or for an oversized text
// the limit and the flag that raises it. "" when it was pruned.
func fallbackCause(res *engine.Result, maxInputChars int) string {
	switch {
	case slices.Contains(res.Warnings, engine.WarnInputTooLarge):
		return fmt.Sprintf("the text is over %d characters; --max-input-chars raises the limit", maxInputChars)
	case res.FallbackError != "":
		return res.FallbackError
	}
	return ""
}

// boolHint explains a true or false among the positional arguments: a switch takes its
// value after "=" only, so "--markers false" leaves "false" as a FILE.
func boolHint(pos []string) string {
	for _, p := range pos {
		if p == "true" || p == "false" {
			return fmt.Sprintf(" (a true/false flag takes its value after '=', as in --markers=%s; %q was read as a FILE)", p, p)
		}
	}
	return ""
}

// optionalFloat is a number flag without a default: unset, it leaves the choice to someone
// else (the scorer's threshold), and its help shows no default.
type optionalFloat struct{ v *float64 }

func (o *optionalFloat) String() string {
	if o == nil || o.v == nil {
		return ""
	}
	return strconv.FormatFloat(*o.v, 'g', -1, 64)
}

func (o *optionalFloat) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number")
	}
	o.v = &f
	return nil
}

// The command line is for a person reading a file for a goal, so it cuts harder than the
// seed's example options (0.55, 40), which MCP callers pass explicitly anyway.
const (
	cliMaxPruneRatio = 0.9
	cliMinKeepLines  = 20
)

// readInput reads FILE, or stdin for "" and "-". With limit >= 0 it stops after limit bytes
// and, when there is more, returns what it read and the rest, still to be read (and closed);
// rest is nil when the whole input is in text.
func readInput(path string, stdin io.Reader, limit int64) (text string, rest io.ReadCloser, err error) {
	in := io.NopCloser(stdin)
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", nil, err
		}
		in = f
	}
	r := io.Reader(in)
	if limit >= 0 {
		r = io.LimitReader(in, limit)
	}
	b, err := io.ReadAll(r)
	if err != nil || limit < 0 || int64(len(b)) < limit {
		in.Close()
		return string(b), nil, err
	}
	return string(b), in, nil
}

// guessSourceType maps a file name to a source type: logs by extension or name, docs for
// prose formats, code otherwise.
func guessSourceType(path string) engine.SourceType {
	base := strings.ToLower(filepath.Base(path))
	switch ext := filepath.Ext(base); {
	case ext == ".log" || strings.Contains(base, "log") && (ext == ".txt" || ext == ""):
		return engine.SourceLogs
	case ext == ".md" || ext == ".rst" || ext == ".txt" || ext == ".adoc" || ext == ".markdown":
		return engine.SourceDocs
	}
	return engine.SourceCode
}

// inFlagTerms says an invalid request field as the flag that set it ("--max-prune-ratio must
// be a number between 0 and 1", not "invalid options.max_prune_ratio: …"): the person at the
// command line typed the flag and never saw the field.
func inFlagTerms(fs *flag.FlagSet, err error) error {
	var fe *engine.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	var name string
	switch fe.Field {
	case "options.max_prune_ratio":
		name = "max-prune-ratio"
	case "options.min_keep_lines":
		name = "min-keep-lines"
	case "options.timeout_ms":
		name = "timeout-ms"
	case "threshold":
		name = "threshold"
	case "token_budget":
		name = "token-budget"
	default:
		return err
	}
	return fmt.Errorf("--%s %s, got %s", name, fe.Problem, fs.Lookup(name).Value)
}
