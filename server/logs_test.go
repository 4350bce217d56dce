package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// shortScorer answers one score too few: a malformed answer the engine fails open on.
type shortScorer struct{}

func (shortScorer) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	return &engine.ScoreResponse{Scores: make([]float64, len(req.Lines)-1)}, nil
}

// TestFallbackLogNamesScorerAndError: when a scorer fails, the client sees only the warning
// code, and the request's log line says which scorer failed and why, on /rpc and /prune alike.
func TestFallbackLogNamesScorerAndError(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	reg.Register("short", shortScorer{})
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: tok})
	require.NoError(t, err)
	var logged syncBuffer
	env := newEnvEngine(t, eng, func(c *server.Config) { c.Logger = slog.New(slog.NewTextHandler(&logged, nil)) })
	const why = `fallback_error="bad scores: 3 scores for 4 lines"`

	status, b := post(t, env.http.URL+"/rpc", callBody("1", "prune_text", strings.Replace(pruneArgs, `{"text"`, `{"scorer":"short","text"`, 1)))
	require.Equal(t, http.StatusOK, status)
	var res engine.Result
	payload := toolPayload(t, decodeRPC(t, b), &res)
	assert.Equal(t, []string{"scorer_error"}, res.Warnings)
	assert.NotContains(t, payload, "bad scores", "the reason is the operator's, not on the wire")
	assert.Regexp(t, `transport=rpc tool=prune_text .*scorer=short fallback=scorer_error `+why, logged.String())

	status, b = post(t, env.http.URL+"/prune", `{"query":"L1","code":"L1\nL2\nL3\nL4","scorer":"short"}`)
	require.Equal(t, http.StatusOK, status, "%s", b)
	assert.NotContains(t, string(b), "bad scores")
	assert.Regexp(t, `transport=swe-prune tool=prune .*scorer=short fallback=scorer_error `+why, logged.String())
}
