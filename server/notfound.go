package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// The SDK (v1.8.0) answers a /mcp request for a method it does not know with HTTP 400 and a
// line of plain text ("JSON RPC not handled: …"), before protocol 2026-07-28. /rpc and stdio
// answer it with JSON-RPC's -32601, which clients act on. notFoundWriter gives /mcp that
// answer: the request's id comes from the head of its body, recorded as the SDK reads it.
// Batches keep the SDK's answer.
type notFoundWriter struct {
	http.ResponseWriter
	head *headRecorder
	// pending holds back a 400 until its body shows what it is; replaced drops the SDK's
	// text once the JSON-RPC error is written.
	pending, replaced bool
}

// notHandled opens the SDK's text for a method it does not handle (jsonrpc2.ErrNotHandled).
var notHandled = []byte("JSON RPC not handled")

func (w *notFoundWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && !w.pending && !w.replaced {
		w.pending = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *notFoundWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	if w.pending {
		w.pending = false
		if id, method, ok := w.single(); ok && bytes.HasPrefix(p, notHandled) {
			w.replaced = true
			h := w.Header()
			h.Del("Content-Length")
			h.Del("X-Content-Type-Options")
			if id == nil {
				// A notification gets no answer (JSON-RPC), as on /rpc: 202, no body.
				h.Del("Content-Type")
				w.ResponseWriter.WriteHeader(http.StatusAccepted)
				return len(p), nil
			}
			writeJSON(w.ResponseWriter, http.StatusOK, struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *rpcError       `json:"error"`
			}{"2.0", id, &rpcError{Code: codeMethodNotFound, Message: "method not found: " + method, Data: map[string]string{"method": method}}})
			return len(p), nil
		}
		w.ResponseWriter.WriteHeader(http.StatusBadRequest)
	}
	return w.ResponseWriter.Write(p)
}

// release writes a 400 held back that no body followed.
func (w *notFoundWriter) release() {
	if w.pending {
		w.pending = false
		w.ResponseWriter.WriteHeader(http.StatusBadRequest)
	}
}

// single returns the id and method of the request the head holds (a nil id: a
// notification), unless it is a batch, names no method, or its id may lie past the head
// (the TypeScript SDK writes it last, after the params): then the SDK's answer stands
// rather than one with the wrong id.
func (w *notFoundWriter) single() (id json.RawMessage, method string, ok bool) {
	head := bytes.TrimSpace(w.head.head)
	if len(head) == 0 || head[0] != '{' {
		return nil, "", false
	}
	if err := json.Unmarshal(memberOfHead(head, "method"), &method); err != nil {
		return nil, "", false
	}
	if memberOfHead(head, "id") == nil {
		if len(w.head.head) >= requestHead {
			return nil, "", false // the id may be past what was kept
		}
		return nil, method, true
	}
	return idOfHead(head), method, true
}

// Unwrap lets http.ResponseController reach the connection (flushes, deadlines).
func (w *notFoundWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush keeps event streams flowing for callers that assert http.Flusher.
func (w *notFoundWriter) Flush() {
	w.release()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// headRecorder keeps the first requestHead bytes read from a body.
type headRecorder struct {
	io.ReadCloser
	head []byte
}

func (r *headRecorder) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if room := requestHead - len(r.head); room > 0 {
		r.head = append(r.head, p[:min(n, room)]...)
	}
	return n, err
}

// methodNotFoundAsRPC is the /mcp handler with its answer to an unknown method in /rpc's form.
func methodNotFoundAsRPC(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		rec := &headRecorder{ReadCloser: r.Body}
		r.Body = rec
		nw := &notFoundWriter{ResponseWriter: w, head: rec}
		next.ServeHTTP(nw, r)
		nw.release()
	})
}
