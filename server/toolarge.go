package server

import "net/http"

// The SDK answers a /mcp body over the limit with HTTP 413 and a line of plain text; /rpc and
// stdio answer the same body with a JSON-RPC error a client can act on (input_too_large, with
// max_body_bytes). tooLargeWriter gives /mcp's 413 that error as its body. The status stays
// 413: the Streamable HTTP transport answers a POST it cannot accept with an HTTP error, whose
// body may be a JSON-RPC error without an id.
type tooLargeWriter struct {
	http.ResponseWriter
	limit int64
	// replaced is set once the 413 is written: the SDK's text that follows is dropped.
	replaced bool
}

func (w *tooLargeWriter) WriteHeader(code int) {
	if code != http.StatusRequestEntityTooLarge || w.replaced {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.replaced = true
	w.Header().Del("Content-Length")
	w.Header().Del("X-Content-Type-Options")
	writeJSON(w.ResponseWriter, code, inputTooLarge(w.limit))
}

func (w *tooLargeWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (flushes, deadlines).
func (w *tooLargeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush keeps event streams flowing for callers that assert http.Flusher.
func (w *tooLargeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// tooLargeAsRPC is the /mcp handler with its body-limit answer in /rpc's form.
func tooLargeAsRPC(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&tooLargeWriter{ResponseWriter: w, limit: limit}, r)
	})
}
