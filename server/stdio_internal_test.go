package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadLine(t *testing.T) {
	const max = 100
	long := strings.Repeat("y", 70_000) // past bufio's 64 KiB buffer, so read in pieces
	in := strings.Join([]string{
		"a",
		strings.Repeat("x", max),   // exactly the limit
		strings.Repeat("x", max+1), // one byte over
		long,
		"",
		"b\r",
		"tail without newline",
	}, "\n")
	type got struct {
		line    string
		tooLong bool
	}
	var lines []got
	br := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
	var buf []byte
	for {
		line, tooLong, err := readLine(br, buf[:0], max)
		buf = line
		lines = append(lines, got{string(line), tooLong})
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, []got{
		{"a", false},
		{strings.Repeat("x", max), false},
		{strings.Repeat("x", min(max+1, requestHead)), true},
		{long[:min(len(long), requestHead)], true},
		{"", false},
		{"b\r", false},
		{"tail without newline", false},
	}, lines)

	br = bufio.NewReaderSize(strings.NewReader(long), 64<<10)
	line, tooLong, err := readLine(br, nil, len(long))
	assert.Equal(t, io.EOF, err)
	assert.False(t, tooLong)
	assert.Equal(t, long, string(line), "a line read in several pieces comes back whole")
}

// callID is the id the SDK decodes from v, a JSON number or string.
func callID(v any) jsonrpc.ID {
	if n, ok := v.(int); ok {
		v = float64(n)
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

// callsOf is the ids of the calls among msgs.
func callsOf(msgs []jsonrpc.Message) (calls []jsonrpc.ID) {
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
			calls = append(calls, req.ID)
		}
	}
	return calls
}

