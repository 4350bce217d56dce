package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Range is an inclusive, 1-based range of original line numbers.
type Range struct {
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
}

// RangeError is an invalid recovery range; it wraps ErrInvalidRange.
type RangeError struct {
	Range   Range
	MaxLine int
	Problem string
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("invalid_range %d-%d: %s", e.Range.StartLine, e.Range.EndLine, e.Problem)
}

// Unwrap makes errors.Is(err, ErrInvalidRange) hold.
func (e *RangeError) Unwrap() error { return ErrInvalidRange }

// NotFoundError is an unknown or expired prune id; it wraps ErrPruneIDNotFound.
type NotFoundError struct{ PruneID string }

func (e *NotFoundError) Error() string { return "prune_id_not_found: " + e.PruneID }

// Unwrap makes errors.Is(err, ErrPruneIDNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrPruneIDNotFound }

// Recovery is the recover_text payload.
type Recovery struct {
	RawText  string           `json:"raw_text"`
	Metadata RecoveryMetadata `json:"metadata"`
}

// RecoveryMetadata echoes what was recovered.
type RecoveryMetadata struct {
	PruneID       string  `json:"prune_id"`
	Ranges        []Range `json:"ranges"`
	LineNumbering string  `json:"line_numbering"`
}

// LinePrefix is the seed's line-number prefix: "{n}│ ".
func LinePrefix(n int) string { return string(appendLinePrefix(nil, n)) }

// appendLinePrefix appends LinePrefix(n) to b.
func appendLinePrefix(b []byte, n int) []byte {
	return append(strconv.AppendInt(b, int64(n), 10), "│ "...)
}

// Recover returns the original lines of the given ranges, concatenated in order. end_line
// past the last line is clamped; start < 1, start > end or start past the last line is a
// *RangeError. A range that reaches the last line of a text that ended with "\n" returns that
// "\n" too, so recovering 1..N gives back the original bytes exactly.
func Recover(ctx context.Context, store Store, id string, ranges []Range, withLineNumbers bool) (*Recovery, error) {
	text, err := store.Get(ctx, id)
	if err != nil {
		return nil, &NotFoundError{PruneID: id}
	}
	ls := splitLines(text)
	n := len(ls.raw)
	if len(ranges) == 0 {
		return nil, &RangeError{MaxLine: n, Problem: "ranges is empty"}
	}
	var b strings.Builder
	for i, r := range ranges {
		switch {
		case r.StartLine < 1:
			return nil, &RangeError{Range: r, MaxLine: n, Problem: "start_line must be >= 1"}
		case r.StartLine > r.EndLine:
			return nil, &RangeError{Range: r, MaxLine: n, Problem: "start_line is after end_line"}
		case r.StartLine > n:
			return nil, &RangeError{Range: r, MaxLine: n, Problem: fmt.Sprintf("start_line is past the last line (%d)", n)}
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		end := min(r.EndLine, n)
		for ln := r.StartLine; ln <= end; ln++ {
			if ln > r.StartLine {
				b.WriteByte('\n')
			}
			if withLineNumbers {
				b.WriteString(LinePrefix(ln))
			}
			b.WriteString(ls.raw[ln-1])
		}
		if end == n && ls.trailingNewline {
			b.WriteByte('\n')
		}
	}
	return &Recovery{
		RawText:  b.String(),
		Metadata: RecoveryMetadata{PruneID: id, Ranges: ranges, LineNumbering: "original"},
	}, nil
}
