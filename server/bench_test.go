package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// BenchmarkRPCPrune measures one POST /rpc prune_text through the whole handler (guard,
// JSON-RPC, validation, engine, encoding) without the network.
func BenchmarkRPCPrune(b *testing.B) {
	for _, n := range []int{200, 5000} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			env := newEnvChars(b, engine.DefaultMaxInputChars, nil)
			h := env.srv.Handler()
			args := must(json.Marshal(map[string]any{"text": codeText(n), "goal_hint": "parse_header", "source_type": "code", "options": engine.DefaultOptions()}))
			body := []byte(callBody("1", "prune_text", string(args)))
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/rpc", bytes.NewReader(body))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte(`"error"`)) || bytes.Contains(w.Body.Bytes(), []byte(`"used_fallback":true`)) {
					b.Fatalf("%d %.200s", w.Code, w.Body.Bytes())
				}
			}
		})
	}
}
