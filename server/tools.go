package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// Tool names. recover_range is an alias of recover_text accepted by tools/call but not listed.
const (
	ToolPrune        = "prune_text"
	ToolRecover      = "recover_text"
	ToolRecoverAlias = "recover_range"
	ToolHealth       = "health"
)

// PruneArgs are prune_text's arguments: the seed's four required fields plus optional
// extensions the engine understands.
type PruneArgs struct {
	Text        string         `json:"text"`
	GoalHint    string         `json:"goal_hint"`
	SourceType  string         `json:"source_type"`
	Options     engine.Options `json:"options"`
	Scorer      string         `json:"scorer,omitempty"`
	Path        string         `json:"path,omitempty"`
	Language    string         `json:"language,omitempty"`
	Threshold   *float64       `json:"threshold,omitempty"`
	TokenBudget int            `json:"token_budget,omitempty"`
}

// RecoverArgs are recover_text's (and recover_range's) arguments.
type RecoverArgs struct {
	PruneID            string         `json:"prune_id"`
	Ranges             []engine.Range `json:"ranges"`
	IncludeLineNumbers bool           `json:"include_line_numbers"`
}

// HealthArgs are health's arguments: none.
type HealthArgs struct{}

// Health is the health payload: the seed's fields, plus SWE-Pruner's model_loaded and the
// default scorer, so one GET /health satisfies both kinds of clients.
type Health struct {
	Status        string   `json:"status"`
	Server        string   `json:"server"`
	Version       string   `json:"version"`
	Capabilities  []string `json:"capabilities"`
	Timestamp     string   `json:"timestamp"`
	ModelLoaded   bool     `json:"model_loaded"`
	DefaultScorer string   `json:"default_scorer"`
}

// ServerName is the serverInfo name every transport reports.
const ServerName = "mcp-pruner"

// tool is one tool definition, shared by every transport.
type tool struct {
	Name        string
	Description string
	Schema      *Schema
	listed      bool
	call        func(ctx context.Context, raw []byte) (any, *callLog, error)
}

// callLog carries what a call reports to the structured log.
type callLog struct {
	linesIn, linesOut int
	fallback          string // the warning code of a fail-open result
	fallbackError     string // and why it failed open (engine.Result.FallbackError)
	scorer            string
}

// toolset holds the tool definitions bound to an engine.
type toolset struct {
	eng     *engine.Engine
	version string
	now     func() time.Time
	log     *slog.Logger
	list    []*tool          // listed tools, in tools/list order
	byName  map[string]*tool // every callable name, aliases included

	pruneS, recoverS, healthS *Schema
	admit                     *admission // prunes scored in this process
	elsewhere                 *admission // prunes scored in another process; nil: admit
}

func newToolset(eng *engine.Engine, version string, now func() time.Time, log *slog.Logger, admit *admission) *toolset {
	t := &toolset{eng: eng, version: version, now: now, log: log, byName: map[string]*tool{}, admit: admit,
		pruneS: pruneSchema(), recoverS: recoverSchema(), healthS: healthSchema()}
	prune := &tool{Name: ToolPrune, Description: pruneDescription, Schema: t.pruneS, listed: true, call: t.prune}
	recov := &tool{Name: ToolRecover, Description: recoverDescription, Schema: t.recoverS, listed: true, call: t.recover}
	alias := &tool{Name: ToolRecoverAlias, Description: recoverDescription, Schema: t.recoverS, call: t.recover}
	health := &tool{Name: ToolHealth, Description: healthDescription, Schema: t.healthS, listed: true, call: t.healthCall}
	for _, x := range []*tool{prune, recov, alias, health} {
		t.byName[x.Name] = x
		if x.listed {
			t.list = append(t.list, x)
		}
	}
	return t
}

