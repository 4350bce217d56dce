package server

import (
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// benchLines are the sizes of text the stdio benchmarks carry: the server's 200-line load
// and a 20,000-line (0.9 MB) file.
var benchLines = []int{200, 20_000}

func benchText(lines int) string {
	return strings.Repeat(`\tif err := handle(ctx, \"x\"); err != nil {\n`, lines)
}

// BenchmarkScreenLine is the stdio screen's cost on a prune_text call, paid once per line
// before the SDK decodes it.
func BenchmarkScreenLine(b *testing.B) {
	for _, n := range benchLines {
		b.Run(strconv.Itoa(n)+"lines", func(b *testing.B) {
			line := []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"prune_text","arguments":{"text":"` + benchText(n) + `","goal_hint":"g"}}}`)
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if answer, _ := screenLine(line); answer != nil {
					b.Fatal("rejected")
				}
			}
		})
	}
}

// BenchmarkAnswerIn is the cost of finding which call an answer (its text twice, as content
// and structured content) closes, paid once per answer the SDK writes on stdout.
func BenchmarkAnswerIn(b *testing.B) {
	for _, n := range benchLines {
		b.Run(strconv.Itoa(n)+"lines", func(b *testing.B) {
			text := benchText(n)
			msg := []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"` + text + `"}],"structuredContent":{"pruned_text":"` + text + `"}}}` + "\n")
			b.SetBytes(int64(len(msg)))
			s := newStdioSession()
			s.ids[jsonrpc.ID{}] = false // one call always open, so every answer is read
			for b.Loop() {
				s.answerIn(msg)
			}
		})
	}
}
