package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// DefaultProtocolVersion is what initialize answers when the client names no version.
const DefaultProtocolVersion = "2025-06-18"

// maxBatch bounds the entries of one JSON-RPC batch.
const maxBatch = 64

// rpcResponse is one JSON-RPC answer. ID is the request's id bytes, verbatim, or null.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// toolResult is an MCP CallToolResult holding the payload as text and as structured content.
// It keeps the payload's bytes only: rpcResponse.appendTo writes them twice straight from the
// payload, and MarshalJSON, the general path, builds the same object with encoding/json.
type toolResult struct {
	payload json.RawMessage
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func newToolResult(payload json.RawMessage) *toolResult { return &toolResult{payload: payload} }

// MarshalJSON encodes {"content":[{"type":"text","text":payload}],"structuredContent":payload}.
func (t *toolResult) MarshalJSON() ([]byte, error) {
	return encodeJSON(struct {
		Content           []textContent   `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}{textContents(t.payload), t.payload})
}

// textContents is a tool result's content: the payload as one text item.
func textContents(payload json.RawMessage) []textContent {
	return []textContent{{Type: "text", Text: string(payload)}}
}

// legacyResult answers the direct methods (health, prune_text, recover_text, recover_range):
// the payload's own fields, so result.status or result.prune_id work, plus the tool result's
// content, so result.content[0].text works too.
func legacyResult(payload json.RawMessage) (json.RawMessage, error) {
	content, err := encodeJSON(textContents(payload))
	if err != nil {
		return nil, err
	}
	p := bytes.TrimSpace(payload)
	if len(p) < 2 || p[0] != '{' {
		return nil, errors.New("payload is not an object")
	}
	var b bytes.Buffer
	b.Write(p[:len(p)-1])
	if len(bytes.TrimSpace(p[1:len(p)-1])) > 0 {
		b.WriteByte(',')
	}
	b.WriteString(`"content":`)
	b.Write(content)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// rpcHandler serves POST /rpc: JSON-RPC 2.0 with the rules of CONTRACT-NOTES.md. Every
// answer is HTTP 200, errors included; notifications get 202 and no body.
type rpcHandler struct {
	s *Server
}

func (h *rpcHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST a JSON-RPC 2.0 request to /rpc", http.StatusMethodNotAllowed)
		return
	}
	bodyBuf := getBuffer()
	defer putBuffer(bodyBuf)
	body, err := readBody(bodyBuf, http.MaxBytesReader(w, r.Body, h.s.maxBody), r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeJSON(w, http.StatusOK, inputTooLarge(mbe.Limit))
			return
		}
		writeJSON(w, http.StatusOK, &rpcResponse{JSONRPC: "2.0", ID: nullID, Error: &rpcError{Code: codeParse, Message: "parse error: reading body: " + err.Error()}})
		return
	}
	ctx := r.Context()
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		h.serveBatch(ctx, w, trimmed)
		return
	}
	payloadBuf := getBuffer()
	defer putBuffer(payloadBuf)
	resp := h.handleOne(withRequestID(ctx, requestID(ctx)), trimmed, payloadBuf)
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out := getBuffer()
	b, err := resp.appendTo(out.AvailableBuffer())
	if err != nil {
		putBuffer(out)
		http.Error(w, "encoding response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	// A known length spares net/http the chunked encoding of answers over 2 KiB.
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	if cap(b) > out.Cap() {
		out = bytes.NewBuffer(b[:0]) // keep the grown array for the next response
	}
	putBuffer(out)
}

// readBody reads r into buf and returns its bytes, which alias buf. A declared length sizes
// buf up front only up to preGrowBytes: the header is the client's word, not yet bytes, and a
// thousand connections that send headers and stall held a megabyte each (a security review
// took a server from 50 MB to 1.09 GB so). Past that, buf grows as the bytes arrive.
func readBody(buf *bytes.Buffer, r io.Reader, declared int64) ([]byte, error) {
	if declared > 0 {
		buf.Grow(int(min(declared, preGrowBytes)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// preGrowBytes bounds what a declared Content-Length reserves before its body arrives: above
// a 200-line prune's request (~10 KB), so the common body is read in one allocation.
const preGrowBytes = 64 << 10

// encode returns the response as one line of JSON (the tests' view of appendTo).
func (r *rpcResponse) encode() ([]byte, error) { return r.appendTo(nil) }

// appendTo appends the response to dst as one line of JSON. A tool result, whose payload
// appears twice (escaped as text, raw as structuredContent), is assembled directly from the
// payload bytes; everything else goes through encoding/json. Both give the same bytes (a
// test checks).
func (r *rpcResponse) appendTo(dst []byte) ([]byte, error) {
	tr, ok := r.Result.(*toolResult)
	if r.Error != nil || !ok {
		b, err := encodeJSON(r)
		if err != nil {
			return nil, err
		}
		return append(append(dst, b...), '\n'), nil
	}
	p := tr.payload
	b := slices.Grow(dst, 2*len(p)+len(p)/8+len(r.ID)+96)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, r.ID...)
	b = append(b, `,"result":{"content":[{"type":"text","text":`...)
	b = appendString(b, p)
	b = append(b, `}],"structuredContent":`...)
	b = append(b, p...)
	return append(b, "}}\n"...), nil
}

func (h *rpcHandler) serveBatch(ctx context.Context, w http.ResponseWriter, body []byte) {
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		writeJSON(w, http.StatusOK, parseError(err))
		return
	}
	switch {
	case len(items) == 0:
		writeJSON(w, http.StatusOK, &rpcResponse{JSONRPC: "2.0", ID: nullID, Error: &rpcError{Code: codeInvalidRequest, Message: "invalid request: empty batch"}})
		return
	case len(items) > maxBatch:
		writeJSON(w, http.StatusOK, &rpcResponse{JSONRPC: "2.0", ID: nullID, Error: &rpcError{
			Code: codeInvalidRequest, Message: "invalid request: batch of " + strconv.Itoa(len(items)) + " entries, at most " + strconv.Itoa(maxBatch) + " allowed"}})
		return
	}
	// The answers are encoded as they come, and once they pass maxBatchAnswer the calls left
	// are answered with an error instead of run: each call is bounded (a recovery asks for at
	// most twice its text, or 1 MiB), but 32 recoveries of control characters, escaped twice
	// over, made one 18 KB request a 413 MB answer.
	b := []byte{'['}
	answers := 0
	base := requestID(ctx)
	for i, item := range items {
		var resp *rpcResponse
		if len(b) > maxBatchAnswer {
			resp = batchTooLarge(item)
		} else {
			resp = h.handleOne(withRequestID(ctx, base+"."+strconv.Itoa(i)), item, nil)
		}
		if resp == nil {
			continue // a notification
		}
		if answers > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = resp.appendTo(b); err != nil {
			http.Error(w, "encoding response: "+err.Error(), http.StatusInternalServerError)
			return
		}
		b = b[:len(b)-1] // appendTo ends a line; in the array, the next element follows
		answers++
	}
	if answers == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(append(b, ']', '\n'))
}

// maxBatchAnswer is the size past which a batch's remaining calls are refused, not run.
var maxBatchAnswer = 64 << 20 // a variable for the tests

// batchTooLarge answers a batch entry left unrun because the batch's answers grew past
// maxBatchAnswer: nil for a notification, else -32600 with the entry's id.
func batchTooLarge(item []byte) *rpcResponse {
	id := nullID
	if fields, ok := objectFields(item); ok {
		raw, hasID := fields["id"]
		if !hasID {
			if _, isCall := fields["method"]; isCall {
				return nil // a notification: no answer
			}
		} else if validID(raw) {
			id = utf8ID(raw)
		}
	}
	return &rpcResponse{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: codeInvalidRequest,
		Message: "batch_answer_too_large: this batch's answers passed " + strconv.Itoa(maxBatchAnswer) + " bytes before this call; send it in another request",
		Data:    map[string]any{"code": "batch_answer_too_large", "max_batch_answer_bytes": maxBatchAnswer}}}
}

var nullID = json.RawMessage("null")

func parseError(err error) *rpcResponse {
	return &rpcResponse{JSONRPC: "2.0", ID: nullID, Error: &rpcError{Code: codeParse, Message: "parse error: " + err.Error()}}
}

// parseErrorOf answers msg, which validJSON refused, with encoding/json's account of why.
func parseErrorOf(msg []byte) *rpcResponse {
	if len(bytes.TrimSpace(msg)) == 0 {
		return parseError(errors.New("empty body"))
	}
	var v any
	err := json.Unmarshal(msg, &v)
	if err == nil { // validJSON agrees with encoding/json (FuzzValidJSON)
		err = errors.New("invalid JSON")
	}
	return parseError(err)
}

// handleOne answers one JSON-RPC message; nil means it was a notification. A tool's payload
// is encoded into payloadBuf when it is not nil (the answer then aliases it), else into
// memory of its own.
func (h *rpcHandler) handleOne(ctx context.Context, msg []byte, payloadBuf *bytes.Buffer) *rpcResponse {
	if !validJSON(msg) {
		return parseErrorOf(msg)
	}
	// Validated once here; the members are split without re-scanning with encoding/json.
	fields, ok := objectFields(msg)
	if !ok {
		return invalidRequest(nullID, "request must be a JSON object")
	}
	id, hasID := fields["id"]
	if hasID && !validID(id) {
		return invalidRequest(nullID, "id must be a string, a number or null")
	}
	if !hasID {
		id = nullID
	} else {
		id = utf8ID(id)
	}
	if v, ok := fields["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return invalidRequest(id, `jsonrpc must be "2.0"`)
	}
	var method string
	if raw, ok := fields["method"]; !ok || !isJSONString(raw) || json.Unmarshal(raw, &method) != nil {
		return invalidRequest(id, "method must be a string")
	}
	result, err := h.dispatch(ctx, method, fields["params"], hasID, payloadBuf)
	if !hasID {
		return nil // a notification: no answer, even on error
	}
	if err != nil {
		return &rpcResponse{JSONRPC: "2.0", ID: id, Error: toRPCError(err)}
	}
	return &rpcResponse{JSONRPC: "2.0", ID: id, Result: result}
}

// inputTooLarge answers a message over the server's limit, on /rpc and stdio alike.
func inputTooLarge(limit int64) *rpcResponse {
	return &rpcResponse{JSONRPC: "2.0", ID: nullID, Error: &rpcError{
		Code: codeInvalidRequest, Message: "input_too_large",
		Data: map[string]any{"code": "input_too_large", "max_body_bytes": limit},
	}}
}

func invalidRequest(id json.RawMessage, why string) *rpcResponse {
	return &rpcResponse{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: codeInvalidRequest, Message: "invalid request: " + why}}
}

func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	default:
		return string(raw) == "null"
	}
}

// utf8ID is a string id with raw bytes that are not UTF-8 re-encoded as encoding/json reads
// it (each bad byte U+FFFD), as /mcp and stdio echo it: echoed byte for byte, it would make
// the answer invalid JSON for Python's json, JavaScript's fatal TextDecoder and serde.
func utf8ID(raw json.RawMessage) json.RawMessage {
	if utf8.Valid(raw) {
		return raw
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	b, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	return b
}

func isJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}

// callParamsOf reads tools/call's params {name, arguments?, _meta?} without decoding the
// arguments (the tool's schema does that).
func callParamsOf(params json.RawMessage) (string, json.RawMessage, error) {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || params[0] != '{' {
		return "", nil, fieldErr("params", "must be an object with name and arguments")
	}
	p, ok := objectFields(params)
	if !ok {
		return "", nil, fieldErr("params", "must be an object with name and arguments")
	}
	var name string
	raw, ok := p["name"]
	if !ok {
		return "", nil, fieldErr("name", engine.ProblemRequired)
	}
	if !isJSONString(raw) || json.Unmarshal(raw, &name) != nil {
		return "", nil, fieldErr("name", "must be a string")
	}
	args := bytes.TrimSpace(p["arguments"])
	if len(args) > 0 && args[0] != '{' && string(args) != "null" {
		return "", nil, fieldErr("arguments", "must be an object")
	}
	return name, args, nil
}

// initializeParams are the parts of initialize's params the server reads.
type initializeParams struct {
	ProtocolVersion string `json:"protocolVersion"`
}

var initializeSchema = &Schema{
	Type:       "object",
	Properties: map[string]*Schema{"protocolVersion": {Type: "string"}},
}

// emptyParamsSchema accepts any object (list methods take an optional cursor).
var emptyParamsSchema = &Schema{Type: "object"}

func (h *rpcHandler) dispatch(ctx context.Context, method string, params json.RawMessage, hasID bool, payloadBuf *bytes.Buffer) (any, error) {
	tools := h.s.tools
	switch method {
	case "initialize":
		var p initializeParams
		if err := decodeArgs(initializeSchema, params, &p); err != nil {
			return nil, asParams(err)
		}
		return h.s.initializeResult(p.ProtocolVersion), nil
	case "notifications/initialized":
		return map[string]bool{"ok": true}, nil
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		if err := emptyParamsSchema.validate(params); err != nil {
			return nil, asParams(err)
		}
		return h.s.listTools(), nil
	case "tools/call":
		name, args, err := callParamsOf(params)
		if err != nil {
			return nil, err
		}
		payload, err := tools.callTo(ctx, "rpc", name, args, payloadBuf)
		if err != nil {
			return nil, err
		}
		return newToolResult(payload), nil
	case "resources/list":
		return map[string][]struct{}{"resources": {}}, nil
	case "resources/templates/list":
		return map[string][]struct{}{"resourceTemplates": {}}, nil
	case "prompts/list":
		return map[string][]struct{}{"prompts": {}}, nil
	case ToolHealth, ToolPrune, ToolRecover, ToolRecoverAlias:
		payload, err := tools.call(ctx, "rpc-legacy", method, params)
		if err != nil {
			return nil, asParams(err)
		}
		return legacyResult(payload)
	}
	if !hasID {
		return nil, nil // unknown notifications (notifications/cancelled, ...) are ignored
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "method not found: " + method, Data: map[string]string{"method": method}}
}

// asParams names the request's params where err names the whole arguments object: a method
// whose params are the object validated (initialize, tools/list, the legacy direct methods)
// has no "arguments" field to point at.
func asParams(err error) error {
	var fe *engine.FieldError
	if errors.As(err, &fe) && fe.Field == errNotObject.Field {
		return &engine.FieldError{Field: "params", Problem: fe.Problem, More: fe.More}
	}
	return err
}

// writeJSON writes v as UTF-8 JSON without HTML escaping.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := encodeJSON(v)
	if err != nil {
		http.Error(w, "encoding response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
