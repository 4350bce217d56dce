package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// The go-sdk (v1.8.0) answers two session errors with JSON-RPC error code 0, which is no
// code at all; they are rewritten on the way out, over stdio (answerWatch) and /mcp.

// codeZero opens those errors: a call before initialize ("… is invalid during session
// initialization") and a second initialize ("duplicate \"initialize\" received").
var codeZero = []byte(`"error":{"code":0,`)

// fixCodeZeroFrame is fixCodeZero for one write of a Streamable HTTP answer: a server-sent
// event whose data line is the message (the SDK writes each event whole, and answers every
// POST with an event stream).
func fixCodeZeroFrame(p []byte) ([]byte, bool) {
	if len(p) > 4096 || !bytes.Contains(p, codeZero) {
		return nil, false
	}
	const data = "data: "
	start := bytes.Index(p, []byte("\n"+data))
	if start >= 0 {
		start += 1 + len(data)
	} else if bytes.HasPrefix(p, []byte(data)) {
		start = len(data)
	} else {
		return nil, false
	}
	end := bytes.IndexByte(p[start:], '\n')
	if end < 0 {
		end = len(p) - start
	}
	fixed, ok := fixCodeZero(p[start : start+end])
	if !ok {
		return nil, false
	}
	out := append(append(append([]byte{}, p[:start]...), fixed...), p[start+end:]...)
	return out, true
}

// codeZeroWriter rewrites the SDK's code-0 errors (codeZero) in /mcp answers.
type codeZeroWriter struct {
	http.ResponseWriter
}

func (w codeZeroWriter) Write(p []byte) (int, error) {
	if fixed, ok := fixCodeZeroFrame(p); ok {
		if _, err := w.ResponseWriter.Write(fixed); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (flushes, deadlines).
func (w codeZeroWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush keeps event streams flowing for callers that assert http.Flusher.
func (w codeZeroWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// fixCodeZeroErrors is the /mcp handler with the SDK's code-0 errors rewritten.
func fixCodeZeroErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(codeZeroWriter{w}, r)
	})
}

// fixCodeZero rewrites error answers of code 0 to -32600 Invalid Request, which is what
// those calls are, so a client can tell them by their code; in a batch's answer, each such
// element. Only small writes are looked at (an error answer is small; a result can be
// megabytes), and only an answer whose own top-level error has code 0 changes.
func fixCodeZero(p []byte) ([]byte, bool) {
	if len(p) > 4096 || !bytes.Contains(p, codeZero) {
		return nil, false
	}
	body, nl := bytes.CutSuffix(p, []byte{'\n'})
	if fixed, ok := fixOneCodeZero(body); ok {
		return appendNewline(fixed, nl), true
	}
	var batch []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte{'['}) && json.Unmarshal(body, &batch) == nil {
		changed := false
		for i, m := range batch {
			if fixed, ok := fixOneCodeZero(m); ok {
				batch[i], changed = fixed, true
			}
		}
		if changed {
			out := []byte{'['}
			for i, m := range batch {
				if i > 0 {
					out = append(out, ',')
				}
				out = append(out, m...)
			}
			return appendNewline(append(out, ']'), nl), true
		}
	}
	return nil, false
}

// fixOneCodeZero rewrites one answer whose top-level error has code 0.
func fixOneCodeZero(m []byte) ([]byte, bool) {
	var top struct {
		Error *struct {
			Code *json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(m, &top) != nil || top.Error == nil || top.Error.Code == nil || string(*top.Error.Code) != "0" {
		return nil, false
	}
	// The top-level error is the only place the bytes can be: inside a string the quotes
	// would be escaped, and an id is a number or a string.
	return bytes.Replace(m, codeZero, []byte(`"error":{"code":`+strconv.Itoa(codeInvalidRequest)+`,`), 1), true
}

func appendNewline(b []byte, nl bool) []byte {
	if nl {
		return append(b, '\n')
	}
	return b
}

func (answerWatch) Close() error { return nil }
