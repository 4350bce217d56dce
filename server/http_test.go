package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGuard(t *testing.T) {
	tests := []struct {
		name    string
		cfg     func(*server.Config)
		method  string
		path    string
		headers []string
		status  int
		want    map[string]string // response headers
	}{
		{name: "loopback host passes", path: "/rpc", status: http.StatusOK},
		{name: "localhost name passes", path: "/rpc", headers: []string{"Host", "localhost:8006"}, status: http.StatusOK},
		{name: "unspecified address passes", path: "/prune", headers: []string{"Host", "0.0.0.0:8006"}, status: http.StatusOK},
		{name: "unspecified IPv6 address passes", path: "/rpc", headers: []string{"Host", "[::]:8006"}, status: http.StatusOK},
		{name: "unspecified address from a foreign origin refused", path: "/rpc", headers: []string{"Host", "0.0.0.0:8006", "Origin", "https://evil.example"}, status: http.StatusForbidden},
		{name: "rebinding host refused", path: "/rpc", headers: []string{"Host", "attacker.example:8006"}, status: http.StatusForbidden},
		{name: "rebinding host refused on /mcp", path: "/mcp", headers: []string{"Host", "attacker.example"}, status: http.StatusForbidden},
		{name: "allow-listed host passes", cfg: func(c *server.Config) { c.AllowedHosts = append(server.LoopbackHosts, "pruner.internal") },
			path: "/rpc", headers: []string{"Host", "pruner.internal:80"}, status: http.StatusOK},
		{name: "any host", cfg: func(c *server.Config) { c.AllowedHosts = []string{"*"} }, path: "/rpc", headers: []string{"Host", "x.example"}, status: http.StatusOK},
		{name: "foreign origin refused", path: "/rpc", headers: []string{"Origin", "https://evil.example"}, status: http.StatusForbidden},
		{name: "null origin refused", path: "/rpc", headers: []string{"Origin", "null"}, status: http.StatusForbidden},
		{name: "loopback origin passes", path: "/rpc", headers: []string{"Origin", "http://localhost:3000"}, status: http.StatusOK},
		{name: "allow-listed origin passes", cfg: func(c *server.Config) { c.AllowedOrigins = []string{"https://ide.example"} },
			path: "/rpc", headers: []string{"Origin", "https://ide.example"}, status: http.StatusOK},
		{name: "token required", cfg: func(c *server.Config) { c.AuthToken = "s3cret" }, path: "/rpc", status: http.StatusUnauthorized},
		{name: "wrong token", cfg: func(c *server.Config) { c.AuthToken = "s3cret" }, path: "/rpc", headers: []string{"Authorization", "Bearer nope"}, status: http.StatusUnauthorized},
		{name: "right token", cfg: func(c *server.Config) { c.AuthToken = "s3cret" }, path: "/rpc", headers: []string{"Authorization", "Bearer s3cret"}, status: http.StatusOK},
		{name: "the scheme in any case", cfg: func(c *server.Config) { c.AuthToken = "s3cret" }, path: "/rpc", headers: []string{"Authorization", "bearer s3cret"}, status: http.StatusOK},
		{name: "a scheme alone", cfg: func(c *server.Config) { c.AuthToken = "s3cret" }, path: "/rpc", headers: []string{"Authorization", "Bearer"}, status: http.StatusUnauthorized},
		{name: "token guards /prune", cfg: func(c *server.Config) { c.AuthToken = "s3cret" }, path: "/prune", status: http.StatusUnauthorized},
		{name: "health needs no token", cfg: func(c *server.Config) { c.AuthToken = "s3cret" }, method: http.MethodGet, path: "/health", status: http.StatusOK},
		{name: "CORS preflight from an allowed origin", cfg: func(c *server.Config) { c.AuthToken = "s3cret" }, method: http.MethodOptions, path: "/mcp",
			headers: []string{"Origin", "http://localhost:6274", "Access-Control-Request-Method", "POST"}, status: http.StatusNoContent,
			want: map[string]string{"Access-Control-Allow-Origin": "http://localhost:6274", "Access-Control-Allow-Headers": "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID"}},
		{name: "CORS preflight from a foreign origin", method: http.MethodOptions, path: "/mcp",
			headers: []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "POST"}, status: http.StatusForbidden},
		{name: "allowed origin can read answers", path: "/rpc", headers: []string{"Origin", "http://127.0.0.1:6274"}, status: http.StatusOK,
			want: map[string]string{"Access-Control-Allow-Origin": "http://127.0.0.1:6274"}},
		{name: "no CORS headers without Origin", path: "/rpc", status: http.StatusOK, want: map[string]string{"Access-Control-Allow-Origin": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, tc.cfg)
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
			if tc.path == "/prune" {
				body = `{"query":"q","code":"x"}`
			}
			req, err := http.NewRequest(method, env.http.URL+tc.path, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for i := 0; i+1 < len(tc.headers); i += 2 {
				if tc.headers[i] == "Host" {
					req.Host = tc.headers[i+1]
				} else {
					req.Header.Set(tc.headers[i], tc.headers[i+1])
				}
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode, "%s", b)
			assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))
			for k, v := range tc.want {
				assert.Equal(t, v, resp.Header.Get(k), k)
			}
		})
	}
}

