package server

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFixCodeZero(t *testing.T) {
	tests := []struct {
		name, in, want string // want "" = left as written
	}{
		{"error of code 0", `{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"duplicate \"initialize\" received"}}` + "\n",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"duplicate \"initialize\" received"}}` + "\n"},
		{"another code", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, ""},
		{"a result that quotes the bytes", `{"jsonrpc":"2.0","id":1,"result":{"text":"\"error\":{\"code\":0,"}}`, ""},
		{"a result holding such an object", `{"jsonrpc":"2.0","id":1,"result":{"error":{"code":0,"message":"m"}}}`, ""},
		{"a batch", `[{"jsonrpc":"2.0","id":4,"error":{"code":0,"message":"m"}},{"jsonrpc":"2.0","id":5,"result":{}}]`,
			`[{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"m"}},{"jsonrpc":"2.0","id":5,"result":{}}]`},
		{"not JSON", `"error":{"code":0,`, ""},
	}
	for _, tt := range tests {
		got, ok := fixCodeZero([]byte(tt.in))
		if tt.want == "" {
			assert.False(t, ok, tt.name)
			continue
		}
		require.True(t, ok, tt.name)
		assert.Equal(t, tt.want, string(got), tt.name)
	}
	event := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":0,\"message\":\"m\"}}\n\n"
	got, ok := fixCodeZeroFrame([]byte(event))
	require.True(t, ok)
	assert.Equal(t, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32600,\"message\":\"m\"}}\n\n", string(got))
}

// FuzzFixCodeZero: the rewrite never panics, changes nothing but codes 0 of top-level errors
// (each "code":0 becomes "code":-32600, and nothing else moves), and keeps JSON valid.
func FuzzFixCodeZero(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"m"}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":4,"error":{"code":0,"message":"m"}},{"id":5,"result":{"error":{"code":0,"x":1}}}]`))
	f.Add([]byte("event: message\ndata: {\"id\":7,\"error\":{\"code\":0,\"message\":\"m\"}}\n\n"))
	f.Add([]byte(`{"id":"\"error\":{\"code\":0,","error":{"code":0,"message":"m"}}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, fix := range []func([]byte) ([]byte, bool){fixCodeZero, fixCodeZeroFrame} {
			got, ok := fix(p)
			if !ok {
				continue
			}
			zero, fixed := []byte(`"code":0,`), []byte(`"code":-32600,`)
			n := bytes.Count(got, fixed) - bytes.Count(p, fixed)
			if n < 1 {
				t.Fatalf("changed but no code rewritten: %q -> %q", p, got)
			}
			if back := bytes.ReplaceAll(got, fixed, zero); !bytes.Equal(bytes.ReplaceAll(p, fixed, zero), back) {
				t.Fatalf("more than codes changed: %q -> %q", p, got)
			}
			if json.Valid(p) && !json.Valid(got) {
				t.Fatalf("valid JSON became invalid: %q -> %q", p, got)
			}
		}
	})
}
