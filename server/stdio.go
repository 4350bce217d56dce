package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The go-sdk's stdio connection ends the whole session on the first line it cannot decode
// (not JSON, not a JSON-RPC message, over its frame limit). One bad line from a client
// would then cost the agent its server. screenStdio stands between stdin and the SDK: each
// such line gets the JSON-RPC error answer the spec asks for (-32700 parse error, -32600
// invalid request, with the request's id when it has a readable one) and the session goes
// on; every other line reaches the SDK unchanged.

// lockedWriter serialises whole writes: the SDK writes each message in one call, and so do
// the screen's answers, so the two never interleave on stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// screenStdio copies r to the SDK's side of the pipe line by line until r ends or the SDK
// closes its side, answering on out the lines the SDK could not read. Lines longer than max
// bytes (without the newline) are answered, not buffered.
func screenStdio(r io.Reader, sdk *io.PipeWriter, out io.Writer, max int) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		var tooLong bool
		var err error
		line, tooLong, err = readLine(br, line[:0], max)
		if tooLong {
			writeAnswer(out, invalidRequest(nullID, "message over the server's limit of "+strconv.Itoa(max)+" bytes"))
		} else if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if answer := screenLine(trimmed); answer != nil {
				writeAnswer(out, answer)
			} else if _, werr := sdk.Write(append(line, '\n')); werr != nil {
				return // the SDK closed its side: the session is over
			}
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			sdk.CloseWithError(err) // EOF for the SDK: the client disconnected
			return
		}
	}
}

// readLine appends the next line of br (without its newline) to buf. A line over max bytes
// is read to its end and dropped: tooLong reports it, and the line returned is empty.
func readLine(br *bufio.Reader, buf []byte, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			n := len(buf) + len(chunk)
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
				n-- // the newline is not the message's
			}
			if n > max {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte{'\n'}), tooLong, err
	}
}

// sdkMaxDepth is the go-sdk's limit on a message's nesting (its internal/json defaultMaxDepth):
// a deeper message ends the session.
const sdkMaxDepth = 1000

// screenLine returns the error answer for a line the SDK would end the session on, or nil
// when the line should reach it.
func screenLine(msg []byte) *rpcResponse {
	if !validJSONDepth(msg, sdkMaxDepth) {
		if !validJSON(msg) {
			return parseErrorOf(msg)
		}
		return invalidRequest(nullID, "message nested deeper than "+strconv.Itoa(sdkMaxDepth)+" levels")
	}
	switch msg[0] {
	case '{':
		if id, err := screenMessage(msg); err != nil {
			return invalidRequest(id, err.Error())
		}
		return nil
	case '[':
		// A batch is decoded item by item, and one bad item ends the session.
		items, _ := arrayItems(msg)
		if len(items) == 0 {
			return invalidRequest(nullID, "empty batch")
		}
		for _, item := range items {
			if _, err := screenMessage(item); err != nil {
				return invalidRequest(nullID, "batch: "+err.Error())
			}
		}
		return nil
	}
	return invalidRequest(nullID, "message must be a JSON object")
}

// screenMessage reports why the SDK would refuse msg, valid JSON, as a JSON-RPC message,
// with msg's id when it has a readable one. The SDK's own decoder judges a copy of msg's
// envelope (jsonrpc, id, method, error), so the verdict is the SDK's without decoding the
// params or result, which it takes as they are: a 1 MB prune is screened in about a
// millisecond instead of six.
func screenMessage(msg []byte) (id json.RawMessage, err error) {
	fields, ok := objectFields(msg)
	if !ok {
		return nullID, errors.New("message must be a JSON object")
	}
	id = nullID
	if raw, has := fields["id"]; has && validID(raw) {
		id = bytes.TrimSpace(raw)
	}
	env := make([]byte, 0, 128)
	env = append(env, '{')
	for _, k := range [...]string{"jsonrpc", "id", "method", "error"} {
		if v, has := fields[k]; has {
			if len(env) > 1 {
				env = append(env, ',')
			}
			env = append(append(append(env, '"'), k...), `":`...)
			env = append(env, v...)
		}
	}
	env = append(env, '}')
	_, err = jsonrpc.DecodeMessage(env)
	return id, err
}

func writeAnswer(out io.Writer, r *rpcResponse) {
	b, err := r.appendTo(nil)
	if err != nil {
		return
	}
	out.Write(b)
}