func TestScreenLine(t *testing.T) {
	for ok, calls := range map[string][]jsonrpc.ID{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:               {callID(1)},
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`:       {callID("a")},
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`: nil,
		`{"jsonrpc":"2.0","id":"x","result":{}}`:                 nil, // the client's answer to a server request
		// batches are the SDK's to judge
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2.0,"method":"ping"}]`: {callID(1), callID(2)},
	} {
		answer, msgs := screenLine([]byte(ok))
		assert.Nil(t, answer, ok)
		assert.Equal(t, calls, callsOf(msgs), "the calls in %s", ok)
	}
	for line, code := range map[string]int64{
		`nope`:                      codeParse,
		`{"a":}`:                    codeParse,
		`"str"`:                     codeInvalidRequest,
		`{}`:                        codeInvalidRequest,
		`{"jsonrpc":"2.0","id":{}}`: codeInvalidRequest,
	} {
		r, msgs := screenLine([]byte(line))
		assert.Nil(t, msgs, line)
		if assert.NotNil(t, r, line) {
			assert.Equal(t, code, r.Error.Code, line)
		}
	}
}

// FuzzScreenStdio feeds arbitrary input through the screen, with nothing answering the calls
// it hands on: every answer it writes is one valid JSON-RPC error on a line of its own, every
// line it hands on is within the limit, one the screen lets through and, when a batch, holds
// no notification; every non-blank input line is answered or handed on (a batch holding
// notifications as several lines). That each line gets exactly one answer from screen and
// SDK together is FuzzStdioSession's to show.
func FuzzScreenStdio(f *testing.F) {
	f.Add([]byte("garbage\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"))
	f.Add([]byte("{\"jsonrpc\":\"1.0\",\"id\":7}\r\n\n[1,2]\n42"))
	f.Add([]byte(strings.Repeat("x", 300) + "\n{}\n"))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"p"},{"jsonrpc":"2.0","method":"n"}]` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"p"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 256
		pr, pw := io.Pipe()
		var out strings.Builder
		done := make(chan struct{})
		go func() {
			// Nothing answers the calls here: the end of input waits for none of them.
			screenStdio(context.Background(), strings.NewReader(string(in)), pw, &out, max, newStdioSession(), 0)
			close(done)
		}()
		passed, err := io.ReadAll(pr)
		require.NoError(t, err)
		<-done

		answered := 0
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			answered++
			var a struct {
				JSONRPC string              `json:"jsonrpc"`
				ID      json.RawMessage     `json:"id"`
				Error   *struct{ Code int } `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &a), line)
			require.Equal(t, "2.0", a.JSONRPC)
			require.NotNil(t, a.Error)
			require.Contains(t, []int{codeParse, codeInvalidRequest}, a.Error.Code)
		}
		handed := 0
		for _, line := range strings.Split(strings.TrimSuffix(string(passed), "\n"), "\n") {
			trimmed := bytes.TrimSpace([]byte(line))
			if len(trimmed) == 0 {
				continue
			}
			handed++
			require.LessOrEqual(t, len(line), max)
			answer, msgs := screenLine(trimmed)
			require.Nil(t, answer, "a line handed on is one the screen lets through: %q", line)
			if trimmed[0] == '[' {
				for _, m := range msgs {
					req, ok := m.(*jsonrpc.Request)
					require.False(t, ok && !req.ID.IsValid(), "a batch handed on holds no notification: %q", line)
				}
			}
		}
		total := 0
		for _, line := range strings.Split(string(in), "\n") {
			if len(line) > max || len(bytes.TrimSpace([]byte(line))) > 0 {
				total++
			}
		}
		require.LessOrEqual(t, answered, total, "at most one answer per line")
		require.GreaterOrEqual(t, answered+handed, total, "every non-blank line is answered or handed on")
	})
}

// FuzzScreenAgreesWithSDK holds screenLine to the SDK's decoder: a JSON object passes the
// screen exactly when jsonrpc.DecodeMessage accepts it, every item of a batch that passes
// is accepted, and a message the screen finds too deeply nested is one the SDK refuses.
func FuzzScreenAgreesWithSDK(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","result":{"x":[1,2]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m","data":null}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"m","params":[]}`,
		`{"json\u0072pc":"2.0","id":null,"method":"m","id":2}`,
		`{"JSONRPC":"2.0","method":"m"}`,
		`{"jsonrpc":"2.0","id":true,"method":"m"}`,
		`{"jsonrpc":"2.0","method":1}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"m"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0"}]`,
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
		`{"jsonrpc":"2.0","method":"m","params":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !validJSON(line) {
			return
		}
		line = bytes.TrimSpace(line)
		answer, msgs := screenLine(line)
		passed := answer == nil
		if !validJSONDepth(line, sdkMaxDepth) {
			require.False(t, passed)
			_, err := jsonrpc.DecodeMessage(line)
			require.Error(t, err, "the SDK refuses what the screen finds too deep")
			return
		}
		switch line[0] {
		case '{':
			m, err := jsonrpc.DecodeMessage(line)
			require.Equal(t, err == nil, passed, "screen and SDK disagree (SDK error: %v)", err)
			var want []jsonrpc.ID
			if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
				want = append(want, req.ID)
			}
			require.Equal(t, want, callsOf(msgs), "the screen counts as calls what the SDK will answer")
		case '[':
			if passed {
				items, _ := arrayItems(line)
				var want []jsonrpc.ID
				for _, item := range items {
					m, err := jsonrpc.DecodeMessage(item)
					require.NoError(t, err, "a batch passed with an item the SDK refuses")
					want = append(want, callsOf([]jsonrpc.Message{m})...)
				}
				require.Equal(t, want, callsOf(msgs), "a batch's calls, in order")
			}
		default:
			require.False(t, passed)
		}
	})
}

// answerIn is answering and written at once: msg is out, as answerWatch reports it.
func (s *stdioSession) answerIn(msg []byte) { s.written(s.answering(msg)) }

// admitLine screens and admits one line as screenStdio does.
func admitLine(t *testing.T, s *stdioSession, line string) (*rpcResponse, []string) {
	t.Helper()
	answer, msgs := screenLine([]byte(line))
	require.Nil(t, answer, line)
	answer, forward := s.admit(context.Background(), []byte(line), msgs, time.Second)
	var lines []string
	for _, l := range forward {
		lines = append(lines, string(l))
	}
	return answer, lines
}

func TestStdioSessionAdmit(t *testing.T) {
	s := newStdioSession()
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	note := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	answer, forward := admitLine(t, s, ping)
	assert.Nil(t, answer)
	assert.Equal(t, []string{ping}, forward)
	assert.Equal(t, 1, s.count())

	for line, why := range map[string]string{
		`{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}`:                                     "id 1 is already in use",
		`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"p"}]`:     "batch: id 1 is already in use",
		`[{"jsonrpc":"2.0","id":"b","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"p"}]`: `batch: id "b" is used by two of its calls`,
	} {
		answer, forward = admitLine(t, s, line)
		if assert.NotNil(t, answer, line) {
			assert.Equal(t, int64(codeInvalidRequest), answer.Error.Code)
			assert.Contains(t, answer.Error.Message, why)
			assert.Equal(t, nullID, answer.ID, "not to be taken for the answer of the call in flight")
		}
		assert.Empty(t, forward, line)
	}
	assert.Equal(t, 1, s.count(), "a refused line opens no call")

	// A batch's notifications go on one by one, then the rest as a batch.
	answer, forward = admitLine(t, s, `[`+note+`,{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":9,"result":{}},`+note+`]`)
	assert.Nil(t, answer)
	assert.Equal(t, []string{note, note, `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":9,"result":{}}]`}, forward)
	answer, forward = admitLine(t, s, `[`+note+`, `+note+`]`)
	assert.Nil(t, answer)
	assert.Equal(t, []string{note, note}, forward, "a batch of notifications only: no batch left, no answer due")
	batch := `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`
	answer, forward = admitLine(t, s, batch)
	assert.Nil(t, answer)
	assert.Equal(t, []string{batch}, forward, "a batch of calls goes on as it is")
	assert.Equal(t, 4, s.count())
}