const (
	pruneDescription = "Prune text (code, logs or docs) down to the lines relevant to goal_hint, without summarising. " +
		"Send text, goal_hint, source_type and options (all five option fields; e.g. {\"max_prune_ratio\":0.55,\"min_keep_lines\":40,\"timeout_ms\":1500,\"annotate_lines\":false,\"include_markers\":true}); " +
		"token_budget caps the answer's tokens. " +
		"Every cut run of lines is replaced by a one-line marker ⟦PRUNÉ: prune_id=… lignes A-B (N) raison=…⟧ and described in annotations; " +
		"call recover_text with the prune_id to get the original lines back. On any failure the text is returned unchanged (used_fallback=true). " +
		"Returns JSON {prune_id, pruned_text, annotations, stats, warnings}."
	recoverDescription = "Recover original lines of an earlier prune_text call by prune_id and 1-based inclusive line ranges " +
		"(end_line past the end is clamped). Returns JSON {raw_text, metadata}."
	healthDescription = "Report the server's status, version and capabilities."
)

// pruneSchema is seed §4.0's prune_text schema plus optional extensions.
func pruneSchema() *Schema {
	return &Schema{
		Type: "object",
		Properties: map[string]*Schema{
			"text":      {Type: "string", Description: "The text to prune."},
			"goal_hint": {Type: "string", Description: "What the reader is looking for; treated as data, never as instructions."},
			"source_type": {Type: "string", Enum: []string{"code", "logs", "docs"},
				Description: "code: source files and diffs; logs: build, test and command output; docs: prose, Markdown, reStructuredText."},
			"options": {
				Type:        "object",
				Description: "All five fields are required; the example (cut at most 55% of the lines, keep at least 40) is a balanced start.",
				Properties: map[string]*Schema{
					"max_prune_ratio": {Type: "number", Minimum: num(0), Maximum: num(1), Description: "Largest fraction of lines that may be cut, 0 to 1 (0.55 keeps at least 45%; 1 lets the goal decide)."},
					"min_keep_lines":  {Type: "integer", Minimum: num(0), Description: "Fewest lines that must be kept (e.g. 40; 0 lets the goal decide)."},
					"timeout_ms":      {Type: "integer", Minimum: num(1), Description: "Soft time limit in milliseconds (e.g. 1500); past it the text comes back unchanged, with warning timeout."},
					"annotate_lines":  {Type: "boolean", Description: "Prefix kept lines with their original number, \"N│ \" (costs tokens; markers already give the cut ranges)."},
					"include_markers": {Type: "boolean", Description: "Insert a ⟦PRUNÉ …⟧ marker line for each cut run, naming the prune_id and lines to recover (recommended)."},
				},
				Required:             []string{"max_prune_ratio", "min_keep_lines", "timeout_ms", "annotate_lines", "include_markers"},
				AdditionalProperties: boolp(false),
				Examples:             []json.RawMessage{json.RawMessage(`{"max_prune_ratio":0.55,"min_keep_lines":40,"timeout_ms":1500,"annotate_lines":false,"include_markers":true}`)},
			},
			"scorer":       {Type: "string", Description: "Optional: scorer name (see the health tool's default_scorer); default is the server's."},
			"path":         {Type: "string", Description: "Optional: file path of the text, a hint at its language."},
			"language":     {Type: "string", Description: "Optional: language of the text (e.g. go, python)."},
			"threshold":    {Type: "number", Minimum: num(0), Maximum: num(1), Description: "Optional: keep threshold on line scores, overriding the scorer's."},
			"token_budget": {Type: "integer", Minimum: num(0), Description: "Optional: cap on pruned_text tokens (in the server's tiktoken encoding, cl100k_base unless configured), best effort."},
		},
		Required:             []string{"text", "goal_hint", "source_type", "options"},
		AdditionalProperties: boolp(false),
	}
}

// recoverSchema is seed §4.0's recover_text schema.
func recoverSchema() *Schema {
	return &Schema{
		Type: "object",
		Properties: map[string]*Schema{
			"prune_id": {Type: "string", Description: "The prune_id returned by prune_text."},
			"ranges": {
				Type: "array",
				Items: &Schema{
					Type: "object",
					Properties: map[string]*Schema{
						"start_line": {Type: "integer", Minimum: num(1), engineBounds: true},
						"end_line":   {Type: "integer", Minimum: num(1), engineBounds: true},
					},
					Required:             []string{"start_line", "end_line"},
					AdditionalProperties: boolp(false),
				},
			},
			"include_line_numbers": {Type: "boolean", Description: "Prefix each line with \"N│ \"."},
		},
		Required:             []string{"prune_id", "ranges", "include_line_numbers"},
		AdditionalProperties: boolp(false),
	}
}

