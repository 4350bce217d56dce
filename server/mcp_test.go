package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPCallErrors checks that a tools/call that fails gets, over /mcp and over stdio, the
// error /rpc answers to the same call (the same code, message and data): as a JSON-RPC error
// for a tool that does not exist, as MCP says, and otherwise as a result with isError whose
// text is {"error": …}, so that MCP clients show it to the model.
func TestMCPCallErrors(t *testing.T) {
	env := newEnv(t, nil)
	ctx := context.Background()
	sessions := connectBoth(t, env.http.URL, server.Config{})
	_, b := post(t, env.http.URL+"/rpc", callBody("1", "prune_text", pruneArgs))
	var pr engine.Result
	toolPayload(t, decodeRPC(t, b), &pr)

	for _, tc := range []struct {
		name     string
		tool     string
		args     string
		protocol bool // a JSON-RPC error, not an isError result
	}{
		{name: "unknown tool", tool: "nope", args: `{}`, protocol: true},
		{name: "empty tool name", tool: "", args: `{}`, protocol: true},
		{name: "bad arguments", tool: "prune_text", args: `{"text":1}`},
		{name: "unknown argument", tool: "health", args: `{"verbose":true}`},
		{name: "missing arguments", tool: "prune_text", args: `{"text":"x","goal_hint":"y"}`},
		{name: "invalid range", tool: "recover_text", args: `{"prune_id":"ID","ranges":[{"start_line":0,"end_line":2}],"include_line_numbers":true}`},
		{name: "prune_id not found", tool: "recover_text", args: `{"prune_id":"prn_x","ranges":[],"include_line_numbers":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, b := post(t, env.http.URL+"/rpc", callBody("1", tc.tool, strings.Replace(tc.args, `"ID"`, `"`+pr.PruneID+`"`, 1)))
			want := decodeRPC(t, b).Error
			require.NotNil(t, want, "/rpc refuses the call: %s", b)
			wantData, err := json.Marshal(want.Data)
			require.NoError(t, err)
			for transport, cs := range sessions {
				// Each transport recovers the prune_id of its own prune of the same text
				// (the stdio server has a store of its own).
				var prArgs map[string]any
				require.NoError(t, json.Unmarshal([]byte(pruneArgs), &prArgs))
				pres, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "prune_text", Arguments: prArgs})
				require.NoError(t, err, transport)
				var own engine.Result
				require.NoError(t, json.Unmarshal([]byte(pres.Content[0].(*mcp.TextContent).Text), &own))
				var args map[string]any
				require.NoError(t, json.Unmarshal([]byte(strings.Replace(tc.args, `"ID"`, `"`+own.PruneID+`"`, 1)), &args))
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: args})
				if tc.protocol {
					var got *jsonrpc.Error
					require.ErrorAs(t, err, &got, transport)
					assert.Equal(t, want.Code, got.Code, transport)
					assert.Equal(t, want.Message, got.Message, transport)
					assert.JSONEq(t, string(wantData), string(got.Data), transport)
					continue
				}
				require.NoError(t, err, transport)
				got := toolError(t, res)
				assert.Equal(t, want.Code, got.Code, transport)
				if want.Code == -32004 {
					assert.True(t, strings.HasPrefix(got.Message, want.Message+": "), "%s: %q says why an id is not found", transport, got.Message)
				} else {
					assert.Equal(t, want.Message, got.Message, transport)
				}
				assert.JSONEq(t, string(wantData), string(got.Data), transport)
			}
		})
	}
}

// toolError decodes the error of a result with isError, from its text, and checks that its
// structuredContent says the same.
func toolError(t *testing.T, res *mcp.CallToolResult) (e struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}) {
	t.Helper()
	require.True(t, res.IsError, "an isError result")
	text := res.Content[0].(*mcp.TextContent).Text
	var body struct {
		Error *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &body), text)
	require.NotNil(t, body.Error, text)
	structured, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	assert.JSONEq(t, text, string(structured))
	e.Code, e.Message, e.Data = body.Error.Code, body.Error.Message, body.Error.Data
	return e
}

// connectBoth connects an MCP client to the server at base's /mcp and to a stdio server of
// cfg, and returns the two sessions by transport name; both end with the test.
func connectBoth(t *testing.T, base string, cfg server.Config) map[string]*mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	overHTTP, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	require.NoError(t, err)
	c2s, s2c, done := startStdio(ctx, t, cfg)
	overStdio, err := client.Connect(ctx, &mcp.IOTransport{Reader: s2c.r, Writer: c2s.w}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		overHTTP.Close()
		overStdio.Close()
		<-done
		cancel()
	})
	return map[string]*mcp.ClientSession{"mcp": overHTTP, "stdio": overStdio}
}

// panickyStore is a recovery store whose Get panics: a bug below a tool call.
type panickyStore struct{ engine.Store }

func (panickyStore) Get(context.Context, string) (string, error) { panic("store bug") }

// TestMCPToolPanicIsContained: a panic in a tool call fails that call with an internal error
// (-32603) and the server goes on serving, over /mcp and stdio alike. The SDK runs each call
// on a goroutine of its own, outside net/http's recover, so a panic there would end the
// process and every client's session with it.
func TestMCPToolPanicIsContained(t *testing.T) {
	eng, _ := newEngineStore(t, 10_000, panickyStore{engine.NewMemoryStore(time.Minute, 1<<20, nil)})
	env := newEnvEngine(t, eng, nil)
	ctx := context.Background()
	for transport, cs := range connectBoth(t, env.http.URL, server.Config{Engine: eng}) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recover_text", Arguments: map[string]any{
			"prune_id": "prn_1", "ranges": []any{}, "include_line_numbers": false}})
		require.NoError(t, err, transport)
		we := toolError(t, res)
		assert.Equal(t, int64(-32603), we.Code, transport)
		assert.Contains(t, we.Message, "store bug", transport)
		assert.JSONEq(t, `{"code":"internal_error"}`, string(we.Data), transport)
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "health", Arguments: map[string]any{}})
		require.NoError(t, err, "%s: the server still answers", transport)
		assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "healthy", transport)
	}
}

// mcpPost posts one JSON-RPC message to /mcp as a Streamable HTTP client does, in the session
// sid when it is not empty, and returns the status and the session id the server gave.
func mcpPost(t *testing.T, url, sid, body string) (status int, session string) {
	t.Helper()
	resp, _ := mcpPostRead(t, url, sid, strings.NewReader(body))
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// mcpPostRead is mcpPost for any body (one of unknown length is sent chunked), returning the
// response with its body read.
func mcpPostRead(t *testing.T, url, sid string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestMCPSessionsAreBounded: clients that open sessions and never end them (the TypeScript
// SDK's close() sends no DELETE; a script may initialize for every call) do not pile sessions
// up until their idle timeout. Past MaxSessions, a new session closes the one least recently
// used among those with no request in flight, and a session busy with a call is left alone.
func TestMCPSessionsAreBounded(t *testing.T) {
	const max = 4
	env := newEnv(t, func(c *server.Config) { c.MaxSessions = max })
	url := env.http.URL + "/mcp"

	// A session whose call is in flight while the others come and go. It is made with raw
	// requests: the SDK's client first probes a newer protocol with a request that makes a
	// session of its own and may stay in flight a while, holding a place under the bound.
	status, busy := mcpPost(t, url, "", mcpInitialize)
	require.Equal(t, http.StatusOK, status)
	status, _ = mcpPost(t, url, busy, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, status)
	args, err := json.Marshal(map[string]any{
		"text": codeText(30), "goal_hint": "parse_header", "source_type": "code", "scorer": "block",
		"options": engine.Options{MaxPruneRatio: 0.8, MinKeepLines: 1, TimeoutMS: 60_000, IncludeMarkers: true},
	})
	require.NoError(t, err)
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"prune_text","arguments":`+string(args)+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", busy)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(b)
	}()
	<-env.block.started

	var sessions []string
	for range 3 * max {
		status, sid := mcpPost(t, url, "", mcpInitialize)
		require.Equal(t, http.StatusOK, status)
		require.NotEmpty(t, sid)
		sessions = append(sessions, sid)
	}
	var live []string
	for _, sid := range sessions {
		// A notification: it answers 202 in a live session, 404 in a closed one, and does not
		// make room for anything.
		status, _ := mcpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		require.Contains(t, []int{http.StatusAccepted, http.StatusNotFound}, status)
		if status == http.StatusAccepted {
			live = append(live, sid)
		}
	}
	assert.Equal(t, sessions[len(sessions)-(max-1):], live, "the newest sessions are open, beside the busy one; the older ones were closed")

	close(env.block.release)
	assert.Contains(t, <-answered, `"result"`, "the session busy with a call was not closed under it")
	resp, body := mcpPostRead(t, url, busy, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"health","arguments":{}}}`))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `"result"`)
}

// TestMCPOnlyInitializeMakesRoom: at the session cap, only an initialize closes a session to
// make room: a sessionless ping, notification or bad JSON, which open none, used to close a
// live one each.
func TestMCPOnlyInitializeMakesRoom(t *testing.T) {
	const max = 2
	env := newEnv(t, func(c *server.Config) { c.MaxSessions = max })
	url := env.http.URL + "/mcp"
	var sessions []string
	for range max {
		status, sid := mcpPost(t, url, "", mcpInitialize)
		require.Equal(t, http.StatusOK, status)
		sessions = append(sessions, sid)
	}
	for _, body := range []string{`{"jsonrpc":"2.0","id":9,"method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{not json`} {
		mcpPost(t, url, "", body)
	}
	for _, sid := range sessions {
		status, _ := mcpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		assert.Equal(t, http.StatusAccepted, status, "session %s is still open", sid)
	}
	// An initialize still makes room: the least recently used session closes.
	status, _ := mcpPost(t, url, "", mcpInitialize)
	require.Equal(t, http.StatusOK, status)
	status, _ = mcpPost(t, url, sessions[0], `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	assert.Equal(t, http.StatusNotFound, status)
}

// TestMCPSessionErrorsHaveACode: over Streamable HTTP too, the SDK's code-0 answer to a second
// initialize in a session reaches the client as -32600 Invalid Request; the rest of the event
// is as the SDK wrote it.
func TestMCPSessionErrorsHaveACode(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/mcp"
	status, sid := mcpPost(t, url, "", mcpInitialize)
	require.Equal(t, http.StatusOK, status)
	resp, body := mcpPostRead(t, url, sid, strings.NewReader(strings.Replace(mcpInitialize, `"id":1`, `"id":7`, 1)))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32600,\"message\":\"duplicate \\\"initialize\\\" received\"}}\n\n", string(body))
}

// TestMCPOversizedBodyIsInputTooLarge: a body over the limit gets, on /mcp, the JSON-RPC error
// /rpc gives it (input_too_large with the limit), under /mcp's HTTP 413, whether the client
// announced its length or streamed it; the SDK's answer was a line of plain text.
func TestMCPOversizedBodyIsInputTooLarge(t *testing.T) {
	const limit = 4096
	env := newEnv(t, func(c *server.Config) { c.MaxBodyBytes = limit })
	status, sid := mcpPost(t, env.http.URL+"/mcp", "", mcpInitialize)
	require.Equal(t, http.StatusOK, status)
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"prune_text","arguments":{"text":"` + strings.Repeat("x", 2*limit) + `"}}}`

	resp, err := http.Post(env.http.URL+"/rpc", "application/json", strings.NewReader(big))
	require.NoError(t, err)
	want, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(want), `"input_too_large"`)

	for _, streamed := range []bool{false, true} {
		var body io.Reader = strings.NewReader(big)
		if streamed {
			body = io.MultiReader(body) // no length known: sent chunked
		}
		resp, got := mcpPostRead(t, env.http.URL+"/mcp", sid, body)
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "streamed %v", streamed)
		assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), "streamed %v", streamed)
		assert.Equal(t, string(want), string(got), "streamed %v", streamed)
	}
	status, _ = mcpPost(t, env.http.URL+"/mcp", sid, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	assert.Equal(t, http.StatusOK, status, "the session outlives the refused body")
}

