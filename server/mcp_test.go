package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPCallErrorsAsRPC checks that a tools/call that fails gets, over /mcp and over stdio,
// the error /rpc answers to the same call: the same code, message and data.
func TestMCPCallErrorsAsRPC(t *testing.T) {
	env := newEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	overHTTP, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.http.URL + "/mcp"}, nil)
	require.NoError(t, err)
	defer overHTTP.Close()
	c2s, s2c, done := startStdio(ctx, t, server.Config{})
	overStdio, err := client.Connect(ctx, &mcp.IOTransport{Reader: s2c.r, Writer: c2s.w}, nil)
	require.NoError(t, err)
	defer func() {
		overStdio.Close()
		<-done
	}()

	for _, tc := range []struct {
		name string
		tool string
		args string
	}{
		{name: "unknown tool", tool: "nope", args: `{}`},
		{name: "empty tool name", tool: "", args: `{}`},
		{name: "bad arguments", tool: "prune_text", args: `{"text":1}`},
		{name: "unknown argument", tool: "health", args: `{"verbose":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, b := post(t, env.http.URL+"/rpc", callBody("1", tc.tool, tc.args))
			want := decodeRPC(t, b).Error
			require.NotNil(t, want, "/rpc refuses the call: %s", b)
			wantData, err := json.Marshal(want.Data)
			require.NoError(t, err)
			var args map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.args), &args))
			for transport, cs := range map[string]*mcp.ClientSession{"mcp": overHTTP, "stdio": overStdio} {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: args})
				var got *jsonrpc.Error
				require.ErrorAs(t, err, &got, transport)
				assert.Equal(t, want.Code, got.Code, transport)
				assert.Equal(t, want.Message, got.Message, transport)
				assert.JSONEq(t, string(wantData), string(got.Data), transport)
			}
		})
	}
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	overHTTP, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.http.URL + "/mcp"}, nil)
	require.NoError(t, err)
	defer overHTTP.Close()
	c2s, s2c, done := startStdio(ctx, t, server.Config{Engine: eng})
	overStdio, err := client.Connect(ctx, &mcp.IOTransport{Reader: s2c.r, Writer: c2s.w}, nil)
	require.NoError(t, err)
	defer func() {
		overStdio.Close()
		<-done
	}()

	for transport, cs := range map[string]*mcp.ClientSession{"mcp": overHTTP, "stdio": overStdio} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recover_text", Arguments: map[string]any{
			"prune_id": "prn_1", "ranges": []any{}, "include_line_numbers": false}})
		var we *jsonrpc.Error
		require.ErrorAs(t, err, &we, transport)
		assert.Equal(t, int64(-32603), we.Code, transport)
		assert.Contains(t, we.Message, "store bug", transport)
		assert.JSONEq(t, `{"code":"internal_error"}`, string(we.Data), transport)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "health", Arguments: map[string]any{}})
		require.NoError(t, err, "%s: the server still answers", transport)
		assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "healthy", transport)
	}
}