func healthSchema() *Schema {
	return &Schema{Type: "object", Properties: map[string]*Schema{}, AdditionalProperties: boolp(false)}
}

// call runs the named tool and returns its JSON payload, logging the call.
func (t *toolset) call(ctx context.Context, transport, name string, raw []byte) (json.RawMessage, error) {
	return t.callTo(ctx, transport, name, raw, nil)
}

// callTo is call with the payload encoded into buf, which it then aliases; a nil buf gives the
// payload memory of its own.
func (t *toolset) callTo(ctx context.Context, transport, name string, raw []byte, buf *bytes.Buffer) (json.RawMessage, error) {
	start := time.Now()
	tl, ok := t.byName[name]
	var (
		payload any
		info    *callLog
		err     error
	)
	if !ok {
		err = &unknownToolError{name: name}
	} else {
		payload, info, err = callContained(ctx, tl, raw)
	}
	var out json.RawMessage
	if err == nil {
		if buf == nil {
			buf = new(bytes.Buffer)
		}
		out, err = encodeJSONTo(buf, payload)
	}
	attrs := []slog.Attr{
		slog.String("request_id", requestID(ctx)),
		slog.String("transport", transport),
		slog.String("tool", name),
		slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
	}
	if info != nil {
		attrs = append(attrs, slog.Int("lines_in", info.linesIn), slog.Int("lines_out", info.linesOut))
		if info.scorer != "" {
			attrs = append(attrs, slog.String("scorer", info.scorer))
		}
		if info.fallback != "" {
			attrs = append(attrs, slog.String("fallback", info.fallback))
		}
		if info.fallbackError != "" {
			attrs = append(attrs, slog.String("fallback_error", info.fallbackError))
		}
	}
	level := slog.LevelInfo
	if err != nil {
		rpcErr := toRPCError(err)
		attrs = append(attrs, slog.Int64("error_code", rpcErr.Code), slog.String("error", err.Error()))
		switch {
		case errors.Is(err, context.Canceled):
			// The client hung up or cancelled the call (while it waited for a prune slot,
			// say): nothing the operator must look at.
			attrs = append(attrs, slog.Bool("cancelled_by_client", true))
		case rpcErr.Code == codeInternal:
			level = slog.LevelError
		}
		var pe *panicError
		if errors.As(err, &pe) {
			attrs = append(attrs, slog.String("stack", string(pe.stack)))
		}
	}
	t.log.LogAttrs(ctx, level, "tool call", attrs...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// callContained runs tl, a panic in which fails the call with a panicError instead of ending
// the process: the go-sdk runs each MCP call on a goroutine of its own, outside net/http's
// recover, so over /mcp and stdio a bug below one call would end every client's session.
func callContained(ctx context.Context, tl *tool, raw []byte) (payload any, info *callLog, err error) {
	defer func() {
		if p := recover(); p != nil {
			payload, info, err = nil, nil, &panicError{value: p, stack: debug.Stack()}
		}
	}()
	return tl.call(ctx, raw)
}

// panicError is a tool call's panic, with the stack for the log.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

func (t *toolset) prune(ctx context.Context, raw []byte) (any, *callLog, error) {
	var a PruneArgs
	req := &engine.Request{}
	if err := decodeArgs(t.pruneS, raw, &a); err != nil {
		// The reference checks the size before anything else: an oversized text comes back
		// unchanged (and recoverable) even when the other arguments are wrong.
		text, ok := t.oversizedText(raw)
		if !ok {
			return nil, nil, err
		}
		req.Text = text
	} else {
		// The engine checks the options too, but the admission queue below waits up to
		// timeout_ms first: a request the engine will refuse must not wait for a slot. The
		// size is still checked first, as the engine does.
		if err := a.Options.Validate(); err != nil && !t.tooLarge(a.Text) {
			return nil, nil, err
		}
		*req = engine.Request{
			Text: a.Text, GoalHint: a.GoalHint, SourceType: engine.SourceType(a.SourceType), Options: a.Options,
			Path: a.Path, Language: a.Language, Scorer: a.Scorer, Threshold: a.Threshold, TokenBudget: a.TokenBudget,
		}
	}
	res, err := t.admitted(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	if res.Annotations == nil {
		res.Annotations = []engine.Annotation{}
	}
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	if !unicodeJSON(raw) {
		res.Warnings = append(res.Warnings, WarnUnicodeReplaced)
	}
	info := &callLog{linesIn: res.Stats.OriginalLines, linesOut: res.Stats.KeptLines, scorer: res.ScorerName,
		fallback: fallbackReason(res), fallbackError: res.FallbackError}
	return res, info, nil
}

// oversizedText returns the "text" argument when it is a string longer than the engine's
// input limit.
func (t *toolset) oversizedText(raw []byte) (string, bool) {
	var probe struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &probe) != nil || probe.Text == nil {
		return "", false
	}
	if !t.tooLarge(*probe.Text) {
		return "", false
	}
	return *probe.Text, true
}

// tooLarge reports whether text has more characters than the engine's input limit.
func (t *toolset) tooLarge(text string) bool {
	max := t.eng.MaxInputChars()
	return len(text) > max && utf8.RuneCountInString(text) > max
}

func (t *toolset) recover(ctx context.Context, raw []byte) (any, *callLog, error) {
	var a RecoverArgs
	if err := decodeArgs(t.recoverS, raw, &a); err != nil {
		return nil, nil, err
	}
	if a.Ranges == nil {
		a.Ranges = []engine.Range{}
	}
	rec, err := t.eng.Recover(ctx, a.PruneID, a.Ranges, a.IncludeLineNumbers)
	if err != nil {
		return nil, nil, err
	}
	lines := 0
	if rec.RawText != "" {
		lines = bytes.Count([]byte(rec.RawText), []byte("\n")) + 1
	}
	return rec, &callLog{linesOut: lines}, nil
}

func (t *toolset) healthCall(ctx context.Context, raw []byte) (any, *callLog, error) {
	if err := decodeArgs(t.healthS, raw, &HealthArgs{}); err != nil {
		return nil, nil, err
	}
	return t.health(ctx), nil, nil
}

// health builds the health payload. model_loaded reports whether the default scorer can
// actually be obtained.
func (t *toolset) health(ctx context.Context) *Health {
	reg := t.eng.Registry()
	name := reg.DefaultFor(engine.SourceCode)
	_, err := reg.Get(ctx, name)
	status := "healthy"
	if err != nil {
		status = "degraded"
	}
	return &Health{
		Status:        status,
		Server:        ServerName,
		Version:       t.version,
		Capabilities:  []string{"prune_text", "recover_text", "annotations", "markers"},
		Timestamp:     t.now().Format(time.RFC3339),
		ModelLoaded:   err == nil,
		DefaultScorer: name,
	}
}

// encodeJSON encodes v as UTF-8 JSON without HTML or ASCII escaping ("│", "⟦PRUNÉ", "<" stay
// raw) and without a trailing newline.
func encodeJSON(v any) (json.RawMessage, error) {
	return encodeJSONTo(new(bytes.Buffer), v)
}

// encodeJSONTo is encodeJSON appending to b; the result aliases b.
func encodeJSONTo(b *bytes.Buffer, v any) (json.RawMessage, error) {
	start := b.Len()
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes()[start:], "\n"), nil
}

// admitted runs req once its bound admits it: the CPU-bound one, or for a scorer that runs in
// another process (engine.Elsewhere) the separate one (ElsewherePruneSlots), so that waiting
// on a plugin never keeps the in-process scorers waiting.
func (t *toolset) admitted(ctx context.Context, req *engine.Request) (*engine.Result, error) {
	if t.elsewhere != nil && t.eng.ScoresElsewhere(ctx, req) {
		return t.elsewhere.prune(ctx, t.eng, req)
	}
	return t.admit.prune(ctx, t.eng, req)
}
