package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
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
		{"", true},
		{"", true},
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

func TestScreenLine(t *testing.T) {
	for ok, calls := range map[string][]jsonrpc.ID{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:               {callID(1)},
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`:       {callID("a")},
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`: nil,
		`{"jsonrpc":"2.0","id":"x","result":{}}`:                 nil, // the client's answer to a server request
		// batches are the SDK's to judge
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2.0,"method":"ping"}]`: {callID(1), callID(2)},
	} {
		answer, got := screenLine([]byte(ok))
		assert.Nil(t, answer, ok)
		assert.Equal(t, calls, got, "the calls in %s", ok)
	}
	for line, code := range map[string]int64{
		`nope`:                      codeParse,
		`{"a":}`:                    codeParse,
		`"str"`:                     codeInvalidRequest,
		`{}`:                        codeInvalidRequest,
		`{"jsonrpc":"2.0","id":{}}`: codeInvalidRequest,
	} {
		r, calls := screenLine([]byte(line))
		assert.Nil(t, calls, line)
		if assert.NotNil(t, r, line) {
			assert.Equal(t, code, r.Error.Code, line)
		}
	}
}

// FuzzScreenStdio feeds arbitrary input through the screen: every answer it writes is one
// valid JSON-RPC error on a line of its own, every line it hands on is one the SDK accepts
// (a JSON-RPC object) or a JSON array for the SDK to judge, and no input line is both
// answered and handed on or neither (blank lines aside).
func FuzzScreenStdio(f *testing.F) {
	f.Add([]byte("garbage\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"))
	f.Add([]byte("{\"jsonrpc\":\"1.0\",\"id\":7}\r\n\n[1,2]\n42"))
	f.Add([]byte(strings.Repeat("x", 300) + "\n{}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 256
		pr, pw := io.Pipe()
		var out strings.Builder
		done := make(chan struct{})
		go func() {
			// Nothing answers the calls here: the end of input waits for none of them.
			screenStdio(context.Background(), strings.NewReader(string(in)), pw, &out, max, newOpenCalls(), 0)
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
			answer, _ := screenLine(trimmed)
			require.Nil(t, answer, "a line handed on is one the screen lets through: %q", line)
		}
		total := 0
		for _, line := range strings.Split(string(in), "\n") {
			if len(line) > max || len(bytes.TrimSpace([]byte(line))) > 0 {
				total++
			}
		}
		require.Equal(t, total, answered+handed, "every non-blank line is answered or handed on, once")
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
		answer, calls := screenLine(line)
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
			require.Equal(t, want, calls, "the screen counts as calls what the SDK will answer")
		case '[':
			if passed {
				items, _ := arrayItems(line)
				for _, item := range items {
					_, err := jsonrpc.DecodeMessage(item)
					require.NoError(t, err, "a batch passed with an item the SDK refuses")
				}
			}
		default:
			require.False(t, passed)
		}
	})
}

func TestOpenCallsAnswerIn(t *testing.T) {
	o := newOpenCalls()
	o.add([]jsonrpc.ID{callID(1), callID("a"), callID(2), callID(2), callID(3), callID(4)})
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":1}}`, // not an answer
		`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,                        // the server's own request
		`{"jsonrpc":"2.0","id":9,"result":{}}`,                                  // no such call
		`not json`,
	} {
		o.answerIn([]byte(msg))
	}
	assert.Equal(t, 5, o.count(), "only answers to open calls close them")

	o.answerIn([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"id\":2}"}]}}` + "\n"))
	o.answerIn([]byte(`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"m"}}`))
	assert.Equal(t, 3, o.count())
	o.answerIn([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`))
	assert.Equal(t, 3, o.count(), "two calls with one id take two answers")
	o.answerIn([]byte(`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]`))
	assert.Equal(t, 1, o.count(), "a batch answers each of its calls")
	o.answerIn([]byte(`{"jsonrpc":"2.0","id":4.0,"result":{}}`))
	assert.Zero(t, o.count(), "ids are compared as the SDK decodes them")
}

func TestOpenCallsWait(t *testing.T) {
	o := newOpenCalls()
	o.wait(context.Background(), time.Hour) // nothing open: returns at once

	o.add([]jsonrpc.ID{callID(1), callID(2)})
	waited := make(chan struct{})
	go func() { o.wait(context.Background(), time.Hour); close(waited) }()
	o.answer(callID(1))
	select {
	case <-waited:
		t.Fatal("wait returned with a call still open")
	case <-time.After(50 * time.Millisecond):
	}
	o.answer(callID(2))
	<-waited // the last answer ends the wait (the test times out otherwise)

	o.add([]jsonrpc.ID{callID(3)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o.wait(ctx, time.Hour)                         // a cancelled context ends the wait
	o.wait(context.Background(), time.Millisecond) // and so does the limit
	assert.Equal(t, 1, o.count())
}
