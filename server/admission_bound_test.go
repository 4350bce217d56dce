package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// busyScorer works until gate is closed before it looks at ctx, as the heuristic's analysis
// of a long text does; it records how many Score calls run at once.
type busyScorer struct {
	gate                chan struct{}
	calls, running, top atomic.Int32
}

func (s *busyScorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	s.calls.Add(1)
	now := s.running.Add(1)
	defer s.running.Add(-1)
	for top := s.top.Load(); now > top && !s.top.CompareAndSwap(top, now); top = s.top.Load() {
	}
	<-s.gate
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &engine.ScoreResponse{Scores: make([]float64, len(req.Lines))}, nil
}

// TestConcurrentPrunesBoundScorersPastTheirDeadline sends 16 prunes with timeout_ms 50 to a
// server that runs one at a time, over a scorer that overruns every deadline (a review found
// 16 Score calls at once). Each answer is the timeout fail-open; the scorer runs once: the
// first prune's scorer holds the only slot until it returns, and the others, timed out in
// line, are answered without one.
func TestConcurrentPrunesBoundScorersPastTheirDeadline(t *testing.T) {
	sc := &busyScorer{gate: make(chan struct{})}
	reg := engine.NewRegistry()
	reg.Register("busy", sc)
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<26, nil), Tokens: tok})
	require.NoError(t, err)
	env := newEnvEngine(t, eng, func(c *server.Config) { c.MaxConcurrentPrunes = 1 })

	args, err := json.Marshal(map[string]any{"text": strings.Repeat("line\n", 100), "goal_hint": "y", "source_type": "code",
		"options": map[string]any{"max_prune_ratio": 0.5, "min_keep_lines": 0, "timeout_ms": 50, "annotate_lines": false, "include_markers": true}})
	require.NoError(t, err)
	body := callBody("1", "prune_text", string(args))
	answers := make([][]byte, 16)
	errs := make([]error, 16)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, answers[i], errs[i] = postRaw(env.http.URL+"/rpc", body)
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, sc.top.Load(), int32(1), "Score calls at once under a bound of 1")
	assert.LessOrEqual(t, sc.calls.Load(), int32(1), "Score calls while the first still runs")
	close(sc.gate)
	for i, b := range answers {
		require.NoError(t, errs[i])
		var res engine.Result
		toolPayload(t, decodeRPC(t, b), &res)
		assert.True(t, res.Stats.UsedFallback)
		assert.Equal(t, []string{engine.WarnTimeout}, res.Warnings)
	}
}
