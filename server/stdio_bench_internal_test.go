package server

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// BenchmarkScreenLine is the stdio screen's cost on a 0.9 MB prune request, paid once per
// line before the SDK decodes it.
func BenchmarkScreenLine(b *testing.B) {
	text := strings.Repeat(`\tif err := handle(ctx, \"x\"); err != nil {\n`, 20_000)
	line := []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"prune_text","arguments":{"text":"` + text + `","goal_hint":"g"}}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if answer, _ := screenLine(line); answer != nil {
			b.Fatal("rejected")
		}
	}
}

// BenchmarkAnswerIn is the cost of finding which call a 0.9 MB answer closes, paid once per
// answer the SDK writes on stdout.
func BenchmarkAnswerIn(b *testing.B) {
	text := strings.Repeat(`\tif err := handle(ctx, \"x\"); err != nil {\n`, 20_000)
	msg := []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"` + text + `"}],"structuredContent":{"pruned_text":"` + text + `"}}}` + "\n")
	b.SetBytes(int64(len(msg)))
	s := newStdioSession()
	s.ids[jsonrpc.ID{}] = false // one call always open, so every answer is read
	for b.Loop() {
		s.answerIn(msg)
	}
}