func TestHealthEndpoint(t *testing.T) {
	env := newEnv(t, nil)
	resp, err := http.Get(env.http.URL + "/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	var h map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	assert.Equal(t, "healthy", h["status"], "satisfies the seed and SWE-Pruner")
	assert.Equal(t, true, h["model_loaded"])
	assert.Equal(t, "mcp-pruner", h["server"])
	assert.Equal(t, "2026-02-26T13:00:00Z", h["timestamp"])
	assert.Equal(t, []any{"prune_text", "recover_text", "annotations", "markers"}, h["capabilities"])
	assert.Equal(t, "keyword", h["default_scorer"])
}

func TestSWEPrune(t *testing.T) {
	env := newEnv(t, nil)
	code := codeText(120)
	t.Run("prune", func(t *testing.T) {
		status, b := post(t, env.http.URL+"/prune", string(must(json.Marshal(map[string]any{"query": "parse_header", "code": code, "threshold": 0.5}))))
		require.Equal(t, http.StatusOK, status, "%s", b)
		var r server.SWEPruneResponse
		require.NoError(t, json.Unmarshal(b, &r))
		assert.Nil(t, r.ErrorMsg)
		assert.Len(t, r.TokenScores, 120, "one [line, score] per line")
		assert.Equal(t, "def parse_header_10(raw):", r.TokenScores[9][0])
		assert.Equal(t, 1.0, r.TokenScores[9][1])
		assert.Contains(t, r.KeptFrags, 10)
		assert.Less(t, len(r.KeptFrags), 120)
		assert.Less(t, r.LeftTokenCnt, r.OriginTokenCnt)
		assert.Equal(t, r.OriginTokenCnt+2, r.ModelInputTokenCnt, "the input's tokens and the query's (cl100k_base: parse, _header)")
		assert.Equal(t, 1.0, r.Score, "the document's relevance: its best kept line's")
		assert.NotContains(t, r.PrunedCode, "│ ", "no line-number prefixes in pruned_code")
		assert.Contains(t, r.PrunedCode, "def parse_header_10(raw):")
		assert.Regexp(t, pruneIDRe, r.PruneID)
	})
	for _, tc := range []struct {
		name, body, field string
		status            int
	}{
		// FastAPI (SWE-Pruner's server) answers every one of these with 422.
		{name: "malformed JSON", body: `{"query":`, status: http.StatusUnprocessableEntity},
		{name: "not an object", body: `["x"]`, status: http.StatusUnprocessableEntity},
		{name: "missing code", body: `{"query":"x"}`, status: http.StatusUnprocessableEntity},
		{name: "missing query", body: `{"code":"a\nb"}`, status: http.StatusUnprocessableEntity},
		{name: "null query", body: `{"query":null,"code":"a"}`, status: http.StatusUnprocessableEntity},
		{name: "more after the object", body: `{"query":"x","code":"a"} garbage`, status: http.StatusUnprocessableEntity},
		{name: "a second object", body: `{"query":"x","code":"a"}{}`, status: http.StatusUnprocessableEntity},
		{name: "code of the wrong type", body: `{"query":"x","code":5}`, status: http.StatusUnprocessableEntity, field: "code"},
		{name: "threshold of the wrong type", body: `{"query":"x","code":"a","threshold":{"v":0.5}}`, status: http.StatusUnprocessableEntity, field: "threshold"},
		{name: "threshold not a number", body: `{"query":"x","code":"a","threshold":"half"}`, status: http.StatusUnprocessableEntity, field: "threshold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, b := post(t, env.http.URL+"/prune", tc.body)
			assert.Equal(t, tc.status, status)
			var r map[string]any
			require.NoError(t, json.Unmarshal(b, &r))
			assert.NotEmpty(t, r["error_msg"])
			assert.Contains(t, r, "pruned_code")
			assert.Nil(t, r["pruned_code"], "clients reading the first string among pruned_code, content, text fall back to the raw output")
			if tc.field != "" {
				assert.Contains(t, r["error_msg"], "invalid field "+tc.field, "the message names the field")
			}
		})
	}
}

