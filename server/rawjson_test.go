package server

import (
	"bytes"
	"encoding/json"
	"testing"

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
