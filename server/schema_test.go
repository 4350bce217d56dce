package server_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/toolsnaps from the current tool definitions")

type listedTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
}

func listTools(t *testing.T) []listedTool {
	t.Helper()
	env := newEnv(t, nil)
	_, b := post(t, env.http.URL+"/rpc", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var res struct{ Tools []listedTool }
	require.NoError(t, json.Unmarshal(decodeRPC(t, b).Result, &res))
	require.Len(t, res.Tools, 3)
	return res.Tools
}

// TestToolSnapshots makes every change to a tool's name, description or schema a visible
// diff in testdata/toolsnaps (regenerate with go test ./server -run TestToolSnapshots -update).
func TestToolSnapshots(t *testing.T) {
	for _, tl := range listTools(t) {
		t.Run(tl.Name, func(t *testing.T) {
			got, err := json.MarshalIndent(tl, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			path := filepath.Join("testdata", "toolsnaps", tl.Name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to create the snapshot")
			assert.JSONEq(t, string(want), string(got))
		})
	}
}

// The seed's §4.0 schemas, verbatim.
const seedPrune = `{
  "type": "object",
  "properties": {
    "text": {"type": "string"},
    "goal_hint": {"type": "string"},
    "source_type": {"type": "string", "enum": ["code", "logs", "docs"]},
    "options": {
      "type": "object",
      "properties": {
        "max_prune_ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "min_keep_lines": {"type": "integer", "minimum": 0},
        "timeout_ms": {"type": "integer", "minimum": 1},
        "annotate_lines": {"type": "boolean"},
        "include_markers": {"type": "boolean"}
      },
      "required": ["max_prune_ratio", "min_keep_lines", "timeout_ms", "annotate_lines", "include_markers"],
      "additionalProperties": false
    }
  },
  "required": ["text", "goal_hint", "source_type", "options"],
  "additionalProperties": false
}`

const seedRecover = `{
  "type": "object",
  "properties": {
    "prune_id": {"type": "string"},
    "ranges": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "start_line": {"type": "integer", "minimum": 1},
          "end_line": {"type": "integer", "minimum": 1}
        },
        "required": ["start_line", "end_line"],
        "additionalProperties": false
      }
    },
    "include_line_numbers": {"type": "boolean"}
  },
  "required": ["prune_id", "ranges", "include_line_numbers"],
  "additionalProperties": false
}`

// extensions are prune_text's optional properties beyond the seed.
var extensions = []string{"scorer", "path", "language", "threshold", "token_budget"}

// stripDescriptions deletes the annotations a schema may add to the seed's without changing
// what it accepts: descriptions and examples.
func stripDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "description")
		delete(x, "examples")
		for _, c := range x {
			stripDescriptions(c)
		}
	case []any:
		for _, c := range x {
			stripDescriptions(c)
		}
	}
	return v
}

// TestSchemasAreTheSeeds checks that, descriptions, examples and the optional extensions aside, the
// published schemas are exactly seed §4.0's.
func TestSchemasAreTheSeeds(t *testing.T) {
	byName := map[string]map[string]any{}
	for _, tl := range listTools(t) {
		byName[tl.Name] = stripDescriptions(tl.InputSchema).(map[string]any)
	}
	prune := byName["prune_text"]
	props := prune["properties"].(map[string]any)
	for _, ext := range extensions {
		require.Contains(t, props, ext)
		delete(props, ext)
	}
	assert.JSONEq(t, seedPrune, string(must(json.Marshal(prune))))
	assert.JSONEq(t, seedRecover, string(must(json.Marshal(byName["recover_text"]))))
	assert.JSONEq(t, `{"type":"object","properties":{},"additionalProperties":false}`, string(must(json.Marshal(byName["health"]))))
}

// TestSchemasMatchArgumentStructs keeps the typed argument structs and the schemas in step:
// every schema property is a JSON field of the struct and vice versa.
func TestSchemasMatchArgumentStructs(t *testing.T) {
	schemas := map[string]map[string]any{}
	for _, tl := range listTools(t) {
		schemas[tl.Name] = tl.InputSchema
	}
	props := func(s map[string]any) []string {
		var out []string
		for k := range s["properties"].(map[string]any) {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	tests := []struct {
		name   string
		schema map[string]any
		typ    reflect.Type
	}{
		{name: "prune_text", schema: schemas["prune_text"], typ: reflect.TypeFor[server.PruneArgs]()},
		{name: "prune_text.options", schema: schemas["prune_text"]["properties"].(map[string]any)["options"].(map[string]any), typ: reflect.TypeFor[engine.Options]()},
		{name: "recover_text", schema: schemas["recover_text"], typ: reflect.TypeFor[server.RecoverArgs]()},
		{name: "recover_text.ranges", schema: schemas["recover_text"]["properties"].(map[string]any)["ranges"].(map[string]any)["items"].(map[string]any), typ: reflect.TypeFor[engine.Range]()},
		{name: "health", schema: schemas["health"], typ: reflect.TypeFor[server.HealthArgs]()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var fields []string
			for i := 0; i < tc.typ.NumField(); i++ {
				name, _, _ := strings.Cut(tc.typ.Field(i).Tag.Get("json"), ",")
				fields = append(fields, name)
			}
			sort.Strings(fields)
			assert.Equal(t, fields, props(tc.schema))
		})
	}
}
