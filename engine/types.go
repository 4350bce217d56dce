package engine

import (
	"fmt"
	"math"
	"time"
)

// SourceType says what kind of text is pruned; it selects the non-prunable rules.
type SourceType string

// The source types of the seed contract.
const (
	SourceCode SourceType = "code"
	SourceLogs SourceType = "logs"
	SourceDocs SourceType = "docs"
)

// Valid reports whether t is one of the contract's source types.
func (t SourceType) Valid() bool {
	return t == SourceCode || t == SourceLogs || t == SourceDocs
}

// Options are the seed's PruneOptions. MaxPruneRatio and MinKeepLines are hard constraints
// on the result, not preferences.
type Options struct {
	MaxPruneRatio  float64 `json:"max_prune_ratio"`
	MinKeepLines   int     `json:"min_keep_lines"`
	TimeoutMS      int     `json:"timeout_ms"`
	AnnotateLines  bool    `json:"annotate_lines"`
	IncludeMarkers bool    `json:"include_markers"`
}

// DefaultOptions are the options of the seed's worked example, used where a caller gives none
// (the command line, the SWE-Pruner endpoint, the benchmark's natural mode).
func DefaultOptions() Options {
	return Options{MaxPruneRatio: 0.55, MinKeepLines: 40, TimeoutMS: 1500, AnnotateLines: true, IncludeMarkers: true}
}

// MaxTimeoutMS is the largest timeout_ms accepted: 2^31-1 ms, about 24.8 days. The seed
// gives only a minimum, but a duration in nanoseconds overflows from about 9.2e12 ms on,
// and a wrapped deadline is negative (an instant timeout) or arbitrary. 2^31-1 is the largest
// delay a JavaScript setTimeout or an int32 field can say, so clients that write "forever"
// that way still work, far below the overflow, and no prune takes that long anyway.
const MaxTimeoutMS = math.MaxInt32

// Validate checks the ranges the seed's schema gives each option, and MaxTimeoutMS.
func (o Options) Validate() error {
	switch {
	case !(o.MaxPruneRatio >= 0 && o.MaxPruneRatio <= 1):
		return &FieldError{Field: "options.max_prune_ratio", Problem: "must be a number between 0 and 1"}
	case o.MinKeepLines < 0:
		return &FieldError{Field: "options.min_keep_lines", Problem: "must be an integer >= 0"}
	case o.TimeoutMS < 1:
		return &FieldError{Field: "options.timeout_ms", Problem: "must be an integer >= 1"}
	case o.TimeoutMS > MaxTimeoutMS:
		return &FieldError{Field: "options.timeout_ms", Problem: fmt.Sprintf("must be an integer <= %d (about 24.8 days)", MaxTimeoutMS)}
	}
	return nil
}

// Timeout is TimeoutMS as a duration. A count of milliseconds too large for a Duration is the
// longest one, not a product that overflows into the past (an already expired deadline).
func (o Options) Timeout() time.Duration {
	if int64(o.TimeoutMS) > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(o.TimeoutMS) * time.Millisecond
}

// Request is one prune. Text, GoalHint, SourceType and Options mirror the seed's prune_text
// arguments; the other fields are optional extensions.
type Request struct {
	Text       string
	GoalHint   string
	SourceType SourceType
	Options    Options

	// Path and Language hint at the text's language (e.g. "pkg/server.go", "go").
	Path     string
	Language string
	// Scorer names a registered scorer; empty means the engine's default.
	Scorer string
	// Threshold overrides the scorer's default keep threshold when non-nil. With a
	// TokenBudget and no Threshold, every line is a candidate and the budget decides.
	Threshold *float64
	// TokenBudget, when > 0, caps the tokens of PrunedText (best effort against protected
	// lines and the hard constraints, with warning WarnTokenBudgetExceeded).
	TokenBudget int

	// Settled, when not nil, is called exactly once, when the prune's work has ended: as Prune
	// returns, or later, when a goroutine Prune leaves running (a scorer past its deadline)
	// returns. A caller that bounds how many prunes run at once frees its slot here rather
	// than at return, so scorers that overrun their deadline still count against the bound.
	// It is called on every path (errors and panics included), possibly on another goroutine.
	Settled func() `json:"-"`
}

