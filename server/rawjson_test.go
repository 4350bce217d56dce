package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzObjectFields checks the fast splitter against encoding/json on every valid input: same
// verdict on "is it an object/array", same members, same raw values.
func FuzzObjectFields(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `{"a":1}`, ` { "a" : "x\"}]" , "b":[1,{"c":"]"}],"a":null } `, `[1, "two", {"3":[4]}, true, null, -5.5e3]`,
		`{"text":"L1\nL2","goal_hint":"é│⟦","options":{"max_prune_ratio":0.5}}`, `{"k\u00e9y":{}}`, `"str"`, `12`, `null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(b, &want)
		got, ok := objectFields(b)
		if wantErr != nil || want == nil {
			assert.False(t, ok && bytes.TrimSpace(b)[0] != '{', "accepted a non-object")
		} else {
			require.True(t, ok, "rejected an object: %s", b)
			require.Len(t, got, len(want))
			for k, v := range want {
				assert.Equal(t, string(v), string(got[k]), "member %q", k)
			}
		}
		var wantArr []json.RawMessage
		arrErr := json.Unmarshal(b, &wantArr)
		gotArr, aok := arrayItems(b)
		if arrErr == nil && wantArr != nil {
			require.True(t, aok)
			require.Len(t, gotArr, len(wantArr))
			for i := range wantArr {
				assert.Equal(t, string(wantArr[i]), string(gotArr[i]))
			}
		} else {
			assert.False(t, aok && bytes.TrimSpace(b)[0] != '[')
		}
	})
}

// FuzzStrings checks the string fast paths against encoding/json: unquoting any valid string
// literal, and quoting any valid UTF-8 string byte for byte like an Encoder without HTML escaping.
func FuzzStrings(f *testing.F) {
	for _, seed := range []string{"", "L1\nL2", `a"b\c/d`, "tab\there\r\n", "\x00\x01\x1f\x7f", "é│⟦PRUNÉ⟧", "\u2028\u2029", "<&>", "\b\f"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := []byte(`"` + s + `"`)
		if json.Valid(lit) {
			var want string
			require.NoError(t, json.Unmarshal(lit, &want))
			got, err := unquoteString(lit)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		require.NoError(t, e.Encode(s))
		var want string
		require.NoError(t, json.Unmarshal(enc.Bytes(), &want))
		got, err := unquoteString(bytes.TrimSpace(enc.Bytes()))
		require.NoError(t, err)
		assert.Equal(t, want, got)
		if utf8.ValidString(s) {
			assert.Equal(t, string(bytes.TrimSpace(enc.Bytes())), string(appendString(nil, []byte(s))))
		}
	})
}

// TestToolResponseEncoding checks that the hand-assembled tool response is byte for byte what
// encoding/json gives.
func TestToolResponseEncoding(t *testing.T) {
	for _, tc := range []struct {
		name    string
		id      string
		payload any
	}{
		{name: "prune payload", id: `2`, payload: map[string]any{"prune_id": "prn_x", "pruned_text": "1│ L1\n⟦PRUNÉ: lignes 2-4 (3) raison=hors focus⟧\t<&>\"\\", "stats": map[string]int{"kept_lines": 1}}},
		{name: "string id", id: `"req-é\n"`, payload: map[string]any{"raw_text": "\u2028\x01"}},
		{name: "null id", id: `null`, payload: map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := encodeJSON(tc.payload)
			require.NoError(t, err)
			resp := &rpcResponse{JSONRPC: "2.0", ID: json.RawMessage(tc.id), Result: newToolResult(p)}
			want, err := encodeJSON(resp)
			require.NoError(t, err)
			got, err := resp.encode()
			require.NoError(t, err)
			assert.Equal(t, string(want)+"\n", string(got))
		})
	}
}

// FuzzValidJSON holds the request validator to json.Valid on any input.
func FuzzValidJSON(f *testing.F) {
	for _, seed := range []string{
		``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":1,}`, `[1,]`, `01`, `-0.5e+3`, `1.`, `.5`, `-`, `1e`, `"\u00e9\ud83d"`, `"\x"`,
		"\"tab\there\"", "\"\x1f\"", "\"\x7f\xff\"", `{"a" 1}`, `{"a":}`, `[true,false,null]`, `tru`, `nul`, ` [ 1 , { } ] `,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"prune_text","arguments":{"text":"a\nb\\\"c"}}}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		assert.Equal(t, json.Valid(b), validJSON(b), "%q", b)
	})
}

// TestUnicodeJSON: a JSON text decodes without a replacement character exactly when it is
// UTF-8 and its surrogate escapes pair up; encoding/json's own output always does.
func TestUnicodeJSON(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"text":"café"}`:                    true,
		"{\"text\":\"caf\xe9\"}":             false,
		`{"text":"a\ud800b"}`:                false,
		`{"text":"\udc00"}`:                  false,
		`{"text":"\ud83d\ude00"}`:            true,
		`{"text":"\uD83D\uDE00 and \u00e9"}`: true,
		`{"text":"\\ud800"}`:                 true,
		`{"text":"\ud800\u0041"}`:            false,
		`{"text":"x","goal_hint":"\ud800"}`:  false,
		`{"text":"\\\ud800"}`:                false,
		`{"text":"\n\t\"\\"}`:                true,
	} {
		assert.Equal(t, want, unicodeJSON([]byte(raw)), raw)
		var v map[string]string
		require.NoError(t, json.Unmarshal([]byte(raw), &v), raw)
		replaced := false
		for _, s := range v {
			replaced = replaced || strings.Contains(s, "\ufffd")
		}
		assert.Equal(t, !want, replaced, "encoding/json replaced something: %s", raw)
	}
	for _, s := range []string{"", "plain", "é\u2028😀\x00\x1f\"\\", strings.Repeat("\\u", 3)} {
		assert.True(t, unicodeJSON(must(json.Marshal(map[string]string{"text": s}))), s)
	}
}
