package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// on. Every other line reaches the SDK unchanged, but for the few the SDK mishandles, which
// stdioSession.admit answers or rewrites.

// lockedWriter serialises whole writes: the SDK writes each message in one call, and so do
// the screen's answers, so the two never interleave on stdout. Once closed it writes
// nothing: RunStdio has returned, and the writer is its caller's again.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, io.ErrClosedPipe
	}
	return l.w.Write(p)
}

// close stops every later write, and waits for one in progress.
func (l *lockedWriter) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
}

// screenStdio copies r to the SDK's side of the pipe line by line until r ends or the SDK
// closes its side, answering on out the lines the SDK could not read. Lines longer than max
// bytes (without the newline) are answered, not buffered. sess keeps what the screen must
// know of the session: the calls in flight and whether batches are still allowed.
//
// When r ends, the screen waits until the calls it handed on are answered (or ctx is done,
// or drain has passed without an answer) before the SDK sees the end: the SDK drops the
// answers still in flight when its input ends, so `pruner stdio < requests.jsonl` would
// otherwise lose the last answers, often all of them.
func screenStdio(ctx context.Context, r io.Reader, sdk *io.PipeWriter, out io.Writer, max int, sess *stdioSession, drain time.Duration) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line, frame []byte
	for {
		var tooLong bool
		var err error
		line, tooLong, err = readLine(br, line[:0], max)
		if tooLong {
			// The client waits for this id's answer: give it, when the head of the line says it.
			a := inputTooLarge(int64(max))
			a.ID = idOfHead(line)
			writeAnswer(out, a)
		} else if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			answer, msgs := screenLine(trimmed)
			var forward [][]byte
			if answer == nil {
				answer, forward = sess.admit(ctx, trimmed, msgs, drain)
			}
			if answer != nil {
				writeAnswer(out, answer)
			}
			for _, l := range forward {
				frame = append(append(frame[:0], l...), '\n')
				if _, werr := sdk.Write(frame); werr != nil {
					return // the SDK closed its side: the session is over
				}
			}
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			sess.wait(ctx, drain)
			sdk.CloseWithError(err) // EOF for the SDK: the client disconnected
			return
		}
	}
}

// stdioSession is what the screen knows of the session beyond one line: the calls (requests
// with an id) handed to the SDK and not yet answered, the initialize calls among them, and
// whether the negotiated protocol still has batches.
type stdioSession struct {
	mu        sync.Mutex
	ids       map[jsonrpc.ID]bool // open calls; true for an initialize
	writing   int                 // answers being written: their ids are free, their bytes not out
	noBatches bool                // the protocol negotiated is 2025-06-18 or later
	answered  chan struct{}       // holds a value after an answer is out; waits take it
}

func newStdioSession() *stdioSession {
	return &stdioSession{ids: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
}

// batchesEnd is the first MCP protocol version without JSON-RPC batches.
const batchesEnd = "2025-06-18"

// admit decides what of line, whose messages the SDK accepts (msgs, from screenLine), reaches
// the SDK, and records its calls as open. The SDK (v1.8.0) mishandles three kinds of line,
// which admit answers or rewrites instead:
//   - a call whose id is already in flight: the SDK drops it without an answer, and in a
//     batch the batch is never answered or the session ends. MCP forbids reusing an id in a
//     session, so the call is answered -32600 (with a null id, not to be taken for the
//     answer of the call in flight);
//   - a batch holding notifications: the SDK waits for their answers, which never come, and
//     ends the session on the second one (go-sdk issue 1256, fixed after v1.8.0). Its
//     notifications are handed on one by one, then its other messages as a batch: JSON-RPC
//     lets a server process a batch's messages in any order;
//   - a batch once the protocol negotiated has none: the SDK ends the session; it is answered
//     -32600. A batch sent while an initialize is in flight waits (up to wait) for its
//     answer, which settles the protocol.
func (s *stdioSession) admit(ctx context.Context, line []byte, msgs []jsonrpc.Message, wait time.Duration) (*rpcResponse, [][]byte) {
	batch := line[0] == '['
	if batch {
		s.waitFor(ctx, wait, func() bool { return !s.initializing() })
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if batch && s.noBatches {
		return invalidRequest(nullID, "batch: JSON-RPC batches are not part of MCP "+batchesEnd+" and later"), nil
	}
	seen := make(map[jsonrpc.ID]bool, len(msgs))
	notes := 0
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			continue // the client's answer to a request of the server's
		}
		if !req.ID.IsValid() {
			notes++
			continue
		}
		if seen[req.ID] {
			return invalidRequest(nullID, "batch: id "+idString(req.ID)+" is used by two of its calls"), nil
		}
		if _, open := s.ids[req.ID]; open {
			why := "id " + idString(req.ID) + " is already in use by a call in flight"
			if batch {
				why = "batch: " + why
			}
			return invalidRequest(nullID, why), nil
		}
		seen[req.ID] = true
	}
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
			s.ids[req.ID] = req.Method == methodInitialize
		}
	}
	if !batch || notes == 0 {
		return nil, [][]byte{line}
	}
	items, _ := arrayItems(line)
	var forward [][]byte
	rest := []byte{'['}
	for i, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && !req.ID.IsValid() {
			forward = append(forward, items[i])
			continue
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest = append(rest, items[i]...)
	}
	if len(rest) > 1 {
		forward = append(forward, append(rest, ']'))
	}
	return nil, forward
}

