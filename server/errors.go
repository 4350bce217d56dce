package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// JSON-RPC error codes: the standard ones and the seed's domain codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeNotFound       = -32004 // prune_id_not_found
	codeInvalidRange   = -32005 // invalid_range
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

type unknownToolError struct{ name string }

func (e *unknownToolError) Error() string {
	return fmt.Sprintf("unknown tool %q: name must be one of prune_text, recover_text, health", e.name)
}

// fieldData is error.data for -32602.
type fieldData struct {
	Code  string `json:"code"`
	Field string `json:"field,omitempty"`
	Tool  string `json:"tool,omitempty"`
}

// rangeData is error.data for -32005.
type rangeData struct {
	Code    string        `json:"code"`
	Range   *engine.Range `json:"range,omitempty"`
	MaxLine int           `json:"max_line"`
	Detail  string        `json:"detail,omitempty"`
}

// toRPCError maps an error from a tool call to its JSON-RPC error. This is the only place
// that decides codes.
func toRPCError(err error) *rpcError {
	var (
		re  *rpcError
		fe  *engine.FieldError
		nf  *engine.NotFoundError
		rng *engine.RangeError
		ut  *unknownToolError
	)
	switch {
	case errors.As(err, &re):
		return re
	case errors.As(err, &ut):
		return &rpcError{Code: codeInvalidParams, Message: err.Error(), Data: fieldData{Code: "unknown_tool", Field: "name", Tool: ut.name}}
	case errors.As(err, &fe):
		return &rpcError{Code: codeInvalidParams, Message: fe.Error(), Data: fieldData{Code: "invalid_params", Field: fe.Field}}
	case errors.Is(err, engine.ErrUnknownScorer), errors.Is(err, engine.ErrScorerNotAllowed):
		return &rpcError{Code: codeInvalidParams, Message: "invalid scorer: " + err.Error(), Data: fieldData{Code: "invalid_params", Field: "scorer"}}
	case errors.As(err, &nf):
		return &rpcError{Code: codeNotFound, Message: "prune_id_not_found", Data: map[string]string{"code": "prune_id_not_found", "prune_id": nf.PruneID}}
	case errors.Is(err, engine.ErrPruneIDNotFound):
		return &rpcError{Code: codeNotFound, Message: "prune_id_not_found", Data: map[string]string{"code": "prune_id_not_found"}}
	case errors.As(err, &rng):
		d := rangeData{Code: "invalid_range", MaxLine: rng.MaxLine, Detail: rng.Problem}
		if rng.Range != (engine.Range{}) {
			r := rng.Range
			d.Range = &r
		}
		return &rpcError{Code: codeInvalidRange, Message: "invalid_range", Data: d}
	case errors.Is(err, engine.ErrInvalidRange):
		return &rpcError{Code: codeInvalidRange, Message: "invalid_range", Data: map[string]string{"code": "invalid_range"}}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &rpcError{Code: codeInternal, Message: "request cancelled: " + err.Error(), Data: map[string]string{"code": "timeout"}}
	default:
		return &rpcError{Code: codeInternal, Message: "internal error: " + err.Error(), Data: map[string]string{"code": "internal_error"}}
	}
}
