package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pruneArgs = `{"text":"L1\nL2\nL3\nL4","goal_hint":"garder L1","source_type":"docs","options":{"max_prune_ratio":0.75,"min_keep_lines":1,"timeout_ms":1500,"annotate_lines":true,"include_markers":true}}`

func callBody(id, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func TestRPCErrors(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/rpc"
	tests := []struct {
		name      string
		body      string
		code      int64
		id        string
		dataField string // expected error.data.field, if any
		message   string // expected error.message, if given
	}{
		{name: "parse error", body: `{"jsonrpc":"2.0","id":1,`, code: -32700, id: "null"},
		{name: "empty body", body: ``, code: -32700, id: "null"},
		{name: "not an object", body: `"hello"`, code: -32600, id: "null"},
		{name: "jsonrpc missing", body: `{"id":7,"method":"ping"}`, code: -32600, id: "7"},
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":"a","method":"ping"}`, code: -32600, id: `"a"`},
		{name: "method not a string", body: `{"jsonrpc":"2.0","id":3,"method":5}`, code: -32600, id: "3"},
		{name: "id is an object", body: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, code: -32600, id: "null"},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":4,"method":"tools/delete"}`, code: -32601, id: "4"},
		{name: "unknown tool", body: callBody("5", "summarise", `{}`), code: -32602, id: "5", dataField: "name"},
		{name: "tools/call without name", body: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}}`, code: -32602, id: "6", dataField: "name"},
		{name: "params not an object", body: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1]}`, code: -32602, id: "6", dataField: "params"},
		// Where the params are the object itself, the error names params, not "arguments".
		{name: "tools/list params not an object", body: `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":[]}`, code: -32602, id: "6", dataField: "params", message: "invalid params: must be a JSON object"},
		{name: "legacy method params not an object", body: `{"jsonrpc":"2.0","id":6,"method":"health","params":[]}`, code: -32602, id: "6", dataField: "params"},
		{name: "arguments not an object", body: callBody("6", "prune_text", `"text"`), code: -32602, id: "6", dataField: "arguments"},
		{name: "null request", body: `null`, code: -32600, id: "null"},
		{name: "truncated string", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"prune_text","arguments":{"text":"abc}}}`, code: -32700, id: "null"},
		{name: "missing text", body: callBody("8", "prune_text", `{"goal_hint":"x","source_type":"code","options":{"max_prune_ratio":0.5,"min_keep_lines":1,"timeout_ms":10,"annotate_lines":true,"include_markers":true}}`), code: -32602, id: "8", dataField: "text", message: "text is required"},
		{name: "text wrong type", body: callBody("9", "prune_text", strings.Replace(pruneArgs, `"L1\nL2\nL3\nL4"`, `42`, 1)), code: -32602, id: "9", dataField: "text"},
		{name: "bad source_type", body: callBody("10", "prune_text", strings.Replace(pruneArgs, `"docs"`, `"prose"`, 1)), code: -32602, id: "10", dataField: "source_type"},
		{name: "ratio out of range", body: callBody("11", "prune_text", strings.Replace(pruneArgs, `0.75`, `1.5`, 1)), code: -32602, id: "11", dataField: "options.max_prune_ratio", message: "invalid options.max_prune_ratio: must be a number between 0 and 1"},
		{name: "min_keep_lines not integer", body: callBody("12", "prune_text", strings.Replace(pruneArgs, `"min_keep_lines":1`, `"min_keep_lines":1.5`, 1)), code: -32602, id: "12", dataField: "options.min_keep_lines"},
		{name: "min_keep_lines with a fraction", body: callBody("12", "prune_text", strings.Replace(pruneArgs, `"min_keep_lines":1`, `"min_keep_lines":1.0`, 1)), code: -32602, id: "12", dataField: "options.min_keep_lines",
			message: "invalid options.min_keep_lines: must be an integer, written without a fraction or an exponent (120, not 120.0 or 1.2e2)"},
		{name: "end_line past int64", body: callBody("12", "recover_text", `{"prune_id":"p","ranges":[{"start_line":1,"end_line":99999999999999999999}],"include_line_numbers":true}`), code: -32602, id: "12", dataField: "ranges[0].end_line",
			message: "invalid ranges[0].end_line: is out of range for an integer"},
		{name: "start_line far below the minimum", body: callBody("12", "recover_text", `{"prune_id":"p","ranges":[{"start_line":-99999999999999999999,"end_line":1}],"include_line_numbers":true}`), code: -32602, id: "12", dataField: "ranges[0].start_line"},
		{name: "timeout_ms string", body: callBody("13", "prune_text", strings.Replace(pruneArgs, `1500`, `"1500"`, 1)), code: -32602, id: "13", dataField: "options.timeout_ms"},
		{name: "unknown top-level field", body: callBody("14", "prune_text", strings.Replace(pruneArgs, `{"text"`, `{"colour":"red","text"`, 1)), code: -32602, id: "14", dataField: "colour"},
		{name: "field names are case-sensitive", body: callBody("15", "prune_text", strings.Replace(pruneArgs, `"text"`, `"TEXT"`, 1)), code: -32602, id: "15", dataField: "text"},
		{name: "unknown option", body: callBody("16", "prune_text", strings.Replace(pruneArgs, `"timeout_ms"`, `"deadline":1,"timeout_ms"`, 1)), code: -32602, id: "16", dataField: "options.deadline"},
		{name: "missing option", body: callBody("17", "prune_text", strings.Replace(pruneArgs, `"annotate_lines":true,`, ``, 1)), code: -32602, id: "17", dataField: "options.annotate_lines", message: "options.annotate_lines is required"},
		// A caller (often a model) mends its call in one go: every missing field is named,
		// and a missing object says what it holds.
		{name: "missing fields", body: callBody("18", "prune_text", `{"text":"x","goal_hint":"y"}`), code: -32602, id: "18", dataField: "source_type",
			message: "source_type is required; also missing: options"},
		{name: "missing options", body: callBody("19", "prune_text", `{"text":"x","goal_hint":"y","source_type":"docs"}`), code: -32602, id: "19", dataField: "options",
			message: `options is required: an object with max_prune_ratio, min_keep_lines, timeout_ms, annotate_lines, include_markers, e.g. {"max_prune_ratio":0.55,"min_keep_lines":40,"timeout_ms":1500,"annotate_lines":false,"include_markers":true}`},
		{name: "missing options fields", body: callBody("20", "prune_text", `{"text":"x","goal_hint":"y","source_type":"docs","options":{"min_keep_lines":1}}`), code: -32602, id: "20", dataField: "options.max_prune_ratio",
			message: "options.max_prune_ratio is required; also missing: options.timeout_ms, options.annotate_lines, options.include_markers"},
		{name: "unknown scorer", body: callBody("18", "prune_text", strings.Replace(pruneArgs, `{"text"`, `{"scorer":"nope","text"`, 1)), code: -32602, id: "18", dataField: "scorer"},
		{name: "threshold out of range", body: callBody("19", "prune_text", strings.Replace(pruneArgs, `{"text"`, `{"threshold":2,"text"`, 1)), code: -32602, id: "19", dataField: "threshold"},
		{name: "recover unknown id", body: callBody("20", "recover_text", `{"prune_id":"prn_nope","ranges":[{"start_line":1,"end_line":2}],"include_line_numbers":true}`), code: -32004, id: "20"},
		{name: "recover ranges wrong type", body: callBody("21", "recover_text", `{"prune_id":"prn_nope","ranges":{"start_line":1},"include_line_numbers":true}`), code: -32602, id: "21", dataField: "ranges"},
		{name: "recover range item extra field", body: callBody("22", "recover_text", `{"prune_id":"p","ranges":[{"start_line":1,"end_line":2,"step":1}],"include_line_numbers":true}`), code: -32602, id: "22", dataField: "ranges[0].step"},
		{name: "recover missing include_line_numbers", body: callBody("23", "recover_text", `{"prune_id":"p","ranges":[]}`), code: -32602, id: "23", dataField: "include_line_numbers"},
		{name: "health with arguments", body: callBody("24", "health", `{"verbose":true}`), code: -32602, id: "24", dataField: "verbose",
			message: "invalid verbose: is not a known field (this takes no fields)"},
		{name: "string id echoed", body: `{"jsonrpc":"2.0","id":"req-\u00e9","method":"nope"}`, code: -32601, id: `"req-é"`},
		// An id that is not UTF-8 is echoed as encoding/json reads it, as /mcp does: byte for
		// byte, it would make the answer invalid JSON.
		{name: "string id not UTF-8", body: "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"nope\"}", code: -32601, id: `"a\ufffdb"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, b := post(t, url, tc.body)
			require.Equal(t, http.StatusOK, status, "JSON-RPC errors are HTTP 200: %s", b)
			r := decodeRPC(t, b)
			assert.Equal(t, "2.0", r.JSONRPC)
			require.NotNil(t, r.Error, "body: %s", b)
			assert.Equal(t, tc.code, r.Error.Code, r.Error.Message)
			assert.JSONEq(t, tc.id, string(r.ID))
			assert.Nil(t, r.Result)
			if tc.dataField != "" {
				assert.Equal(t, tc.dataField, r.Error.Data["field"], r.Error.Message)
				assert.Contains(t, r.Error.Message, tc.dataField)
			}
			if tc.message != "" {
				assert.Equal(t, tc.message, r.Error.Message)
			}
		})
	}
}

func TestRPCHandshakeAndLists(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/rpc"
	tests := []struct {
		name   string
		body   string
		result string // exact JSON, or "" to skip
		check  func(t *testing.T, result json.RawMessage)
	}{
		{name: "initialize echoes protocolVersion", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`,
			check: func(t *testing.T, res json.RawMessage) {
				var r struct {
					ProtocolVersion string         `json:"protocolVersion"`
					Capabilities    map[string]any `json:"capabilities"`
					ServerInfo      map[string]any `json:"serverInfo"`
				}
				require.NoError(t, json.Unmarshal(res, &r))
				assert.Equal(t, "2024-11-05", r.ProtocolVersion)
				assert.Contains(t, r.Capabilities, "tools")
				assert.Equal(t, map[string]any{"name": "mcp-pruner", "version": "test"}, r.ServerInfo)
			}},
		{name: "initialize without params", body: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
			check: func(t *testing.T, res json.RawMessage) {
				assert.Contains(t, string(res), `"protocolVersion":"2025-06-18"`)
			}},
		{name: "initialized with id", body: `{"jsonrpc":"2.0","id":2,"method":"notifications/initialized"}`, result: `{"ok":true}`},
		{name: "ping", body: `{"jsonrpc":"2.0","id":3,"method":"ping"}`, result: `{}`},
		{name: "resources/list", body: `{"jsonrpc":"2.0","id":4,"method":"resources/list","params":{}}`, result: `{"resources":[]}`},
		{name: "resources/templates/list", body: `{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}`, result: `{"resourceTemplates":[]}`},
		{name: "prompts/list", body: `{"jsonrpc":"2.0","id":6,"method":"prompts/list"}`, result: `{"prompts":[]}`},
		{name: "tools/list", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
			check: func(t *testing.T, res json.RawMessage) {
				var r struct {
					Tools []struct {
						Name        string `json:"name"`
						InputSchema struct {
							Required []string `json:"required"`
						} `json:"inputSchema"`
					} `json:"tools"`
				}
				require.NoError(t, json.Unmarshal(res, &r))
				var names []string
				for _, tl := range r.Tools {
					names = append(names, tl.Name)
				}
				assert.Equal(t, []string{"prune_text", "recover_text", "health"}, names)
				assert.Equal(t, []string{"text", "goal_hint", "source_type", "options"}, r.Tools[0].InputSchema.Required)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, b := post(t, url, tc.body)
			require.Equal(t, http.StatusOK, status)
			r := decodeRPC(t, b)
			require.Nil(t, r.Error, "body: %s", b)
			if tc.result != "" {
				assert.JSONEq(t, tc.result, string(r.Result))
			}
			if tc.check != nil {
				tc.check(t, r.Result)
			}
		})
	}
	t.Run("notification has no body", func(t *testing.T) {
		status, b := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		assert.Equal(t, http.StatusAccepted, status)
		assert.Empty(t, b)
	})
	t.Run("GET /rpc is refused", func(t *testing.T) {
		resp, err := http.Get(url)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	})
}

func TestRPCBatch(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/rpc"
	t.Run("mixed batch", func(t *testing.T) {
		status, b := post(t, url, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},7,{"jsonrpc":"2.0","id":2,"method":"nope"}]`)
		require.Equal(t, http.StatusOK, status)
		var rs []rpcResp
		require.NoError(t, json.Unmarshal(b, &rs), "%s", b)
		require.Len(t, rs, 3, "the notification gets no entry")
		assert.JSONEq(t, `{}`, string(rs[0].Result))
		assert.Equal(t, int64(-32600), rs[1].Error.Code)
		assert.Equal(t, int64(-32601), rs[2].Error.Code)
		assert.JSONEq(t, "2", string(rs[2].ID))
	})
	t.Run("empty batch", func(t *testing.T) {
		_, b := post(t, url, `[]`)
		assert.Equal(t, int64(-32600), decodeRPC(t, b).Error.Code)
	})
	t.Run("oversized batch", func(t *testing.T) {
		items := strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 65), ",")
		_, b := post(t, url, "["+items+"]")
		r := decodeRPC(t, b)
		assert.Equal(t, int64(-32600), r.Error.Code)
		assert.Contains(t, r.Error.Message, "at most 64")
	})
	t.Run("only notifications", func(t *testing.T) {
		status, b := post(t, url, `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
		assert.Equal(t, http.StatusAccepted, status)
		assert.Empty(t, b)
	})
}

