package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
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
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
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
		data       string // the error's data, when it has some (as /rpc answers the same case)
	}{
		{name: "not JSON", line: `garbage`, code: -32700, id: `null`, message: "parse error"},
		{name: "truncated object", line: `{"jsonrpc":"2.0","id":3,"method":`, code: -32700, id: `null`, message: "parse error"},
		{name: "wrong version keeps its id", line: `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, code: -32600, id: `7`, message: "invalid request"},
		{name: "a response without an id", line: `{"jsonrpc":"2.0","result":{}}`, code: -32600, id: `null`, message: "invalid request"},
		{name: "a number", line: `42`, code: -32600, id: `null`, message: "JSON object"},
		{name: "a batch, which 2025-06-18 does not have", line: `[{"jsonrpc":"2.0","id":20,"method":"ping"}]`, code: -32600, id: `null`, message: "batches are not part of MCP 2025-06-18"},
		{name: "a batch of notifications, refused alike", line: `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`, code: -32600, id: `null`, message: "batches are not part"},
		// The client waits for id 8's answer: the line's head names it.
		{name: "over the limit", line: `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", maxBody) + `"}}`,
			code: -32600, id: `8`, message: "input_too_large", data: `{"code":"input_too_large","max_body_bytes":4096}`},
		{name: "over the limit, the id after the text", line: `{"jsonrpc":"2.0","method":"tools/list","params":{"pad":"` + strings.Repeat("x", maxBody) + `"},"id":8}`,
			code: -32600, id: `null`, message: "input_too_large", data: `{"code":"input_too_large","max_body_bytes":4096}`},
	}
	for _, tc := range bad {
		send(tc.line)
		a := next()
		require.NotNil(t, a.Error, tc.name)
		assert.Equal(t, tc.code, a.Error.Code, tc.name)
		assert.JSONEq(t, tc.id, string(a.ID), tc.name)
		assert.Contains(t, a.Error.Message, tc.message, tc.name)
		if tc.data != "" {
			assert.JSONEq(t, tc.data, string(a.Error.Data), tc.name)
		}
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

// TestStdioAnswersCallsInFlightAtEOF sends calls and closes stdin at once, as
// `pruner stdio < requests.jsonl` does, while a prune is still in the scorer: every call is
// answered before the session ends (the SDK alone drops the answers in flight when its input
// ends). A call that outlasts ShutdownTimeout does not hold the session open.
func TestStdioAnswersCallsInFlightAtEOF(t *testing.T) {
	eng, block := newEngine(t, 10_000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c2s, s2c, done := startStdio(ctx, t, server.Config{Engine: eng, ShutdownTimeout: time.Minute})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(s2c.r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	blockArgs := blockedArgs(60000)
	writeSession(t, c2s.w,
		callBody("2", "prune_text", blockArgs),
		callBody(`"three"`, "prune_text", pruneArgs),
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	require.NoError(t, c2s.w.Close(), "the client ends its input with the prune still in the scorer")
	<-block.started
	select {
	case err := <-done:
		t.Fatalf("the session ended (%v) with a call unanswered", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(block.release)
	require.NoError(t, <-done)
	require.NoError(t, s2c.w.Close())

	ids := map[string]string{}
	for line := range lines {
		var a struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				StructuredContent struct {
					PrunedText string `json:"pruned_text"`
				} `json:"structuredContent"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &a), line)
		require.Nil(t, a.Error, line)
		ids[string(a.ID)] = a.Result.StructuredContent.PrunedText
	}
	require.Len(t, ids, 4, "every call is answered: %v", ids)
	assert.Contains(t, ids[`2`], "L1", "the held prune's answer is its result")
	assert.Contains(t, ids[`"three"`], "L1")

	// A call that is never answered holds the end of input for ShutdownTimeout at most.
	eng, block = newEngine(t, 10_000)
	defer close(block.release)
	c2s, s2c, done = startStdio(ctx, t, server.Config{Engine: eng, ShutdownTimeout: 50 * time.Millisecond})
	go func() { _, _ = io.Copy(io.Discard, s2c.r) }()
	defer s2c.w.Close()
	writeSession(t, c2s.w, callBody("2", "prune_text", blockArgs))
	<-block.started
	require.NoError(t, c2s.w.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("a call that never ends holds the session open past ShutdownTimeout")
	}
}

