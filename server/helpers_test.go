package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
	"github.com/stretchr/testify/require"
)

// keywordScorer scores a line 1 when it contains a word (3+ letters) of the goal, else 0.1:
// enough to make the engine cut predictable runs without depending on the real scorers.
type keywordScorer struct{}

var _ engine.Scorer = keywordScorer{}

func (keywordScorer) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(req.Goal)) {
		if len(w) >= 3 {
			words = append(words, w)
		}
	}
	scores := make([]float64, len(req.Lines))
	for i, l := range req.Lines {
		scores[i] = 0.1
		for _, w := range words {
			if strings.Contains(strings.ToLower(l), w) {
				scores[i] = 1
			}
		}
	}
	return &engine.ScoreResponse{Scores: scores, Focus: words}, nil
}

// blockingScorer signals started and waits for release, so a test can hold a request
// in flight without sleeping.
type blockingScorer struct {
	started chan struct{}
	release chan struct{}
}

func (b *blockingScorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	b.started <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return keywordScorer{}.Score(ctx, req)
}

type testEnv struct {
	srv   *server.Server
	http  *httptest.Server
	block *blockingScorer
}

func newEngine(t testing.TB, maxChars int) (*engine.Engine, *blockingScorer) {
	t.Helper()
	return newEngineStore(t, maxChars, engine.NewMemoryStore(time.Minute, 1<<26, nil))
}

// newEngineStore is newEngine with the given recovery store.
func newEngineStore(t testing.TB, maxChars int, store engine.Store) (*engine.Engine, *blockingScorer) {
	t.Helper()
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	block := &blockingScorer{started: make(chan struct{}, 1), release: make(chan struct{})}
	reg.Register("block", block)
	reg.SetDefault("keyword")
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	eng, err := engine.New(engine.Config{
		Registry: reg, Store: store, Tokens: tok, MaxInputChars: maxChars,
	})
	require.NoError(t, err)
	return eng, block
}

func newEnv(t testing.TB, mutate func(*server.Config)) *testEnv {
	t.Helper()
	return newEnvChars(t, 10_000, mutate)
}

func newEnvChars(t testing.TB, maxChars int, mutate func(*server.Config)) *testEnv {
	t.Helper()
	eng, block := newEngine(t, maxChars)
	env := newEnvEngine(t, eng, mutate)
	env.block = block
	return env
}

// newEnvEngine is newEnv serving eng.
func newEnvEngine(t testing.TB, eng *engine.Engine, mutate func(*server.Config)) *testEnv {
	t.Helper()
	cfg := server.Config{Engine: eng, Version: "test", Now: func() time.Time { return time.Date(2026, 2, 26, 13, 0, 0, 0, time.UTC) }}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &testEnv{srv: srv, http: hs}
}

type serverConfig = server.Config

// post sends body to url with the seed's curl header and returns status and body.
func post(t testing.TB, url, body string, headers ...string) (int, []byte) {
	t.Helper()
	status, b, err := postRaw(url, body, headers...)
	require.NoError(t, err)
	return status, b
}

// postRaw is post for goroutines, which must not call t.FailNow.
func postRaw(url, body string, headers ...string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// rpcResp is a decoded JSON-RPC answer.
type rpcResp struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64          `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func decodeRPC(t testing.TB, b []byte) rpcResp {
	t.Helper()
	var r rpcResp
	require.NoError(t, json.Unmarshal(b, &r), "body: %s", b)
	return r
}

// toolPayload extracts result.content[0].text and decodes it into dst.
func toolPayload(t testing.TB, r rpcResp, dst any) string {
	t.Helper()
	require.Nil(t, r.Error, "unexpected error")
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &res))
	require.Len(t, res.Content, 1)
	require.Equal(t, "text", res.Content[0].Type)
	require.NoError(t, json.Unmarshal([]byte(res.Content[0].Text), dst))
	require.JSONEq(t, res.Content[0].Text, string(res.StructuredContent))
	return res.Content[0].Text
}

// codeText returns n lines where every 10th mentions parse_header.
func codeText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i%10 == 0 {
			b.WriteString("def parse_header_" + itoa(i) + "(raw):\n")
		} else {
			b.WriteString("    value_" + itoa(i) + " = compute(" + itoa(i) + ")\n")
		}
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
