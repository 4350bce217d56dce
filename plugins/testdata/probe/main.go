// Command probe is a scorer plugin that reports on its own start, for the plugins package's
// tests. Its description carries the value of PROBE_FOO it was started with. When
// PROBE_GATE names a path, Describe first creates PROBE_GATE+".entered" holding its pid and then waits
// until the path exists, so a test can hold a start in progress for as long as it likes.
package main

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins"
)

type probe struct{}

func (probe) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	return &engine.ScoreResponse{Scores: make([]float64, len(req.Lines))}, nil
}

func (probe) Describe() engine.ScorerInfo {
	if gate := os.Getenv("PROBE_GATE"); gate != "" {
		_ = os.WriteFile(gate+".entered", []byte(strconv.Itoa(os.Getpid())), 0o600)
		for {
			if _, err := os.Stat(gate); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return engine.ScorerInfo{Name: "probe", Description: "FOO=" + os.Getenv("PROBE_FOO"), Threshold: 0.4}
}

func main() { plugins.Serve(probe{}) }
