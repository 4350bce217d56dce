package onnx_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloseDuringScore closes a scorer while goroutines score with it in a loop: runs in
// flight finish, later ones fail with ErrClosed, and nothing touches the destroyed session
// (run with -race; before the lock this panicked in RunWithOptions).
func TestCloseDuringScore(t *testing.T) {
	lines := make([]string, 200)
	for i := range lines {
		lines[i] = fmt.Sprintf("return the bugs in parser %d", i)
	}
	req := &engine.ScoreRequest{Lines: lines, Goal: "find bug", SourceType: engine.SourceCode}
	tests := []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"line features", func(t *testing.T) string { return writeLineModel(t, tinyModel(), nil) }},
		{"cross encoder", func(t *testing.T) string { return writeCrossEncoder(t, 64, 8) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, tt.dir(t))
			const workers = 4
			var started, done sync.WaitGroup
			started.Add(workers)
			errs := make([]error, workers)
			for w := range workers {
				done.Add(1)
				go func() {
					defer done.Done()
					first := true
					for {
						_, err := s.Score(context.Background(), req)
						if first {
							first = false
							started.Done()
						}
						if err != nil {
							errs[w] = err
							return
						}
					}
				}()
			}
			started.Wait() // every worker has scored once and is scoring again
			require.NoError(t, s.Close())
			done.Wait()
			for w, err := range errs {
				assert.ErrorIs(t, err, onnx.ErrClosed, "worker %d", w)
			}
			require.NoError(t, s.Close(), "a second Close is a no-op")
			_, err := s.Score(context.Background(), req)
			assert.ErrorIs(t, err, onnx.ErrClosed)
			_, err = s.Score(context.Background(), &engine.ScoreRequest{Goal: "find bug"})
			assert.ErrorIs(t, err, onnx.ErrClosed, "even with no lines")
		})
	}
}
