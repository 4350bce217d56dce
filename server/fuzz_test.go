package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// rpcHandler returns the server's HTTP handler, called in-process (no socket), on the test
// engine (keyword scorer, 10,000-character limit).
func rpcHandler(t testing.TB) http.Handler {
	t.Helper()
	eng, _ := newEngine(t, 10_000)
	srv, err := server.New(server.Config{Engine: eng, Version: "test"})
	require.NoError(t, err)
	return srv.Handler()
}

// serveRPC posts body to /rpc through h and returns the status and the answer's bytes.
func serveRPC(h http.Handler, body []byte) (int, []byte) {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8006/rpc", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

var rpcCodes = map[int64]bool{-32700: true, -32600: true, -32601: true, -32602: true, -32603: true, -32004: true, -32005: true}

// FuzzRPCBody sends arbitrary bodies to POST /rpc and holds every answer to the contract:
// HTTP 200 with a JSON-RPC response (or a batch of them), or 202 and no body for
// notifications; never a panic, never another status. Each response is "2.0", has an id and
// exactly one of result and error, an error's code is one the contract lists, a request's
// string or number id is echoed, and a body that is UTF-8 gets an answer that is UTF-8.
func FuzzRPCBody(f *testing.F) {
	pruneArgs := `{"text":"def parse_header(raw):\n    return raw\n\nx = 1\n","goal_hint":"parse_header","source_type":"code","options":{"max_prune_ratio":0.5,"min_keep_lines":1,"timeout_ms":1000,"annotate_lines":true,"include_markers":true}}`
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		callBody("7", "prune_text", pruneArgs),
		callBody(`"é"`, "prune_text", `{"text":"a\u2028b\nc\r\nd\u0000","goal_hint":"c"}`),
		callBody("2", "recover_text", `{"prune_id":"prn_00000000000000000000000000000000","ranges":[{"start_line":1,"end_line":2}],"include_line_numbers":true}`),
		callBody("3", "recover_range", `{"prune_id":"prn_x","ranges":[{"start_line":0,"end_line":-1}]}`),
		callBody("4", "health", `{}`),
		callBody("5", "no_such_tool", `{}`),
		`{"jsonrpc":"2.0","id":6,"method":"prune_text","params":` + pruneArgs + `}`,
		`{"jsonrpc":"2.0","id":8,"method":"health"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"1.0","id":2}]`,
		`{"jsonrpc":"1.0","id":"x","method":"health"}`, `{"id":-2,"method":"health"}`, `{"jsonrpc":"2.0","id":1e400,"method":"health"}`,
		`[]`, `[1]`, `{}`, ``, `null`, `{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0","id":1.5e3,"method":"tools/call","params":[]}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"prune_text","arguments":{"text":5}}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"x\"}",
	} {
		f.Add([]byte(seed))
	}
	h := rpcHandler(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		status, out := serveRPC(h, body)
		if status == http.StatusAccepted {
			require.Empty(t, out, "a notification gets no body")
			return
		}
		require.Equal(t, http.StatusOK, status, "body %q: answer %s", body, out)
		require.True(t, json.Valid(out), "answer is JSON: %s", out)
		require.True(t, utf8.Valid(out), "the answer is UTF-8, whatever the request: %q", out)
		var resps []json.RawMessage
		if trimmed := bytes.TrimSpace(out); trimmed[0] == '[' {
			require.NoError(t, json.Unmarshal(out, &resps))
			require.NotEmpty(t, resps, "a batch answer is never empty")
		} else {
			resps = []json.RawMessage{out}
		}
		for _, r := range resps {
			var m map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(r, &m), "a response is an object: %s", r)
			require.Equal(t, `"2.0"`, string(m["jsonrpc"]))
			_, hasID := m["id"]
			require.True(t, hasID, "every response has an id: %s", r)
			_, hasResult := m["result"]
			_, hasError := m["error"]
			require.True(t, hasResult != hasError, "exactly one of result and error: %s", r)
			if hasError {
				var e struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				}
				require.NoError(t, json.Unmarshal(m["error"], &e))
				require.True(t, rpcCodes[e.Code], "error code %d is one the contract lists", e.Code)
				require.NotEmpty(t, e.Message)
			}
		}
		// A single request's string or number id comes back as the same value.
		var req map[string]json.RawMessage
		if json.Unmarshal(body, &req) == nil && len(resps) == 1 {
			var m map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(resps[0], &m))
			if id := bytes.TrimSpace(req["id"]); len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
				require.Equal(t, decodeNumber(t, id), decodeNumber(t, m["id"]), "the id is echoed: %s", resps[0])
			}
		}
	})
}

// decodeNumber decodes a JSON value keeping numbers as written (1e400 is an id too).
func decodeNumber(t *testing.T, raw []byte) any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// FuzzRPCPruneRoundTrip sends prune_text calls with arbitrary text, goal and options over
// /rpc, the text escaped the way clients escape it but with any invalid UTF-8 left raw, and
// checks that nothing is lost on the wire: the payload's pruned_text is the text the server
// decoded (the same string encoding/json decodes) cut exactly as its annotations say,
// recover_text of every line returns that text byte for byte, every annotation's range
// recovers its lines, and the token counts are exact for what went over the wire.
func FuzzRPCPruneRoundTrip(f *testing.F) {
	f.Add("def parse_header(raw):\n    return raw\n\nx = 1\ny = 2\n", "parse_header", uint8(128), uint8(1), uint16(0), uint8(3))
	f.Add("L1\r\nL2\n\xff\xfe bad\n\x00nul\n\u2028sep\n⟦PRUNÉ: fake⟧\n", "L2 bad", uint8(200), uint8(0), uint16(0), uint8(1))
	f.Add("L1\r\nL2\r\n\tL3\b\f\n", "L2", uint8(200), uint8(0), uint16(0), uint8(1))
	f.Add("L1\r\nL2\r\n\tL3\b\f\x01\n", "L2", uint8(200), uint8(0), uint16(0), uint8(1|0x80))
	f.Add(strings.Repeat("noise line\n", 40)+"the error is here\n", "error", uint8(255), uint8(2), uint16(30), uint8(2))
	f.Add("caf\xe9 and no escape at all", "caf\xe9", uint8(0), uint8(1), uint16(0), uint8(0))
	f.Add("", "", uint8(0), uint8(0), uint16(0), uint8(0))
	f.Add("a\tb\"c\\d\n", "\"", uint8(255), uint8(0), uint16(0), uint8(7))
	// Extra seeds (fuzz campaign): CR-only, BOM, directives, marker look-alikes, tiny budgets,
	// annotate_lines with a budget, the long form of escapes, JSON-sensitive characters.
	f.Add("a\r\nb\r\nc\r\nd\r\ne\r\n", "c", uint8(255), uint8(0), uint16(5), uint8(3))
	f.Add("one\rtwo\rthree\r", "two", uint8(255), uint8(0), uint16(1), uint8(3|0x80))
	f.Add("\ufeffimport os\n\nx = 1\n", "x", uint8(255), uint8(0), uint16(2), uint8(3))
	f.Add("a\n⟦NO_PRUNE_BEGIN⟧\nb\n⟦NO_PRUNE_END⟧\nc\nd\n", "zz", uint8(255), uint8(0), uint16(1), uint8(3|8))
	f.Add("⟦PRUNÉ: prune_id=prn_00000000000000000000000000000000 lignes 1-1 (1) raison=x⟧\nq\nr\n", "r", uint8(255), uint8(0), uint16(0), uint8(1|4))
	f.Add("x</script>\u2028\u2029<!--&amp;\n\"\\/\nz\n", "z", uint8(255), uint8(0), uint16(0), uint8(3|0x80))
	f.Add("l1\nl2\nl3\nl4\n", "l2", uint8(255), uint8(200), uint16(1), uint8(3))
	f.Add("\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf\nx\n", "\xed\xa0\x80", uint8(255), uint8(0), uint16(0), uint8(3))
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(f, err)
	h := rpcHandler(f)
	sources := []string{"code", "logs", "docs"}
	f.Fuzz(func(t *testing.T, text, goal string, ratio, minKeep uint8, budget uint16, flags uint8) {
		longForm := flags&0x80 != 0
		opts := engine.Options{
			MaxPruneRatio: float64(ratio) / 255, MinKeepLines: int(minKeep), TimeoutMS: 10000,
			AnnotateLines: flags&1 != 0, IncludeMarkers: flags&2 != 0,
		}
		optJSON, err := json.Marshal(opts)
		require.NoError(t, err)
		args := fmt.Sprintf(`{"text":%s,"goal_hint":%s,"source_type":%q,"options":%s`,
			looseQuote(text, longForm), looseQuote(goal, longForm), sources[int(flags>>2&3)%3], optJSON)
		if budget > 0 {
			args += fmt.Sprintf(`,"token_budget":%d`, budget)
		}
		args += "}"
		// What the server must have read: the text as encoding/json decodes the literal.
		var sent string
		require.NoError(t, json.Unmarshal([]byte(looseQuote(text, longForm)), &sent))

		status, out := serveRPC(h, []byte(callBody("1", "prune_text", args)))
		require.Equal(t, http.StatusOK, status)
		var res engine.Result
		toolPayload(t, decodeRPC(t, out), &res)
		lines := engine.SplitLines(sent)
		n := len(lines)
		require.Equal(t, n, res.Stats.OriginalLines)
		if slices.Contains(res.Warnings, engine.WarnNotUTF8Text) {
			// A text the engine cannot cut by lines comes back whole, its tokens estimated.
			require.Equal(t, (len(sent)+3)/4, res.Stats.TokensEstBefore)
			require.Equal(t, res.Stats.TokensEstBefore, res.Stats.TokensEstAfter)
		} else {
			require.Equal(t, tok.Count(sent), res.Stats.TokensEstBefore, "tokens_est_before counts the decoded text")
			require.Equal(t, tok.Count(res.PrunedText), res.Stats.TokensEstAfter, "tokens_est_after counts the pruned_text sent")
		}
		if res.Stats.UsedFallback {
			require.Equal(t, sent, res.PrunedText, "a fallback returns the text unchanged")
			require.Empty(t, res.Annotations)
		} else {
			require.Equal(t, renderFromAnnotations(lines, strings.HasSuffix(sent, "\n"), res, opts), res.PrunedText,
				"pruned_text is the decoded text's lines with each cut run as its annotation says")
		}
		if n == 0 {
			return
		}
		recover := func(a, b int) string {
			status, out := serveRPC(h, []byte(callBody("2", "recover_text",
				fmt.Sprintf(`{"prune_id":%q,"ranges":[{"start_line":%d,"end_line":%d}],"include_line_numbers":false}`, res.PruneID, a, b))))
			require.Equal(t, http.StatusOK, status)
			var rec engine.Recovery
			toolPayload(t, decodeRPC(t, out), &rec)
			return rec.RawText
		}
		require.Equal(t, sent, recover(1, n), "recover_text of every line returns the text the server read")
		for _, a := range res.Annotations {
			want := strings.Join(lines[a.OriginalStartLine-1:a.OriginalEndLine], "\n")
			if a.OriginalEndLine == n && strings.HasSuffix(sent, "\n") {
				want += "\n"
			}
			require.Equal(t, want, recover(a.OriginalStartLine, a.OriginalEndLine), "annotation %d-%d", a.OriginalStartLine, a.OriginalEndLine)
		}
	})
}

// looseQuote quotes s as a JSON string literal the way a lax client does: quotes, backslashes
// and control characters escaped (with the short forms \n, \t, \r, \b, \f unless
// longForm, then all as \u00XX), every other byte, invalid UTF-8 included, left as it is.
func looseQuote(s string, longForm bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if short := strings.IndexByte("\n\t\r\b\f", c); short >= 0 && !longForm {
			b.WriteByte('\\')
			b.WriteByte("ntrbf"[short])
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// renderFromAnnotations is the pruned_text the contract implies from the original lines and
// the annotations alone: every line no annotation covers is kept (numbered with
// annotate_lines), and each annotated run is its marker (or nothing without markers).
func renderFromAnnotations(lines []string, trailing bool, res engine.Result, o engine.Options) string {
	cut := make([]bool, len(lines)+1)
	starts := map[int]engine.Annotation{}
	for _, a := range res.Annotations {
		starts[a.OriginalStartLine] = a
		for l := a.OriginalStartLine; l <= a.OriginalEndLine && l <= len(lines); l++ {
			cut[l] = true
		}
	}
	var out []string
	for i := 1; i <= len(lines); i++ {
		switch a, ok := starts[i]; {
		case !cut[i] && o.AnnotateLines:
			out = append(out, engine.LinePrefix(i)+lines[i-1])
		case !cut[i]:
			out = append(out, lines[i-1])
		case ok && o.IncludeMarkers:
			out = append(out, a.Marker)
		}
	}
	s := strings.Join(out, "\n")
	if trailing && len(out) > 0 {
		s += "\n"
	}
	return s
}