// TestSWEPruneReadsLikeSWEPruner: /prune reads a request and numbers lines as SWE-Pruner's
// FastAPI server does, since its clients build and index with that server in mind.
func TestSWEPruneReadsLikeSWEPruner(t *testing.T) {
	env := newEnv(t, nil)
	prune := func(t *testing.T, path string, req map[string]any) server.SWEPruneResponse {
		t.Helper()
		status, b := post(t, env.http.URL+path, string(must(json.Marshal(req))))
		require.Equal(t, http.StatusOK, status, "%s", b)
		var r server.SWEPruneResponse
		require.NoError(t, json.Unmarshal(b, &r))
		require.Nil(t, r.ErrorMsg)
		return r
	}
	t.Run("a threshold as pydantic reads a float, clamped to 0..1", func(t *testing.T) {
		for _, th := range []any{"0.5", " 0.5 ", true, false, 3, -1, 1e300, "1e999"} {
			r := prune(t, "/prune", map[string]any{"query": "parse_header", "code": codeText(120), "threshold": th})
			assert.Contains(t, r.KeptFrags, 10, "threshold %v", th)
		}
		// Below 0 everything is kept; above 1 only what the constraints ask for.
		assert.Len(t, prune(t, "/prune", map[string]any{"query": "parse_header", "code": codeText(120), "threshold": -1}).KeptFrags, 120)
		assert.Less(t, len(prune(t, "/prune", map[string]any{"query": "parse_header", "code": codeText(120), "threshold": 3}).KeptFrags), 60)
	})
	t.Run("the fields it ignores hold anything", func(t *testing.T) {
		prune(t, "/prune", map[string]any{"query": "parse_header", "code": codeText(60), "always_keep_first_frags": "true", "chunk_overlap_tokens": 50.0})
	})
	t.Run("lines numbered by Python's splitlines", func(t *testing.T) {
		// Line 3 is a progress bar redrawn with "\r": Python counts three lines there.
		lines := strings.Split(strings.TrimSuffix(codeText(120), "\n"), "\n")
		lines[2] = "downloading 10%\r50%\r100%"
		r := prune(t, "/prune", map[string]any{"query": "parse_header", "code": strings.Join(lines, "\n") + "\n", "threshold": 0.5})
		require.Len(t, r.TokenScores, 122, "one [line, score] per Python line")
		assert.Equal(t, []any{"50%", 0.1}, r.TokenScores[3])
		assert.Equal(t, "def parse_header_10(raw):", r.TokenScores[11][0])
		assert.Contains(t, r.KeptFrags, 12, "engine line 10 is Python's line 12")
		assert.Contains(t, r.KeptFrags, 122)
		assert.NotContains(t, r.KeptFrags, 120, "Python's line 120 is engine line 118")
	})
	t.Run("a body after a byte order mark", func(t *testing.T) {
		status, b := post(t, env.http.URL+"/prune", "\xef\xbb\xbf"+string(must(json.Marshal(map[string]any{"query": "parse_header", "code": codeText(60)}))))
		assert.Equal(t, http.StatusOK, status, "%s", b)
	})
	t.Run("a trailing slash, which FastAPI redirects", func(t *testing.T) {
		assert.Contains(t, prune(t, "/prune/", map[string]any{"query": "parse_header", "code": codeText(60)}).KeptFrags, 10)
	})
}

