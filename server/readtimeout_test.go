package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
)

// serveTCP runs srv.Serve on a loopback port until the test ends and returns its address.
func serveTCP(t *testing.T, srv *server.Server) string {
	t.Helper()
	addr, cancel, served := serveListening(t, srv)
	t.Cleanup(func() { cancel(); <-served })
	return addr
}

// serveListening runs srv.Serve on a loopback port and returns its address, the cancel of
// Serve's context (a SIGTERM) and where Serve's return arrives.
func serveListening(t *testing.T, srv *server.Server) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	return ln.Addr().String(), cancel, served
}

// TestStalledUploadIsDropped: a client that sends part of a body and stalls is cut off once
// Config.ReadTimeout has passed, on every endpoint that reads a body, instead of keeping what
// it sent (up to MaxBodyBytes) in memory for as long as it keeps the connection.
func TestStalledUploadIsDropped(t *testing.T) {
	eng, _ := newEngine(t, 200_000)
	srv, err := server.New(server.Config{Engine: eng, ReadTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	addr := serveTCP(t, srv)
	partial := strings.Repeat("a", 100_000) // under net/http's 256 KB discard, so it would wait too
	for _, tc := range []struct{ path, body string }{
		{"/rpc", `{"jsonrpc":"2.0","id":1,"method":"prune_text","params":{"text":"` + partial},
		{"/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"` + partial},
		{"/prune", `{"query":"x","code":"` + partial},
	} {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", tc.path, len(tc.body)+100, tc.body)
			// A safety net only: the server's 200 ms deadline is what should end the connection.
			require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Second)))
			_, err = io.ReadAll(c)
			assert.NoError(t, err, "the server should have closed the stalled connection")
		})
	}
}

// TestReadTimeoutSparesRunningRequests: the read deadline ends with the request's body. A
// prune still running and a GET /mcp event stream, both well past it, are not cut. This holds
// because net/http clears the deadline when it starts watching for the client going away,
// once the body is read; were the deadline left in place, that watch would fail at it and
// cancel the request's context.
func TestReadTimeoutSparesRunningRequests(t *testing.T) {
	const deadline = 100 * time.Millisecond
	eng, block := newEngine(t, 10_000)
	srv, err := server.New(server.Config{Engine: eng, ReadTimeout: deadline})
	require.NoError(t, err)
	base := "http://" + serveTCP(t, srv)

	// An MCP session and its standalone event stream.
	mcpPost := func(body, session string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := mcpPost(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	session := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, session)
	mcpPost(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	req, err := http.NewRequest(http.MethodGet, base+"/mcp", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer stream.Body.Close()
	require.Equal(t, http.StatusOK, stream.StatusCode)
	streamEnded := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(stream.Body))
		close(streamEnded)
	}()

	// A prune held in its scorer.
	answered := make(chan []byte, 1)
	go func() {
		args := strings.Replace(pruneArgs, `{"text"`, `{"scorer":"block","text"`, 1)
		_, b, _ := postRaw(base+"/rpc", callBody("1", "prune_text", args))
		answered <- b
	}()
	<-block.started

	time.Sleep(5 * deadline) // what is tested is that time passes the deadline
	close(block.release)
	var res engine.Result
	toolPayload(t, decodeRPC(t, <-answered), &res)
	assert.False(t, res.Stats.UsedFallback, "the prune was cancelled: warnings %v", res.Warnings)
	select {
	case <-streamEnded:
		t.Error("the GET /mcp event stream was closed")
	default:
	}
}

// TestShutdownEndsStalledUploads: a client that sent half a body and stopped kept its
// connection active, so a shutdown waited out its whole timeout and failed ("shutdown:
// context deadline exceeded", exit 1), although every request had been answered. An upload
// now gets half the shutdown timeout to arrive.
func TestShutdownEndsStalledUploads(t *testing.T) {
	eng, _ := newEngine(t, 200_000)
	srv, err := server.New(server.Config{Engine: eng, ShutdownTimeout: 4 * time.Second})
	require.NoError(t, err)
	addr, cancel, served := serveListening(t, srv)

	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	fmt.Fprintf(c, "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	// Likely, not surely, the server has read the stalled request's headers by the time it
	// answers another; either way, a body read begun before the shutdown or after it gets
	// the same deadline.
	resp, err := http.Get("http://" + addr + "/health")
	require.NoError(t, err)
	resp.Body.Close()
	cancel()
	select {
	case err := <-served:
		assert.NoError(t, err, "the stalled upload ends; the shutdown is clean")
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return")
	}
}
