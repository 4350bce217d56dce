package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdioSurvivesBadLines writes raw lines to the stdio server, some of which are not
// JSON-RPC messages, and checks that each bad line gets the JSON-RPC error answer and that
// the session still answers the good lines after them.
func TestStdioSurvivesBadLines(t *testing.T) {
	const maxBody = 4096
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c2s, s2c, done := startStdio(ctx, t, server.Config{MaxBodyBytes: maxBody})

	type answer struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	answers := make(chan answer, 16)
	go func() {
		sc := bufio.NewScanner(s2c.r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var a answer
			if assert.NoError(t, json.Unmarshal(sc.Bytes(), &a), "every line out is one JSON message: %s", sc.Text()) {
				answers <- a
			}
		}
		close(answers)
	}()
	send := func(line string) {
		_, err := c2s.w.Write([]byte(line + "\n"))
		require.NoError(t, err)
	}
	next := func() answer {
		select {
		case a, ok := <-answers:
			require.True(t, ok, "the server stopped answering")
			return a
		case <-time.After(10 * time.Second):
			require.FailNow(t, "no answer within 10 s: the session is over")
			return answer{}
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a := next()
	assert.JSONEq(t, `1`, string(a.ID))
	require.Nil(t, a.Error)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	bad := []struct {
		name, line string
		code       int
		id         string
		message    string
	}{
		{name: "not JSON", line: `garbage`, code: -32700, id: `null`, message: "parse error"},
		{name: "truncated object", line: `{"jsonrpc":"2.0","id":3,"method":`, code: -32700, id: `null`, message: "parse error"},
		{name: "wrong version keeps its id", line: `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, code: -32600, id: `7`, message: "invalid request"},
		{name: "a response without an id", line: `{"jsonrpc":"2.0","result":{}}`, code: -32600, id: `null`, message: "invalid request"},
		{name: "a number", line: `42`, code: -32600, id: `null`, message: "JSON object"},
		{name: "over the limit", line: `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", maxBody) + `"}}`,
			code: -32600, id: `null`, message: "over the server's limit of 4096 bytes"},
	}
	for _, tc := range bad {
		send(tc.line)
		a := next()
		require.NotNil(t, a.Error, tc.name)
		assert.Equal(t, tc.code, a.Error.Code, tc.name)
		assert.JSONEq(t, tc.id, string(a.ID), tc.name)
		assert.Contains(t, a.Error.Message, tc.message, tc.name)
	}

	send("")   // blank lines are skipped, not answered
	send("\r") // nor are lines of white space
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"health","arguments":{}}}` + "\r")
	a = next()
	assert.JSONEq(t, `9`, string(a.ID), "the session survives every bad line, and CRLF lines still work")
	require.Nil(t, a.Error)
	assert.Contains(t, string(a.Result), "healthy")

	require.NoError(t, c2s.w.Close(), "the client disconnects")
	require.NoError(t, <-done, "end of input ends the session cleanly")
	require.NoError(t, s2c.w.Close()) // RunStdio leaves its writer open, as it does stdout
	_, ok := <-answers
	assert.False(t, ok, "nothing more is written")
}
