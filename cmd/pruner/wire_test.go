package main

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultScorers checks the defaults wired per source type, and that an explicit
// --scorer wins for every type.
func TestDefaultScorers(t *testing.T) {
	tests := []struct {
		name   string
		scorer string
		want   map[engine.SourceType]string
	}{
		{name: "defaults", want: map[engine.SourceType]string{engine.SourceCode: "structural", engine.SourceLogs: "heuristic", engine.SourceDocs: "heuristic"}},
		{name: "explicit heuristic", scorer: "heuristic", want: map[engine.SourceType]string{engine.SourceCode: "heuristic", engine.SourceLogs: "heuristic", engine.SourceDocs: "heuristic"}},
		{name: "explicit structural", scorer: "structural", want: map[engine.SourceType]string{engine.SourceCode: "structural", engine.SourceLogs: "structural", engine.SourceDocs: "structural"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := newRegistry(&engineConfig{scorer: tt.scorer})
			require.NoError(t, err)
			t.Cleanup(func() { _ = reg.Close() })
			for st, want := range tt.want {
				assert.Equal(t, want, reg.DefaultFor(st), "source type %s", st)
			}
		})
	}
}