var pruneIDRe = regexp.MustCompile(`^prn_[0-9a-f]{32}$`)

func TestRPCPruneRecoverRoundTrip(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/rpc"
	text := codeText(200)
	args := must(json.Marshal(map[string]any{
		"text": text, "goal_hint": "parse_header", "source_type": "code",
		"options": engine.Options{MaxPruneRatio: 0.8, MinKeepLines: 5, TimeoutMS: 2000, AnnotateLines: true, IncludeMarkers: true},
	}))
	_, b := post(t, url, callBody("1", "prune_text", string(args)))
	assert.Contains(t, string(b), "⟦PRUNÉ", "markers are raw UTF-8 in the body")
	assert.Contains(t, string(b), "│")
	assert.NotContains(t, string(b), `\u2502`)
	var res engine.Result
	toolPayload(t, decodeRPC(t, b), &res)
	require.Regexp(t, pruneIDRe, res.PruneID)
	require.False(t, res.Stats.UsedFallback, "warnings: %v", res.Warnings)
	require.NotEmpty(t, res.Annotations)
	assert.Equal(t, 200, res.Stats.OriginalLines)
	assert.Less(t, res.Stats.KeptLines, 200)
	assert.NotNil(t, res.Warnings)

	recover := func(ranges string, numbers bool) rpcResp {
		_, b := post(t, url, callBody("2", "recover_text", fmt.Sprintf(`{"prune_id":%q,"ranges":%s,"include_line_numbers":%v}`, res.PruneID, ranges, numbers)))
		return decodeRPC(t, b)
	}
	t.Run("whole text, end clamped", func(t *testing.T) {
		var rec engine.Recovery
		toolPayload(t, recover(`[{"start_line":1,"end_line":999999}]`, false), &rec)
		assert.Equal(t, text, rec.RawText)
		assert.Equal(t, "original", rec.Metadata.LineNumbering)
		assert.Equal(t, []engine.Range{{StartLine: 1, EndLine: 999999}}, rec.Metadata.Ranges, "ranges are echoed")
	})
	t.Run("every annotation recovers its lines", func(t *testing.T) {
		lines := engine.SplitLines(text)
		for _, a := range res.Annotations {
			var rec engine.Recovery
			toolPayload(t, recover(fmt.Sprintf(`[{"start_line":%d,"end_line":%d}]`, a.OriginalStartLine, a.OriginalEndLine), true), &rec)
			var want []string
			for n := a.OriginalStartLine; n <= a.OriginalEndLine; n++ {
				want = append(want, fmt.Sprintf("%d│ %s", n, lines[n-1]))
			}
			assert.Equal(t, strings.Join(want, "\n"), strings.TrimSuffix(rec.RawText, "\n"))
			assert.Contains(t, res.PrunedText, a.Marker)
		}
	})
	t.Run("alias recover_range", func(t *testing.T) {
		_, b := post(t, url, callBody("3", "recover_range", fmt.Sprintf(`{"prune_id":%q,"ranges":[{"start_line":10,"end_line":10}],"include_line_numbers":true}`, res.PruneID)))
		var rec engine.Recovery
		toolPayload(t, decodeRPC(t, b), &rec)
		assert.Equal(t, "10│ def parse_header_10(raw):", rec.RawText)
	})
	for _, tc := range []struct {
		name, ranges string
		maxLine      float64
	}{
		{name: "start below 1", ranges: `[{"start_line":0,"end_line":3}]`, maxLine: 200},
		{name: "start after end", ranges: `[{"start_line":9,"end_line":3}]`, maxLine: 200},
		{name: "start past last line", ranges: `[{"start_line":201,"end_line":300}]`, maxLine: 200},
	} {
		t.Run("invalid range/"+tc.name, func(t *testing.T) {
			r := recover(tc.ranges, true)
			require.NotNil(t, r.Error)
			assert.Equal(t, int64(-32005), r.Error.Code)
			assert.Equal(t, "invalid_range", r.Error.Message)
			assert.Equal(t, "invalid_range", r.Error.Data["code"])
			assert.Equal(t, tc.maxLine, r.Error.Data["max_line"])
			var want []map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.ranges), &want))
			assert.Equal(t, want[0], r.Error.Data["range"])
		})
	}
	t.Run("unknown id", func(t *testing.T) {
		_, b := post(t, url, callBody("4", "recover_text", `{"prune_id":"prn_00000000000000000000000000000000","ranges":[{"start_line":1,"end_line":1}],"include_line_numbers":true}`))
		r := decodeRPC(t, b)
		require.NotNil(t, r.Error)
		assert.Equal(t, int64(-32004), r.Error.Code)
		assert.Equal(t, "prune_id_not_found", r.Error.Message)
		assert.Equal(t, map[string]any{"code": "prune_id_not_found", "prune_id": "prn_00000000000000000000000000000000"}, r.Error.Data)
	})
}