func TestStdioSessionProtocol(t *testing.T) {
	initialize := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	}
	batch := `[{"jsonrpc":"2.0","id":"b","method":"ping"}]`

	s := newStdioSession()
	_, _ = admitLine(t, s, initialize(1))
	s.answerIn([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}`))
	answer, forward := admitLine(t, s, batch)
	assert.Nil(t, answer, "2025-03-26 has batches")
	assert.Equal(t, []string{batch}, forward)

	s = newStdioSession()
	_, _ = admitLine(t, s, initialize(1))
	go func() {
		time.Sleep(20 * time.Millisecond)
		s.answerIn([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`))
	}()
	answer, forward = admitLine(t, s, batch) // waits for the initialize's answer
	if assert.NotNil(t, answer, "2025-06-18 has no batches") {
		assert.Contains(t, answer.Error.Message, "batches are not part of MCP 2025-06-18")
	}
	assert.Empty(t, forward)
	answer, _ = admitLine(t, s, `{"jsonrpc":"2.0","id":"c","method":"ping"}`)
	assert.Nil(t, answer, "single messages still go on")

	s = newStdioSession()
	_, _ = admitLine(t, s, initialize(1))
	s.answerIn([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`))
	answer, _ = admitLine(t, s, batch)
	assert.Nil(t, answer, "a failed initialize settles nothing")
}

func TestStdioSessionAnswerIn(t *testing.T) {
	s := newStdioSession()
	for _, id := range []string{`1`, `"a"`, `2`, `3`, `4`} {
		_, _ = admitLine(t, s, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":1}}`, // not an answer
		`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,                        // the server's own request
		`{"jsonrpc":"2.0","id":9,"result":{}}`,                                  // no such call
		`not json`,
	} {
		s.answerIn([]byte(msg))
	}
	assert.Equal(t, 5, s.count(), "only answers to open calls close them")

	s.answerIn([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"id\":2}"}]}}` + "\n"))
	s.answerIn([]byte(`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"m"}}`))
	assert.Equal(t, 3, s.count())
	s.answerIn([]byte(`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]`))
	assert.Equal(t, 1, s.count(), "a batch answers each of its calls")
	s.answerIn([]byte(`{"jsonrpc":"2.0","id":4.0,"result":{}}`))
	assert.Zero(t, s.count(), "ids are compared as the SDK decodes them")
}

