package server

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newMCPServer builds the go-sdk server that /mcp and stdio share. Tools are added with raw
// schemas and handlers so the definitions, validation and error codes are exactly those of
// /rpc. When stop is done, every tool call in flight is cancelled (nil: never).
func (s *Server) newMCPServer(transport string, stop context.Context) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: s.version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       s.log.With("component", "mcp-sdk", "transport", transport),
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, t := range s.tools.list {
		name := t.Name
		srv.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Schema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				// The SDK's ctx outlives one HTTP request (it may carry the session's first
				// id), so every call gets its own.
				ctx = withRequestID(ctx, s.ids.next())
				if stop != nil {
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					defer cancel()
					defer context.AfterFunc(stop, cancel)()
				}
				payload, err := s.tools.call(ctx, transport, name, req.Params.Arguments)
				if err != nil {
					return toolError(err), nil
				}
				text := string(payload)
				if s.mcpText {
					text = textOf(name, payload)
				}
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: text}},
					StructuredContent: payload,
				}, nil
			})
	}
	// recover_range is callable but not listed: rename it before the SDK looks the tool up. A
	// name that is no tool is refused by the toolset, as on /rpc, not by the SDK, whose answer
	// has another message and no data saying which field is wrong.
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				switch name := call.Params.Name; {
				case name == ToolRecoverAlias:
					call.Params.Name = ToolRecover
				case s.tools.byName[name] == nil:
					_, err := s.tools.call(withRequestID(ctx, s.ids.next()), transport, name, call.Params.Arguments)
					return nil, toWireError(err)
				}
			}
			return next(ctx, method, req)
		}
	})
	return srv
}

const instructions = "mcp-pruner cuts long tool output, files and logs down to the lines relevant to a goal. " +
	"Call prune_text with the text, your goal (goal_hint), source_type (code, logs or docs) and options " +
	"(all five fields, e.g. {\"max_prune_ratio\":0.55,\"min_keep_lines\":40,\"timeout_ms\":1500,\"annotate_lines\":false,\"include_markers\":true}); " +
	"cut runs are marked ⟦PRUNÉ: prune_id=… lignes A-B …⟧. " +
	"If you need cut lines, call recover_text with the prune_id and the line ranges from the marker."

// toolError is a failed tool call's answer on MCP (stdio and /mcp): a result with isError,
// whose text (and structuredContent) is {"error": {code, message, data}} with /rpc's codes
// and data. MCP clients hand a tool's errors to the model, so it can mend its call, but
// treat JSON-RPC errors as the protocol's and keep them from it (MCP 2025-11-25, SEP-1303);
// and the Go SDK's client reads -32004 and -32005 as its own "connection closed" and
// "rejected". /rpc keeps the seed's JSON-RPC errors.
func toolError(err error) *mcp.CallToolResult {
	re := toRPCError(err)
	if re.Code == codeNotFound {
		re = &rpcError{Code: re.Code, Data: re.Data, Message: re.Message + ": nothing is stored under this prune_id; " +
			"it expired (originals are kept for the server's TTL, 600 s by default), was evicted, or came from another server process"}
	}
	b, jerr := encodeJSON(struct {
		Error *rpcError `json:"error"`
	}{re})
	if jerr != nil {
		b = []byte(`{"error":{"code":-32603,"message":"internal error"}}`)
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
}

// toWireError converts an error to the SDK's JSON-RPC error, code and data unchanged: for
// a call to a tool that does not exist, which MCP answers as a protocol error.
func toWireError(err error) error {
	re := toRPCError(err)
	we := &jsonrpc.Error{Code: re.Code, Message: re.Message}
	if re.Data != nil {
		if b, err := encodeJSON(re.Data); err == nil {
			we.Data = json.RawMessage(b)
		}
	}
	return we
}

// RunStdio serves MCP over r and w (newline-delimited JSON-RPC) until the client disconnects
// or ctx is cancelled. Nothing but protocol messages is written to w. A line that is not a
// JSON-RPC message is answered with a JSON-RPC error and the session goes on (screenStdio).
func (s *Server) RunStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	// Once ctx ends (SIGINT, SIGTERM), the SDK waits for the calls in flight before it
	// returns; they get the shutdown timeout to answer, then are cancelled and fail open, so
	// a scorer that waits (a plugin call with a long timeout_ms) cannot keep the process up.
	calls, stopCalls := context.WithCancel(context.Background())
	defer stopCalls()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(s.shutdownTimeout, stopCalls) })()
	srv := s.newMCPServer("stdio", calls)
	out := &lockedWriter{w: w}
	// The screen may still be blocked reading r when the session ends (ctx cancelled): a line
	// it reads later must not be answered on w, which is no longer ours.
	defer out.close()
	pr, pw := io.Pipe()
	defer pr.Close() // the session is over: the screen stops handing lines on
	screenCtx, stopScreen := context.WithCancel(ctx)
	defer stopScreen()
	// When stdin ends, the calls in flight get their answers first, for as long as an HTTP
	// shutdown waits for its requests.
	sess := newStdioSession()
	go screenStdio(screenCtx, r, pw, out, int(s.maxBody), sess, s.shutdownTimeout)
	// The screen hands on lines of at most maxBody bytes; the SDK's own cap is never the
	// one that ends a session.
	t := &mcp.IOTransport{Reader: pr, Writer: answerWatch{w: out, sess: sess}, MaxLineLength: int(s.maxBody) + 2}
	s.log.Info("serving MCP over stdio", "version", s.version)
	s.warnSmallStore()
	err := srv.Run(ctx, t)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// textOf is a tool result's text content under Config.MCPText: prune_text's pruned text
