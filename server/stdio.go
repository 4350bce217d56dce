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

// screenLine returns the error answer for a line the SDK would end the session on, or nil
// when the line should reach it. Batches (JSON arrays) are the SDK's to judge.
func screenLine(msg []byte) *rpcResponse {
	if !validJSON(msg) {
		var v any
		err := json.Unmarshal(msg, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return parseError(err)
	}
	switch msg[0] {
	case '[':
		return nil
	case '{':
	default:
		return invalidRequest(nullID, "message must be a JSON object")
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		id := nullID
		if fields, ok := objectFields(msg); ok {
			if raw, has := fields["id"]; has && validID(raw) {
				id = bytes.TrimSpace(raw)
			}
		}
		return invalidRequest(id, err.Error())
	}
	return nil
}

func writeAnswer(out io.Writer, r *rpcResponse) {
	b, err := r.appendTo(nil)
	if err != nil {
		return
	}
	out.Write(b)
}
