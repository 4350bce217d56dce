package server

import (
	"strings"
	"testing"
)

// BenchmarkScreenLine is the stdio screen's cost on a 0.9 MB prune request, paid once per
// line before the SDK decodes it.
func BenchmarkScreenLine(b *testing.B) {
	text := strings.Repeat(`\tif err := handle(ctx, \"x\"); err != nil {\n`, 20_000)
	line := []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"prune_text","arguments":{"text":"` + text + `","goal_hint":"g"}}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if screenLine(line) != nil {
			b.Fatal("rejected")
		}
	}
}