func TestRPCLegacyMethods(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/rpc"
	_, b := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"health"}`)
	var h struct {
		Status  string `json:"status"`
		Server  string `json:"server"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(decodeRPC(t, b).Result, &h))
	assert.Equal(t, "healthy", h.Status)
	assert.Equal(t, "mcp-pruner", h.Server)
	require.Len(t, h.Content, 1)
	assert.Contains(t, h.Content[0].Text, `"status":"healthy"`)

	_, b = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"prune_text","params":`+pruneArgs+`}`)
	var p struct {
		PruneID string `json:"prune_id"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(decodeRPC(t, b).Result, &p))
	require.Regexp(t, pruneIDRe, p.PruneID)

	for _, method := range []string{"recover_text", "recover_range"} {
		_, b = post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":%q,"params":{"prune_id":%q,"ranges":[{"start_line":2,"end_line":3}],"include_line_numbers":false}}`, method, p.PruneID))
		var rec struct {
			RawText string `json:"raw_text"`
		}
		require.NoError(t, json.Unmarshal(decodeRPC(t, b).Result, &rec))
		assert.Equal(t, "L2\nL3", rec.RawText, method)
	}
	_, b = post(t, url, `{"jsonrpc":"2.0","id":4,"method":"recover_text","params":{"prune_id":"prn_x","ranges":[],"include_line_numbers":false}}`)
	assert.Equal(t, int64(-32004), decodeRPC(t, b).Error.Code)
}

