package server_test

import (
	"context"
	"io"
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

// TestClientHangUpIsNotAnError: a client that gives up while its prune waits for a slot was
// logged at ERROR as an internal error (-32603), paging operators for clients' timeouts.
func TestClientHangUpIsNotAnError(t *testing.T) {
	var logged syncBuffer
	env := newEnv(t, func(c *server.Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logged, nil))
		c.MaxConcurrentPrunes = 1
	})
	held := make(chan struct{})
	go func() {
		defer close(held)
		post(t, env.http.URL+"/rpc", callBody("1", "prune_text", strings.Replace(pruneArgs, `{"text"`, `{"scorer":"block","text"`, 1)))
	}()
	<-env.block.started // the one slot is taken
	// The second prune waits for the slot; its client hangs up once the server has read it.
	ctx, cancel := context.WithCancel(context.Background())
	body := &endSignal{Reader: strings.NewReader(callBody("2", "prune_text", pruneArgs)), end: cancel}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.http.URL+"/rpc", body)
	require.NoError(t, err)
	req.ContentLength = int64(body.Reader.(*strings.Reader).Len())
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err)
	require.Eventually(t, func() bool { return strings.Contains(logged.String(), "cancelled_by_client=true") }, 5*time.Second, 10*time.Millisecond, "%s", logged.String())
	assert.NotContains(t, logged.String(), "level=ERROR")
	close(env.block.release)
	<-held
}

// endSignal calls end once its reader is read to the end.
type endSignal struct {
	io.Reader
	end func()
}

func (r *endSignal) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	if err == io.EOF {
		r.end()
	}
	return n, err
}