// TestMCPStreamableHTTP talks to /mcp with the go-sdk's own client.
func TestMCPStreamableHTTP(t *testing.T) {
	env := newEnv(t, nil)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.http.URL + "/mcp"}, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Equal(t, "mcp-pruner", cs.InitializeResult().ServerInfo.Name)

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	assert.ElementsMatch(t, []string{"prune_text", "recover_text", "health"}, names)

	text := codeText(100)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "prune_text", Arguments: map[string]any{
		"text": text, "goal_hint": "parse_header", "source_type": "code",
		"options": engine.Options{MaxPruneRatio: 0.8, MinKeepLines: 5, TimeoutMS: 2000, AnnotateLines: true, IncludeMarkers: true},
	}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	payload := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, payload, "⟦PRUNÉ")
	var pr engine.Result
	require.NoError(t, json.Unmarshal([]byte(payload), &pr))
	require.NotEmpty(t, pr.Annotations)

	for _, name := range []string{"recover_text", "recover_range"} {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{
			"prune_id": pr.PruneID, "ranges": []engine.Range{{StartLine: 1, EndLine: 1000}}, "include_line_numbers": false}})
		require.NoError(t, err, name)
		var rec engine.Recovery
		require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &rec))
		assert.Equal(t, text, rec.RawText, name)
	}

	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		code int64
		data string
	}{
		{name: "not found", tool: "recover_text", args: map[string]any{"prune_id": "prn_x", "ranges": []any{}, "include_line_numbers": true}, code: -32004, data: `{"code":"prune_id_not_found","prune_id":"prn_x"}`},
		{name: "invalid range", tool: "recover_text", args: map[string]any{"prune_id": pr.PruneID, "ranges": []engine.Range{{StartLine: 0, EndLine: 2}}, "include_line_numbers": true}, code: -32005,
			data: `{"code":"invalid_range","range":{"start_line":0,"end_line":2},"max_line":100,"detail":"start_line must be >= 1"}`},
		{name: "bad arguments", tool: "prune_text", args: map[string]any{"text": 1}, code: -32602, data: `{"code":"invalid_params","field":"goal_hint"}`},
		{name: "unknown tool", tool: "nope", args: map[string]any{}, code: -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if tc.tool == "nope" {
				// A tool that does not exist is a protocol error in MCP.
				var we *jsonrpc.Error
				require.ErrorAs(t, err, &we)
				assert.Equal(t, tc.code, we.Code)
				return
			}
			// A tool's own errors are results with isError, which MCP clients show the
			// model; the go-sdk client read -32004 as its own "connection closed".
			require.NoError(t, err)
			we := toolError(t, res)
			assert.Equal(t, tc.code, we.Code)
			if tc.data != "" {
				assert.JSONEq(t, tc.data, string(we.Data))
			}
		})
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "health", Arguments: map[string]any{}})
	require.NoError(t, err, "the session survives domain errors")
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "healthy")
}