// TestMCPUnknownMethodIsMethodNotFound: /mcp answered a method the SDK does not know (a
// legacy prune_text, a typo) with HTTP 400 and a line of plain text, where /rpc and stdio
// answer JSON-RPC's -32601 with the request's id. A batch keeps the SDK's answer.
func TestMCPUnknownMethodIsMethodNotFound(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/mcp"
	status, sid := mcpPost(t, url, "", mcpInitialize)
	require.Equal(t, http.StatusOK, status)
	mcpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct{ body, id, method string }{
		{`{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{}}`, "7", "foo/bar"},
		{`{"jsonrpc":"2.0","method":"prune_text","id":"a-1","params":{"text":"x"}}`, `"a-1"`, "prune_text"},
	} {
		resp, b := mcpPostRead(t, url, sid, strings.NewReader(tc.body))
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
		assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json"), resp.Header.Get("Content-Type"))
		r := decodeRPC(t, b)
		assert.JSONEq(t, tc.id, string(r.ID))
		require.NotNil(t, r.Error, "%s", b)
		assert.Equal(t, int64(-32601), r.Error.Code)
		assert.Equal(t, tc.method, r.Error.Data["method"])
	}
	resp, _ := mcpPostRead(t, url, sid, strings.NewReader(`[{"jsonrpc":"2.0","id":8,"method":"foo/bar"}]`))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a batch keeps the SDK's answer")
	resp, b := mcpPostRead(t, url, sid, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/foo"}`))
	assert.Equal(t, http.StatusAccepted, resp.StatusCode, "a notification gets no answer")
	assert.Empty(t, b)
	// An id past the head (the TypeScript SDK writes it last) is not guessed at.
	long := `{"jsonrpc":"2.0","method":"foo/bar","params":{"pad":"` + strings.Repeat("x", 5000) + `"},"id":9}`
	resp, _ = mcpPostRead(t, url, sid, strings.NewReader(long))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "the SDK's answer, not one with a null id")
	status, _ = mcpPost(t, url, sid, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	assert.Equal(t, http.StatusOK, status, "the session goes on")
}

// TestMCPTextContent: with Config.MCPText, a prune_text result's text content is the pruned
// text itself (its markers name what to recover), and a recover_text result's the lines;
// the payload stays in structuredContent. A text returned unchanged says so on a last line.
// The JSON payload as text cost a model more tokens than the raw text whenever little was
// cut: escaping, and annotations repeating every marker.
func TestMCPTextContent(t *testing.T) {
	env := newEnv(t, func(c *server.Config) { c.MCPText = true })
	ctx := context.Background()
	eng, _ := newEngine(t, 10_000)
	text := codeText(100)
	for transport, cs := range connectBoth(t, env.http.URL, server.Config{Engine: eng, MCPText: true}) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "prune_text", Arguments: map[string]any{
			"text": text, "goal_hint": "parse_header", "source_type": "code",
			"options": engine.Options{MaxPruneRatio: 0.8, MinKeepLines: 5, TimeoutMS: 2000, IncludeMarkers: true},
		}})
		require.NoError(t, err, transport)
		require.False(t, res.IsError, transport)
		var pr engine.Result
		structured, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(structured, &pr), transport)
		require.NotEmpty(t, pr.Annotations, transport)
		assert.Equal(t, pr.PrunedText, res.Content[0].(*mcp.TextContent).Text, transport)

		rec, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recover_text", Arguments: map[string]any{
			"prune_id": pr.PruneID, "ranges": []engine.Range{{StartLine: 2, EndLine: 3}}, "include_line_numbers": true}})
		require.NoError(t, err, transport)
		lines := strings.Split(text, "\n")
		assert.Equal(t, "2│ "+lines[1]+"\n3│ "+lines[2], rec.Content[0].(*mcp.TextContent).Text, transport)

		// Without markers, a last line says lines were cut and which prune_id recovers them.
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "prune_text", Arguments: map[string]any{
			"text": text, "goal_hint": "parse_header", "source_type": "code",
			"options": engine.Options{MaxPruneRatio: 0.8, MinKeepLines: 5, TimeoutMS: 2000},
		}})
		require.NoError(t, err, transport)
		assert.Regexp(t, `\n\[mcp-pruner: \d+ lines cut without markers, prune_id prn_\d{32}\]$`, res.Content[0].(*mcp.TextContent).Text, transport)
		// Even when a kept line quotes a marker; and a CRLF text's last line ends in CRLF.
		quoting := strings.ReplaceAll(text, "\n", "\r\n") + "# parse_header's cuts read ⟦PRUNÉ: prune_id=prn_1 lignes 1-2 (2) raison=x⟧"
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "prune_text", Arguments: map[string]any{
			"text": quoting, "goal_hint": "parse_header", "source_type": "code",
			"options": engine.Options{MaxPruneRatio: 0.8, MinKeepLines: 5, TimeoutMS: 2000},
		}})
		require.NoError(t, err, transport)
		assert.Regexp(t, `raison=x⟧\r\n\[mcp-pruner: \d+ lines cut without markers, prune_id prn_\d{32}\]$`, res.Content[0].(*mcp.TextContent).Text, transport)

		big := strings.Repeat("a line of text\n", 800) // past the 10,000-character limit
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "prune_text", Arguments: map[string]any{
			"text": big, "goal_hint": "x", "source_type": "logs",
			"options": engine.Options{MaxPruneRatio: 0.5, MinKeepLines: 1, TimeoutMS: 2000, IncludeMarkers: true},
		}})
		require.NoError(t, err, transport)
		got := res.Content[0].(*mcp.TextContent).Text
		assert.True(t, strings.HasPrefix(got, big), transport)
		assert.Regexp(t, `\n\[mcp-pruner: returned unchanged, warnings input_too_large; prune_id prn_\d{32}\]$`, got, transport)
	}
}
