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

// Recovery limit. A request names its ranges in a few bytes each, and they may repeat or
// overlap, so without a bound a 66 KB request over a 100 KB text asked for a 400 MB answer
// (and the body limit allows some 300,000 ranges). The answer is therefore bounded before it
// is built: the lines the ranges ask for, clamped to the text and counted each time they are
// asked, may add up to at most RecoverMaxFactor times the whole text (as recovering 1..N
// once would give it, line numbers included), or RecoverMinBytes when that is more, so that a
// short text can still be asked for in many wide, overlapping windows. The count is in bytes,
// not lines: a text of short lines and one huge line would otherwise let a few lines amplify.
const (
	RecoverMaxFactor = 2
	RecoverMinBytes  = 1 << 20
)

// Recover returns the original lines of the given ranges, concatenated in order. end_line
// past the last line is clamped; start < 1, start > end, start past the last line, or
// ranges asking for more than the recovery limit (RecoverMaxFactor) is a *RangeError. Lines
// and ranges are joined with "\n". A recovery whose last range reaches the last line of a text
// that ended with "\n" ends with that "\n" too, so recovering 1..N gives back the original
// bytes exactly; an earlier range never brings it, since followed by the "\n" that joins the
// next range it would read as a blank line the text does not have. It stops with ctx's error
// when ctx ends.
func Recover(ctx context.Context, store Store, id string, ranges []Range, withLineNumbers bool) (*Recovery, error) {
	text, err := store.Get(ctx, id)
	if err != nil {
		return nil, &NotFoundError{PruneID: id}
	}
	ls := splitLines(text)
	size, err := recoverySize(ctx, ls, len(text), ranges, withLineNumbers)
	if err != nil {
		return nil, err
	}
	n := len(ls.raw)
	var b strings.Builder
	b.Grow(size)
	for i, r := range ranges {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("recover: %w", err)
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
		if end == n && ls.trailingNewline && i == len(ranges)-1 {
			b.WriteByte('\n')
		}
	}
	return &Recovery{
		RawText:  b.String(),
		Metadata: RecoveryMetadata{PruneID: id, Ranges: ranges, LineNumbering: "original"},
	}, nil
}

// recoverySize checks every range of a recovery from ls (a text of textBytes bytes) and
// returns a bound on the size of its raw_text (each line counted with one "\n"), or a
// *RangeError for the first range that is invalid or takes the total past the recovery
// limit. Its work is bounded by the limit, not by what the ranges ask for.
func recoverySize(ctx context.Context, ls lineSet, textBytes int, ranges []Range, withLineNumbers bool) (int, error) {
	n := len(ls.raw)
	if len(ranges) == 0 {
		return 0, &RangeError{MaxLine: n, Problem: "ranges is empty"}
	}
	whole := textBytes + 1
	if withLineNumbers {
		whole += prefixBytes(n)
	}
	limit := max(RecoverMaxFactor*whole, RecoverMinBytes)
	total := 0
	for _, r := range ranges {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("recover: %w", err)
		}
		switch {
		case r.StartLine < 1:
			return 0, &RangeError{Range: r, MaxLine: n, Problem: "start_line must be >= 1"}
		case r.StartLine > r.EndLine:
			return 0, &RangeError{Range: r, MaxLine: n, Problem: "start_line is after end_line"}
		case r.StartLine > n:
			return 0, &RangeError{Range: r, MaxLine: n, Problem: fmt.Sprintf("start_line is past the last line (%d)", n)}
		}
		for ln := r.StartLine; ln <= min(r.EndLine, n); ln++ {
			total += len(ls.raw[ln-1]) + 1
			if withLineNumbers {
				total += prefixLen(ln)
			}
			if total > limit {
				return 0, &RangeError{Range: r, MaxLine: n, Problem: fmt.Sprintf(
					"the ranges ask for more than %d bytes (lines asked again count again): "+
						"at most %d times the whole text (%d bytes here), or %d bytes for a smaller text",
					limit, RecoverMaxFactor, whole, RecoverMinBytes)}
			}
		}
	}
	return total, nil
}

// prefixLen is len(LinePrefix(ln)).
func prefixLen(ln int) int { return decimalDigits(ln) + len("│ ") }

// decimalDigits is the number of digits of n >= 0 in base 10.
func decimalDigits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// prefixBytes is the total length of LinePrefix(1) ... LinePrefix(n).
func prefixBytes(n int) int {
	total := n * len("│ ")
	for p := 1; p <= n; p *= 10 {
		total += n - p + 1 // lines p..n have at least as many digits as p
	}
	return total
}