// methodInitialize is the call whose answer settles the protocol version.
const methodInitialize = "initialize"

func idString(id jsonrpc.ID) string {
	if v, ok := id.Raw().(string); ok {
		return strconv.Quote(v)
	}
	return fmt.Sprint(id.Raw())
}

// count is the calls handed on whose answers are not out yet.
func (s *stdioSession) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids) + s.writing
}

func (s *stdioSession) initializing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, init := range s.ids {
		if init {
			return true
		}
	}
	return false
}

// answering frees the ids of the calls that msg, one message or a batch as the SDK writes
// it, answers, and reads the protocol version from an initialize's result. It returns how
// many calls msg answers: they count as open until written reports them out. An id is free
// again before its answer is written, as in the SDK, so a client that reuses an id once it
// has its answer is never refused. Messages with a method are the server's own requests and
// notifications, not answers; ids never handed on are ignored.
func (s *stdioSession) answering(msg []byte) int {
	s.mu.Lock()
	open := len(s.ids)
	s.mu.Unlock()
	if open == 0 {
		return 0
	}
	msg = bytes.TrimSpace(msg)
	items := [][]byte{msg}
	if len(msg) > 0 && msg[0] == '[' {
		items, _ = arrayItems(msg)
	}
	n := 0
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
		if id, err := jsonrpc.MakeID(raw); err == nil && id.IsValid() && s.free(id, fields["result"]) {
			n++
		}
	}
	return n
}

func (s *stdioSession) free(id jsonrpc.ID, result []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	init, ok := s.ids[id]
	if !ok {
		return false
	}
	delete(s.ids, id)
	s.writing++
	if init && result != nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(result, &r) == nil && r.ProtocolVersion >= batchesEnd {
			s.noBatches = true
		}
	}
	return true
}

// written reports n answers (from answering) out.
func (s *stdioSession) written(n int) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	s.writing -= n
	s.mu.Unlock()
	select {
	case s.answered <- struct{}{}:
	default:
	}
}

// wait returns once every call handed on is answered, ctx is done, or limit has passed
// without an answer.
func (s *stdioSession) wait(ctx context.Context, limit time.Duration) {
	s.waitFor(ctx, limit, func() bool { return s.count() == 0 })
}

// waitFor returns once done() holds after an answer, ctx is done, or limit has passed without
// an answer: each answer starts the limit again, so a script's thousand calls that keep being
// answered are all answered, and a call that never is holds the session for limit at most.
func (s *stdioSession) waitFor(ctx context.Context, limit time.Duration, done func() bool) {
	if done() {
		return
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for !done() {
		select {
		case <-s.answered:
			timer.Reset(limit)
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// answerWatch hands the SDK's writes on to w, freeing the ids of the calls they answer before
// and counting the answers out after.
type answerWatch struct {
	w    io.Writer
	sess *stdioSession
}

func (a answerWatch) Write(p []byte) (int, error) {
	answers := a.sess.answering(p)
	defer a.sess.written(answers)
	if fixed, ok := fixCodeZero(p); ok {
		if _, err := a.w.Write(fixed); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return a.w.Write(p)
}

// requestHead is how much of a request's first bytes the server reads its members from
// (memberOfHead): the id of a stdio line over the limit (readLine keeps that much of it), the
// method of a sessionless /mcp POST. Enough for a request written the usual way,
// {"jsonrpc":"2.0","id":…,"method":…,"params":…}.
const requestHead = 4096

// readLine appends the next line of br (without its newline) to buf. A line over max bytes
// is read to its end and dropped: tooLong reports it, and the line returned is its first
// requestHead bytes at most (idOfHead reads the request's id there).
func readLine(br *bufio.Reader, buf []byte, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			n := len(buf) + len(chunk)
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
				n-- // the newline is not the message's
			}
			if n > max {
				tooLong = true
				if len(buf) < requestHead {
					buf = append(buf, chunk[:min(len(chunk), requestHead-len(buf))]...)
				}
				buf = buf[:min(len(buf), requestHead)]
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
// when the SDK reads the line, with its messages as the SDK decodes them (a batch's in order;
// params and results left out).
func screenLine(msg []byte) (answer *rpcResponse, msgs []jsonrpc.Message) {
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
		return nil, []jsonrpc.Message{m}
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
			msgs = append(msgs, m)
		}
		return nil, msgs
	}
	return invalidRequest(nullID, "message must be a JSON object"), nil
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

// idOfHead returns the id of the request whose first bytes are head, when an "id" member
// comes, whole, among the top-level members head holds before it ends; else null.
func idOfHead(head []byte) json.RawMessage {
	v := memberOfHead(head, "id")
	if v == nil || !validID(v) || bytes.Equal(v, []byte("null")) {
		return nullID
	}
	return v
}

// memberOfHead returns the value of the top-level member name of the JSON object whose first
// bytes are head, when it comes whole before head ends (a value that ends where head ends may
// go on past it: 12 of 123); else nil.
func memberOfHead(head []byte, name string) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == name {
			if int(dec.InputOffset()) >= len(head) {
				return nil
			}
			return bytes.TrimSpace(v)
		}
	}
	return nil
}