// (its markers name the prune_id and the lines to recover) with, when the text came back
// unchanged or with warnings, a last line saying so; recover_text's lines. Other tools, and
// a payload that does not decode, keep the JSON.
func textOf(tool string, payload []byte) string {
	switch tool {
	case ToolPrune:
		var p struct {
			PruneID    string   `json:"prune_id"`
			PrunedText string   `json:"pruned_text"`
			Warnings   []string `json:"warnings"`
			Stats      struct {
				UsedFallback bool `json:"used_fallback"`
				PrunedLines  int  `json:"pruned_lines"`
			} `json:"stats"`
		}
		if json.Unmarshal(payload, &p) != nil {
			return string(payload)
		}
		// Without markers (include_markers false) nothing in the text says lines were cut,
		// nor which prune_id recovers them. A text that quotes a marker (this project's
		// README, an agent's transcript) holds "⟦PRUNÉ" but not this prune's id.
		unmarked := p.Stats.PrunedLines > 0 && !strings.Contains(p.PrunedText, "⟦PRUNÉ: prune_id="+p.PruneID+" ")
		if len(p.Warnings) == 0 && !p.Stats.UsedFallback && !unmarked {
			return p.PrunedText
		}
		var b strings.Builder
		b.WriteString(p.PrunedText)
		if p.PrunedText != "" && !strings.HasSuffix(p.PrunedText, "\n") {
			if strings.Contains(p.PrunedText, "\r\n") {
				b.WriteByte('\r') // a CRLF text's last line ends as its others do
			}
			b.WriteByte('\n')
		}
		b.WriteString("[mcp-pruner: ")
		if p.Stats.UsedFallback {
			b.WriteString("returned unchanged, ")
		}
		if unmarked {
			b.WriteString(strconv.Itoa(p.Stats.PrunedLines) + " lines cut without markers, ")
		}
		if len(p.Warnings) > 0 {
			b.WriteString("warnings " + strings.Join(p.Warnings, ", ") + "; ")
		}
		b.WriteString("prune_id " + p.PruneID + "]")
		return b.String()
	case ToolRecover, ToolRecoverAlias:
		var r struct {
			RawText *string `json:"raw_text"`
		}
		if json.Unmarshal(payload, &r) != nil || r.RawText == nil {
			return string(payload)
		}
		return *r.RawText
	}
	return string(payload)
}
