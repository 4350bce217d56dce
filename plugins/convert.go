package plugins

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins/internal/scorerpb"
)

func requestToPB(r *engine.ScoreRequest) *scorerpb.ScoreRequest {
	return &scorerpb.ScoreRequest{
		Lines:      stringsToBytes(r.Lines),
		Goal:       []byte(r.Goal),
		SourceType: string(r.SourceType),
		Path:       []byte(r.Path),
		Language:   []byte(r.Language),
	}
}

func requestFromPB(r *scorerpb.ScoreRequest) *engine.ScoreRequest {
	return &engine.ScoreRequest{
		Lines:      bytesToStrings(r.GetLines()),
		Goal:       string(r.GetGoal()),
		SourceType: engine.SourceType(r.GetSourceType()),
		Path:       string(r.GetPath()),
		Language:   string(r.GetLanguage()),
	}
}

func responseToPB(r *engine.ScoreResponse) *scorerpb.ScoreResponse {
	return &scorerpb.ScoreResponse{Scores: r.Scores, Focus: stringsToBytes(r.Focus), Warnings: r.Warnings, Threshold: r.Threshold}
}

func responseFromPB(r *scorerpb.ScoreResponse) *engine.ScoreResponse {
	scores := r.GetScores()
	if scores == nil {
		// An empty repeated field arrives as nil; in-process scorers answer [] for no lines.
		scores = []float64{}
	}
	return &engine.ScoreResponse{Scores: scores, Focus: bytesToStrings(r.GetFocus()), Warnings: r.GetWarnings(), Threshold: r.Threshold}
}

func stringsToBytes(in []string) [][]byte {
	if in == nil {
		return nil
	}
	out := make([][]byte, len(in))
	for i, s := range in {
		out[i] = []byte(s)
	}
	return out
}

func bytesToStrings(in [][]byte) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, b := range in {
		out[i] = string(b)
	}
	return out
}

// Errors cross the process boundary as gRPC status codes so errors.Is keeps working on the
// host:
//
//	context.DeadlineExceeded  <-> codes.DeadlineExceeded
//	context.Canceled          <-> codes.Canceled
//	engine.ErrBadScores       <-> codes.DataLoss
//	anything else             <-> codes.Unknown (message kept)
func errorToStatus(err error) error {
	code := codes.Unknown
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, engine.ErrBadScores):
		code = codes.DataLoss
	}
	return status.Error(code, err.Error())
}

// errorFromStatus is errorToStatus's inverse for an error a live plugin returned.
func errorFromStatus(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.DeadlineExceeded:
		return fmt.Errorf("%s: %w", st.Message(), context.DeadlineExceeded)
	case codes.Canceled:
		return fmt.Errorf("%s: %w", st.Message(), context.Canceled)
	case codes.DataLoss:
		return fmt.Errorf("%s: %w", st.Message(), engine.ErrBadScores)
	case codes.Unavailable:
		return fmt.Errorf("%s: %w", st.Message(), ErrUnavailable)
	}
	return errors.New(st.Message())
}