// TestStdioStopsWithCallsInFlight: a session ended by its context (SIGINT, SIGTERM) gives the
// calls in flight ShutdownTimeout to answer, then cancels them: a scorer waiting out a long
// timeout_ms (a plugin) used to keep the process up until it returned.
func TestStdioStopsWithCallsInFlight(t *testing.T) {
	eng, block := newEngine(t, 10_000)
	defer close(block.release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c2s, s2c, done := startStdio(ctx, t, server.Config{Engine: eng, ShutdownTimeout: 50 * time.Millisecond})
	go func() { _, _ = io.Copy(io.Discard, s2c.r) }()
	defer s2c.w.Close()
	defer c2s.w.Close()
	writeSession(t, c2s.w, callBody("2", "prune_text", blockedArgs(600000)))
	<-block.started
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("a call waiting in its scorer holds the stopped session open")
	}
}

// FuzzStdioSession plays a session that ends with the client's input: a script of lines
// drawn from calls, notifications, batches, answers to the server and bad lines, in any order,
// with ids reused and either protocol (with and without batches), written to RunStdio all at
// once. Every call line and every bad line gets exactly one answer before RunStdio returns
// (the screen answers bad lines and reused ids; the SDK answers the calls it was handed,
// before its end of input), and every answer is one JSON-RPC message or a batch.
func FuzzStdioSession(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{2, 2, 0, 1, 5, 5, 11, 3})
	f.Add([]byte{9, 8, 7, 6})
	f.Add([]byte{12, 11, 13, 0, 27, 11, 1})
	f.Add([]byte{0, 1, 14, 15, 16, 17, 18, 19, 39, 59})
	eng, _ := newEngine(f, 10_000)
	srv, err := server.New(server.Config{Engine: eng, MaxBodyBytes: 4096, ShutdownTimeout: 20 * time.Second})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, script []byte) {
		if len(script) > 64 {
			script = script[:64]
		}
		var lines []string
		answers := 0 // expected: messages answered, a batch's answers counted one by one
		for i, b := range script {
			id := strconv.Itoa(int(b>>4) + 1) // ids repeat: the SDK still answers each call
			if i%3 == 2 {
				id = `"s` + id + `"`
			}
			switch b % 20 {
			case 0:
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`)
				answers++
			case 1:
				lines = append(lines, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			case 2:
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
				answers++
			case 3:
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)
				answers++
			case 4:
				lines = append(lines, callBody(id, "prune_text", pruneArgs))
				answers++
			case 5:
				lines = append(lines, callBody(id, "health", `{}`))
				answers++
			case 6:
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`) // an answer to no request of ours
			case 7:
				lines = append(lines, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`)
			case 8:
				lines = append(lines, `not json`)
				answers++
			case 9:
				lines = append(lines, `{"jsonrpc":"1.0","id":`+id+`,"method":"ping"}`)
				answers++
			case 10:
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping","params":{"pad":"`+strings.Repeat("x", 4096)+`"}}`)
				answers++
			case 11: // one answer: the ping's in a batch, or the batch refused
				lines = append(lines, `[{"jsonrpc":"2.0","id":`+id+`,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
				answers++
			case 12: // a protocol without batches
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`)
				answers++
			case 13:
				lines = append(lines, `[{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}]`)
				answers++
			case 14: // params of the wrong kind
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":[1,2]}`)
				answers++
			case 15:
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":null}`)
				answers++
			case 16: // no such method, no such tool, arguments of the wrong kind
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"resources/read","params":{"uri":"x"}}`)
				answers++
			case 17:
				lines = append(lines, callBody(id, "nope", `{}`))
				answers++
			case 18:
				lines = append(lines, callBody(id, "prune_text", `"text"`))
				answers++
			case 19: // ids as JSON may spell them
				lines = append(lines, `{"jsonrpc":"2.0","id":-`+id+`e0,"method":"ping"}`, `{"jsonrpc":"2.0","id":"\u00e9`+id+`","method":"ping"}`)
				answers += 2
			}
		}
		var out syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		require.NoError(t, srv.RunStdio(ctx, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out))
		require.Less(t, time.Since(start), 15*time.Second, "the end of input waited for an answer that never came")

		got := 0
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var batch []json.RawMessage
			if strings.HasPrefix(line, "[") {
				require.NoError(t, json.Unmarshal([]byte(line), &batch), line)
			} else {
				batch = []json.RawMessage{json.RawMessage(line)}
			}
			for _, m := range batch {
				var a struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Method  string          `json:"method"`
				}
				require.NoError(t, json.Unmarshal(m, &a), line)
				require.Equal(t, "2.0", a.JSONRPC, line)
				require.Empty(t, a.Method, "the server sends no requests or notifications here: %s", line)
				got++
			}
		}
		require.Equal(t, answers, got, "one answer per call and per bad line:\n%s\n--- answers:\n%s", strings.Join(lines, "\n"), out.String())
	})
}

// TestStdioWritesNothingAfterReturn: RunStdio ended by its context leaves its reader goroutine
// blocked on input; a bad line read after the return used to be answered on the writer, which
// by then belongs to the caller again.
func TestStdioWritesNothingAfterReturn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c2s, s2c, done := startStdio(ctx, t, server.Config{})
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(s2c.r); got <- b }()
	cancel()
	require.NoError(t, <-done)
	// Each write to the pipe returns once the screen has read it, so when the second one
	// returns the first line has been handled: answered, before the fix.
	_, err := c2s.w.Write([]byte("not json\n"))
	require.NoError(t, err, "the screen is still reading")
	_, err = c2s.w.Write([]byte("not json either\n"))
	require.NoError(t, err)
	require.NoError(t, c2s.w.Close())
	require.NoError(t, s2c.w.Close())
	assert.Empty(t, string(<-got), "nothing is written once RunStdio has returned")
}

// TestStdioSessionErrorsHaveACode: the SDK answers a call before initialize and a second
// initialize with error code 0, which is no JSON-RPC code; they reach the client as -32600
// Invalid Request, alone or in a batch, with the SDK's message and the rest of the answer
// byte for byte.
func TestStdioSessionErrorsHaveACode(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c2s, s2c, done := startStdio(ctx, t, server.Config{})
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(s2c.r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	const initialize = `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		fmt.Sprintf(initialize, 2),
		fmt.Sprintf(initialize, 3),
		"[" + fmt.Sprintf(initialize, 4) + `,{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
	} {
		_, err := c2s.w.Write([]byte(l + "\n"))
		require.NoError(t, err)
	}
	require.NoError(t, c2s.w.Close())
	require.NoError(t, <-done)
	require.NoError(t, s2c.w.Close()) // RunStdio leaves its writer open
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	require.Len(t, got, 4)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"method \"tools/list\" is invalid during session initialization"}}`, got[0])
	assert.Contains(t, got[1], `"id":2,"result":{`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"duplicate \"initialize\" received"}}`, got[2])
	assert.Equal(t, `[{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"duplicate \"initialize\" received"}},{"jsonrpc":"2.0","id":5,"result":{}}]`, got[3])
}

// blockedArgs are prune_text arguments for the blocking scorer, with a deadline of timeoutMS.
func blockedArgs(timeoutMS int) string {
	a := strings.Replace(pruneArgs, `{"text"`, `{"scorer":"block","text"`, 1)
	return strings.Replace(a, `"timeout_ms":1500`, `"timeout_ms":`+strconv.Itoa(timeoutMS), 1)
}

// writeSession writes an initialize call, the initialized notification and lines to w, a line each.
func writeSession(t *testing.T, w io.Writer, lines ...string) {
	t.Helper()
	all := append([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}, lines...)
	_, err := w.Write([]byte(strings.Join(all, "\n") + "\n"))
	require.NoError(t, err)
}
