package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

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
//
// The calls it hands on are counted in open. When r ends, the screen waits until they are
// answered (or ctx is done, or drain has passed) before the SDK sees the end: the SDK drops
// the answers still in flight when its input ends, so `pruner stdio < requests.jsonl`
// would otherwise lose the last answers, often all of them.
func screenStdio(ctx context.Context, r io.Reader, sdk *io.PipeWriter, out io.Writer, max int, open *openCalls, drain time.Duration) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		var tooLong bool
		var err error
		line, tooLong, err = readLine(br, line[:0], max)
		if tooLong {
			writeAnswer(out, inputTooLarge(int64(max)))
		} else if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			answer, calls := screenLine(trimmed)
			if answer != nil {
				writeAnswer(out, answer)
			} else {
				open.add(calls) // before the SDK can see them, so their answers find them
				if _, werr := sdk.Write(append(line, '\n')); werr != nil {
					return // the SDK closed its side: the session is over
				}
			}
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			open.wait(ctx, drain)
			sdk.CloseWithError(err) // EOF for the SDK: the client disconnected
			return
		}
	}
}

// openCalls counts the calls (requests with an id) handed to the SDK and not yet answered.
type openCalls struct {
	mu       sync.Mutex
	ids      map[jsonrpc.ID]int
	answered chan struct{} // holds a value after an answer; wait takes it
}

func newOpenCalls() *openCalls {
	return &openCalls{ids: map[jsonrpc.ID]int{}, answered: make(chan struct{}, 1)}
}

func (o *openCalls) add(ids []jsonrpc.ID) {
	if len(ids) == 0 {
		return
	}
	o.mu.Lock()
	for _, id := range ids {
		o.ids[id]++
	}
	o.mu.Unlock()
}

func (o *openCalls) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.ids)
}

// answer marks one call with this id answered; ids never handed on are ignored.
func (o *openCalls) answer(id jsonrpc.ID) {
	o.mu.Lock()
	n, ok := o.ids[id]
	switch {
	case !ok:
	case n > 1:
		o.ids[id] = n - 1
	default:
		delete(o.ids, id)
	}
	o.mu.Unlock()
	if ok {
		select {
		case o.answered <- struct{}{}:
		default:
		}
	}
}

// answerIn marks the calls that msg, one message or a batch as the SDK writes it, answers.
// Messages with a method are the server's own requests and notifications, not answers.
func (o *openCalls) answerIn(msg []byte) {
	if o.count() == 0 {
		return
	}
	msg = bytes.TrimSpace(msg)
	items := [][]byte{msg}
	if len(msg) > 0 && msg[0] == '[' {
		items, _ = arrayItems(msg)
	}
	for _, item := range items {
		fields, ok := objectFields(item)
		if !ok {
			continue
		}
		if _, has := fields["method"]; has {
			continue
		}
		var raw any
		if json.Unmarshal(fields["id"], &raw) != nil {
			continue
		}
		if id, err := jsonrpc.MakeID(raw); err == nil && id.IsValid() {
			o.answer(id)
		}
	}
}

// wait returns once every call is answered, ctx is done or limit has passed.
func (o *openCalls) wait(ctx context.Context, limit time.Duration) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for o.count() > 0 {
		select {
		case <-o.answered:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// answerWatch hands the SDK's writes on to w and marks the calls they answer once written.
type answerWatch struct {
	w    io.Writer
	open *openCalls
}

func (a answerWatch) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	a.open.answerIn(p)
	return n, err
}

func (answerWatch) Close() error { return nil }

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
// when the line should reach it, with the ids of the calls in it (requests with an id, which
// the SDK will answer).
func screenLine(msg []byte) (answer *rpcResponse, calls []jsonrpc.ID) {
	if !validJSONDepth(msg, sdkMaxDepth) {
		if !validJSON(msg) {
			return parseErrorOf(msg), nil
		}
		return invalidRequest(nullID, "message nested deeper than "+strconv.Itoa(sdkMaxDepth)+" levels"), nil
	}
	switch msg[0] {
	case '{':
		id, m, err := screenMessage(msg)
		if err != nil {
			return invalidRequest(id, err.Error()), nil
		}
		return nil, appendCall(nil, m)
	case '[':
		// A batch is decoded item by item, and one bad item ends the session.
		items, _ := arrayItems(msg)
		if len(items) == 0 {
			return invalidRequest(nullID, "empty batch"), nil
		}
		for _, item := range items {
			_, m, err := screenMessage(item)
			if err != nil {
				return invalidRequest(nullID, "batch: "+err.Error()), nil
			}
			calls = appendCall(calls, m)
		}
		return nil, calls
	}
	return invalidRequest(nullID, "message must be a JSON object"), nil
}

// appendCall appends m's id when m is a call.
func appendCall(calls []jsonrpc.ID, m jsonrpc.Message) []jsonrpc.ID {
	if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
		calls = append(calls, req.ID)
	}
	return calls
}

// screenMessage decodes msg, valid JSON, as the SDK will, or reports why the SDK would refuse
// it, with msg's id when it has a readable one. The SDK's own decoder judges a copy of msg's
// envelope (jsonrpc, id, method, error), so the verdict is the SDK's without decoding the
// params or result, which it takes as they are: a 1 MB prune is screened in about a
// millisecond instead of six.
func screenMessage(msg []byte) (id json.RawMessage, m jsonrpc.Message, err error) {
	fields, ok := objectFields(msg)
	if !ok {
		return nullID, nil, errors.New("message must be a JSON object")
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
	m, err = jsonrpc.DecodeMessage(env)
	return id, m, err
}

func writeAnswer(out io.Writer, r *rpcResponse) {
	b, err := r.appendTo(nil)
	if err != nil {
		return
	}
	out.Write(b)
}