func TestStdioSessionWait(t *testing.T) {
	s := newStdioSession()
	s.wait(context.Background(), time.Hour) // nothing open: returns at once

	_, _ = admitLine(t, s, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	waited := make(chan struct{})
	go func() { s.wait(context.Background(), time.Hour); close(waited) }()
	s.answerIn([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	select {
	case <-waited:
		t.Fatal("wait returned with a call still open")
	case <-time.After(50 * time.Millisecond):
	}
	s.answerIn([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`))
	<-waited // the last answer ends the wait (the test times out otherwise)

	_, _ = admitLine(t, s, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.wait(ctx, time.Hour)                         // a cancelled context ends the wait
	s.wait(context.Background(), time.Millisecond) // and so does the limit
	assert.Equal(t, 1, s.count())
}

// blockingWriter holds each write until release, after signalling entered.
type blockingWriter struct {
	entered, release chan struct{}
}

func (w blockingWriter) Write(p []byte) (int, error) {
	w.entered <- struct{}{}
	<-w.release
	return len(p), nil
}

// TestStdioSessionAnswerBeingWritten: while an answer is being written, its id is free (the
// client may reuse it as soon as it reads the answer, and the screen must not refuse that
// call), but the end of input still waits for the answer to be out.
func TestStdioSessionAnswerBeingWritten(t *testing.T) {
	s := newStdioSession()
	_, _ = admitLine(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	w := blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
	wrote := make(chan struct{})
	go func() {
		_, _ = answerWatch{w: w, sess: s}.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"))
		close(wrote)
	}()
	<-w.entered
	answer, forward := admitLine(t, s, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Nil(t, answer, "the id is free once its answer is on its way")
	assert.Len(t, forward, 1)

	waited := make(chan struct{})
	go func() { s.wait(context.Background(), time.Hour); close(waited) }()
	s.answerIn([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`)) // the ping's answer
	select {
	case <-waited:
		t.Fatal("the end of input did not wait for the answer being written")
	case <-time.After(50 * time.Millisecond):
	}
	close(w.release)
	<-wrote
	<-waited
	assert.Zero(t, s.count())
}

// TestStdioSessionWaitRestartsOnAnswers: the limit counts from the last answer, so calls that
// keep being answered are all waited for, however long they take together.
func TestStdioSessionWaitRestartsOnAnswers(t *testing.T) {
	const limit = time.Second // each gap leaves 0.7 s to a loaded machine
	s := newStdioSession()
	const calls = 6
	for i := 1; i <= calls; i++ {
		_, _ = admitLine(t, s, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"ping"}`)
	}
	go func() {
		for i := 1; i <= calls; i++ {
			time.Sleep(limit * 3 / 10) // 1.8 limits in all, each answer well inside the limit
			s.answerIn([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"result":{}}`))
		}
	}()
	s.wait(context.Background(), limit)
	assert.Zero(t, s.count(), "the wait outlasted the limit while answers kept coming")
}

func TestIDOfHead(t *testing.T) {
	for _, tc := range []struct{ head, id string }{
		{`{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"arguments":{"text":"aaaa`, `102`},
		{`{"id":"req-1","jsonrpc":"2.0"`, `"req-1"`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"id":5,"text":"aaaa`, `null`}, // an id inside params is not the request's
		{`{"jsonrpc":"2.0","method":"x","params":{"text":"aaaa`, `null`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"`, `null`},
		{`{"jsonrpc":"2.0","id":null,"method":"x"`, `null`},
		{`{"jsonrpc":"2.0","id":12`, `null`}, // the number may go on past the head
		{`[{"jsonrpc":"2.0","id":3}`, `null`},
		{`not json`, `null`},
	} {
		assert.Equal(t, tc.id, string(idOfHead([]byte(tc.head))), tc.head)
	}
}