// Annotation describes one cut run of lines (seed §6.1).
type Annotation struct {
	Kind              string `json:"kind"`
	OriginalStartLine int    `json:"original_start_line"`
	OriginalEndLine   int    `json:"original_end_line"`
	PrunedLineCount   int    `json:"pruned_line_count"`
	Reason            string `json:"reason"`
	Marker            string `json:"marker"`
}

// Stats are the seed's prune statistics.
type Stats struct {
	OriginalLines   int     `json:"original_lines"`
	KeptLines       int     `json:"kept_lines"`
	PrunedLines     int     `json:"pruned_lines"`
	PrunedRatio     float64 `json:"pruned_ratio"`
	TokensEstBefore int     `json:"tokens_est_before"`
	TokensEstAfter  int     `json:"tokens_est_after"`
	ElapsedMS       int64   `json:"elapsed_ms"`
	UsedFallback    bool    `json:"used_fallback"`
}

// Result is the prune_text payload. Kept and Scores are for in-process callers (the
// benchmark, the SWE-Pruner endpoint) and are not part of the JSON payload.
type Result struct {
	PruneID     string       `json:"prune_id"`
	PrunedText  string       `json:"pruned_text"`
	Annotations []Annotation `json:"annotations"`
	Stats       Stats        `json:"stats"`
	Warnings    []string     `json:"warnings"`

	// Kept lists the kept original line numbers (1-based, ascending).
	Kept []int `json:"-"`
	// Scores holds the scorer's relevance per line (nil on a fallback before scoring).
	Scores []float64 `json:"-"`
	// ScorerName is the scorer the engine asked for scores: set when the scorer failed too,
	// so the operator's log can say which one did; empty when none was asked.
	ScorerName string `json:"-"`
	// FallbackError says why a fail-open result failed open (the scorer's error, the broken
	// invariant, the store's refusal, a recovered panic): for the operator's log, never on
	// the wire, whose warnings carry only the code. Empty when the prune did not fail open.
	FallbackError string `json:"-"`
}

// Warning codes. The first four are the seed's fail-open reasons.
const (
	WarnTimeout             = "timeout"
	WarnInputTooLarge       = "input_too_large"
	WarnScorerError         = "scorer_error"
	WarnConstraintsUnmet    = "constraints_unmet"
	WarnTokenBudgetExceeded = "token_budget_exceeded"
	WarnProtectedCut        = "protected_lines_cut"
	// WarnInternalError reports a bug caught inside the engine; the text comes back whole
	// and its token figures are estimates (bytes / 4).
	WarnInternalError = "internal_error"
	// WarnRecoveryUnavailable (the seed's domain code recovery_unavailable) reports that the
	// store refused the original (e.g. larger than the whole store): the text comes back
	// whole rather than cut with markers nobody could recover, and its prune_id is not found.
	WarnRecoveryUnavailable = "recovery_unavailable"
	// WarnNotUTF8Text reports a text the engine cannot cut by lines: UTF-16 or UTF-32 (a
	// byte-order mark, or NUL bytes in a quarter of its first 4 KiB, as binary data has
	// too), where markers written in UTF-8 would corrupt it, or lines ended by a carriage
	// return alone (classic Mac OS), where the text is one line. It comes back whole, its
	// token figures estimated.
	WarnNotUTF8Text = "unsupported_encoding"
	// WarnGoalWithoutWords reports lines cut for a goal_hint with no letter or digit (empty,
	// blank, a zero-width space): the scorer had no term to look for, and its cuts follow
	// only what it keeps for any goal (failures in logs, the outline of code).
	WarnGoalWithoutWords = "goal_without_words"
)

// FieldError reports an invalid request field; the server maps it to -32602.
type FieldError struct {
	Field   string
	Problem string
	// More follows a missing field's message: the other fields missing beside it, what it
	// should hold (the caller, often a model, mends its call in one go).
	More string
}

// ProblemRequired is the Problem of a field that is missing.
const ProblemRequired = "is required"

func (e *FieldError) Error() string {
	if e.Problem == ProblemRequired {
		return e.Field + " " + ProblemRequired + e.More // not "invalid text: is required"
	}
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Problem)
}
