package server

import (
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// TestSWELinesAreSplitlines: /prune's line texts are Python's code.splitlines(), checked
// against Python itself on texts full of the breaks it knows and the engine does not, and
// every engine line maps onto the Python lines it holds, in order, with none left over.
func TestSWELinesAreSplitlines(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: nothing to compare splitlines with")
	}
	pieces := []string{"a", "bc", " ", "é", "\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\u0085", "\u2028", "\u2029", "\n\n", "\t"}
	rng := rand.New(rand.NewPCG(1, 2))
	var texts []string
	for range 400 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	texts = append(texts, "", "\n", "\r", "a\r", "a\r\n", "\r\n\r\n", "10%\r50%\r100%\nok\n")
	in := must(json.Marshal(texts))
	cmd := exec.Command(py, "-c", "import json,sys; print(json.dumps([t.splitlines() for t in json.load(sys.stdin)]))")
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	require.NoError(t, err)
	var want [][]string
	require.NoError(t, json.Unmarshal(out, &want))
	for i, text := range texts {
		starts := engine.PyLineStarts(text)
		got := pyLineTexts(text, starts)
		if len(want[i]) == 0 {
			assert.Empty(t, got, "%q", text)
		} else {
			assert.Equal(t, want[i], got, "%q", text)
		}
		py := pyNumbering(text, starts)
		require.Len(t, py, len(engine.SplitLines(text))+1, "%q", text)
		assert.Zero(t, py[0], "%q", text)
		for k := 1; k < len(py); k++ {
			assert.Less(t, py[k-1], py[k], "every engine line is one Python line or more: %q", text)
		}
		assert.Equal(t, len(got), py[len(py)-1], "every Python line belongs to an engine line: %q", text)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