// TestStdio runs the stdio transport in-process over pipes with the go-sdk client.
func TestStdio(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c2s, s2c, done := startStdio(ctx, t, server.Config{})

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: s2c.r, Writer: c2s.w}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "health", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"status":"healthy"`)
	require.NoError(t, cs.Close())
	cancel()
	require.NoError(t, <-done)
}

type pipe struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func newPipe() pipe { r, w := io.Pipe(); return pipe{r, w} }

// startStdio runs RunStdio over two pipes until ctx ends or the client's pipe closes; done
// receives its error. cfg's engine, when nil, is a test engine.
func startStdio(ctx context.Context, t *testing.T, cfg server.Config) (c2s, s2c pipe, done chan error) {
	t.Helper()
	if cfg.Engine == nil {
		cfg.Engine, _ = newEngine(t, 10_000)
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	c2s, s2c = newPipe(), newPipe()
	done = make(chan error, 1)
	go func() { done <- srv.RunStdio(ctx, c2s.r, s2c.w) }()
	return c2s, s2c, done
}

// TestGracefulShutdown holds a prune in the scorer, cancels Serve's context, and checks that
// the request still gets its answer and that Serve then returns.
func TestGracefulShutdown(t *testing.T) {
	eng, block := newEngine(t, 10_000)
	srv, err := server.New(server.Config{Engine: eng})
	require.NoError(t, err)
	addr, cancel, served := serveListening(t, srv)

	type answer struct {
		status int
		body   []byte
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		args := strings.Replace(pruneArgs, `{"text"`, `{"scorer":"block","text"`, 1)
		status, b, err := postRaw(fmt.Sprintf("http://%s/rpc", addr), callBody("1", "prune_text", args))
		answered <- answer{status, b, err}
	}()
	<-block.started // the request is inside the engine
	cancel()        // SIGTERM
	close(block.release)
	a := <-answered
	require.NoError(t, a.err)
	assert.Equal(t, http.StatusOK, a.status)
	var res engine.Result
	toolPayload(t, decodeRPC(t, a.body), &res)
	assert.False(t, res.Stats.UsedFallback)
	require.NoError(t, <-served)
	_, err = net.Dial("tcp", addr)
	assert.Error(t, err, "the listener is closed after shutdown")
}

// TestAdmissionQueue holds the only prune slot and checks that a second prune waits at most
// its timeout_ms and then fails open with warning "timeout", without a scorer, while the
// first completes.
func TestAdmissionQueue(t *testing.T) {
	env := newEnv(t, func(c *server.Config) { c.MaxConcurrentPrunes = 1 })
	url := env.http.URL + "/rpc"
	blocked := strings.Replace(pruneArgs, `{"text"`, `{"scorer":"block","text"`, 1)
	first := make(chan []byte, 1)
	go func() {
		_, b, _ := postRaw(url, callBody("1", "prune_text", strings.Replace(blocked, `"timeout_ms":1500`, `"timeout_ms":60000`, 1)))
		first <- b
	}()
	<-env.block.started // the first prune holds the slot
	_, b := post(t, url, callBody("2", "prune_text", strings.Replace(blocked, `"timeout_ms":1500`, `"timeout_ms":50`, 1)))
	var queued engine.Result
	toolPayload(t, decodeRPC(t, b), &queued)
	assert.True(t, queued.Stats.UsedFallback)
	assert.Equal(t, []string{"timeout"}, queued.Warnings)
	close(env.block.release)
	var done engine.Result
	toolPayload(t, decodeRPC(t, <-first), &done)
	assert.False(t, done.Stats.UsedFallback)
	assert.Empty(t, env.block.started, "the queued request's scorer was never asked")
}

// elsewhereScorer is a blockingScorer that says it scores in another process, as a plugin
// does (engine.Elsewhere).
type elsewhereScorer struct{ *blockingScorer }

func (elsewhereScorer) ScoresElsewhere() bool { return true }

// TestAdmissionKeepsPluginsApart: a prune whose scorer runs in another process and waits
// there (a plugin call that hangs until its deadline) does not hold the CPU-bound slot: with
// one slot, an in-process prune is still answered. The same wait in an in-process scorer
// does hold it (TestAdmissionQueue), so the separation is what lets the second prune through.
func TestAdmissionKeepsPluginsApart(t *testing.T) {
	block := &blockingScorer{started: make(chan struct{}, 1), release: make(chan struct{})}
	remote := elsewhereScorer{&blockingScorer{started: make(chan struct{}, 1), release: make(chan struct{})}}
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	reg.Register("block", block)
	reg.Register("remote", remote)
	reg.SetDefault("keyword")
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<26, nil), Tokens: tok})
	require.NoError(t, err)
	env := newEnvEngine(t, eng, func(c *server.Config) { c.MaxConcurrentPrunes = 1 })
	url := env.http.URL + "/rpc"
	long := strings.Replace(pruneArgs, `"timeout_ms":1500`, `"timeout_ms":60000`, 1)

	first := make(chan []byte, 1)
	go func() {
		_, b, _ := postRaw(url, callBody("1", "prune_text", strings.Replace(long, `{"text"`, `{"scorer":"remote","text"`, 1)))
		first <- b
	}()
	<-remote.started // the plugin call is waiting in its process
	_, b := post(t, url, callBody("2", "prune_text", strings.Replace(pruneArgs, `"timeout_ms":1500`, `"timeout_ms":10000`, 1)))
	var local engine.Result
	toolPayload(t, decodeRPC(t, b), &local)
	assert.False(t, local.Stats.UsedFallback, "an in-process prune runs while a plugin waits: %v", local.Warnings)

	// Control: the same wait in an in-process scorer holds the slot.
	second := make(chan []byte, 1)
	go func() {
		_, b, _ := postRaw(url, callBody("3", "prune_text", strings.Replace(long, `{"text"`, `{"scorer":"block","text"`, 1)))
		second <- b
	}()
	<-block.started
	_, b = post(t, url, callBody("4", "prune_text", strings.Replace(pruneArgs, `"timeout_ms":1500`, `"timeout_ms":50`, 1)))
	var queued engine.Result
	toolPayload(t, decodeRPC(t, b), &queued)
	assert.Equal(t, []string{"timeout"}, queued.Warnings, "behind an in-process scorer, the prune waits out its timeout")

	close(remote.release)
	close(block.release)
	for _, ch := range []chan []byte{first, second} {
		var done engine.Result
		toolPayload(t, decodeRPC(t, <-ch), &done)
		assert.False(t, done.Stats.UsedFallback)
	}
}

// TestWrongMethod: another method on a known path is a 405 that names the right one; an
// unknown path is a 404 that lists the endpoints.
func TestWrongMethod(t *testing.T) {
	env := newEnv(t, nil)
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/prune", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPut, "/prune", http.StatusMethodNotAllowed, "POST"},
		{http.MethodDelete, "/health", http.StatusMethodNotAllowed, "GET"},
		{http.MethodPost, "/health", http.StatusMethodNotAllowed, "GET"},
		{http.MethodGet, "/rpc", http.StatusMethodNotAllowed, "POST"},
		{http.MethodHead, "/health", http.StatusOK, ""},
		{http.MethodGet, "/nope", http.StatusNotFound, ""},
	} {
		req, err := http.NewRequest(tc.method, env.http.URL+tc.path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, tc.status, resp.StatusCode, "%s %s: %s", tc.method, tc.path, b)
		assert.Equal(t, tc.allow, resp.Header.Get("Allow"), "%s %s", tc.method, tc.path)
		if tc.status == http.StatusNotFound {
			assert.Contains(t, string(b), "POST /prune", "a 404 lists the endpoints")
		}
	}
}