func TestOversizedInput(t *testing.T) {
	env := newEnv(t, nil) // engine limit: 10,000 characters
	url := env.http.URL + "/rpc"
	big := strings.Repeat("é", 10_001)
	for _, tc := range []struct{ name, options string }{
		{name: "valid options", options: `{"max_prune_ratio":0.5,"min_keep_lines":1,"timeout_ms":100,"annotate_lines":true,"include_markers":true}`},
		{name: "size is checked before options", options: `{"max_prune_ratio":7}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, b := post(t, url, callBody("1", "prune_text", fmt.Sprintf(`{"text":%q,"goal_hint":"x","source_type":"code","options":%s}`, big, tc.options)))
			var res engine.Result
			toolPayload(t, decodeRPC(t, b), &res)
			assert.Equal(t, big, res.PrunedText)
			assert.True(t, res.Stats.UsedFallback)
			assert.Equal(t, []string{"input_too_large"}, res.Warnings)
			assert.Empty(t, res.Annotations)

			_, b = post(t, url, callBody("2", "recover_text", fmt.Sprintf(`{"prune_id":%q,"ranges":[{"start_line":1,"end_line":1}],"include_line_numbers":false}`, res.PruneID)))
			var rec engine.Recovery
			toolPayload(t, decodeRPC(t, b), &rec)
			assert.Equal(t, big, rec.RawText, "the oversized text is still recoverable")
		})
	}
	t.Run("body over the HTTP limit", func(t *testing.T) {
		small := newEnv(t, func(c *serverConfig) { c.MaxBodyBytes = 1000 })
		status, b := post(t, small.http.URL+"/rpc", callBody("1", "prune_text", fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", 2000))))
		assert.Equal(t, http.StatusOK, status)
		r := decodeRPC(t, b)
		require.NotNil(t, r.Error)
		assert.Equal(t, "input_too_large", r.Error.Message)
		assert.Equal(t, "input_too_large", r.Error.Data["code"])
	})
}

func TestRPCConcurrentClients(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/rpc"
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for c := 0; c < 32; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			text := fmt.Sprintf("client %d\n", c) + codeText(50)
			args := must(json.Marshal(map[string]any{"text": text, "goal_hint": "parse_header", "source_type": "code",
				"options": engine.Options{MaxPruneRatio: 0.9, MinKeepLines: 1, TimeoutMS: 5000}}))
			_, b, err := postRaw(url, callBody(fmt.Sprint(c), "prune_text", string(args)))
			var r struct {
				Error  any
				Result struct{ StructuredContent engine.Result }
			}
			if err != nil || json.Unmarshal(b, &r) != nil || r.Error != nil {
				errs <- fmt.Errorf("client %d: %v %s", c, err, b)
				return
			}
			_, b, err = postRaw(url, callBody("0", "recover_text", fmt.Sprintf(`{"prune_id":%q,"ranges":[{"start_line":1,"end_line":1000}],"include_line_numbers":false}`, r.Result.StructuredContent.PruneID)))
			var rec struct {
				Result struct{ StructuredContent engine.Recovery }
			}
			if err != nil || json.Unmarshal(b, &rec) != nil || rec.Result.StructuredContent.RawText != text {
				errs <- fmt.Errorf("client %d: recovered text differs: %v %.200s", c, err, b)
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPruneSaysWhenJSONReplacedCharacters: a text with bytes that are not UTF-8 or with a
// lone surrogate escape reaches the engine with U+FFFD in their place (JSON carries neither),
// so what recover_text gives back is not what was sent: the result says so (every transport
// hands the tool the arguments' raw JSON; this is /rpc's).
func TestPruneSaysWhenJSONReplacedCharacters(t *testing.T) {
	env := newEnv(t, nil)
	opts := `"source_type":"docs","options":{"max_prune_ratio":0.5,"min_keep_lines":1,"timeout_ms":1500,"annotate_lines":false,"include_markers":true}`
	for text, replaced := range map[string]bool{
		`"caf\u00e9\nparse_header\n"`:   false,
		"\"caf\xe9\\nparse_header\\n\"": true,
		`"a\ud800b\nparse_header\n"`:    true,
	} {
		_, b := post(t, env.http.URL+"/rpc", callBody("1", "prune_text", `{"text":`+text+`,"goal_hint":"parse_header",`+opts+`}`))
		var res engine.Result
		toolPayload(t, decodeRPC(t, b), &res)
		assert.Equal(t, replaced, slices.Contains(res.Warnings, server.WarnUnicodeReplaced), text)
	}
}
