package structural

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImportsComeBeforeUnrelatedCode: the goal names the function that fails; the fix will
// import what it calls. The file's few imports now rank above the unrelated functions'
// code, below the named function.
func TestImportsComeBeforeUnrelatedCode(t *testing.T) {
	var b strings.Builder
	b.WriteString("import collections\nimport datetime\n\n\ndef send_request(conn, data):\n    conn.sendall(data)\n    return conn.recv(4096)\n")
	for i := range 30 {
		fmt.Fprintf(&b, "\n\ndef helper_%d(items):\n    total = 0\n    for item in items:\n        total += item * %d\n    return total\n", i, i)
	}
	lines := engine.SplitLines(b.String())
	resp := scoreCode(t, lines, "send_request raises a raw socket.error instead of ConnectionError", "models.py")
	require.Empty(t, resp.Warnings)
	top := maxOf(resp.Scores)
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "import "):
			assert.GreaterOrEqual(t, resp.Scores[i], importFloor*top-1e-9, "line %d %q", i+1, l)
		case strings.Contains(l, "total"):
			assert.Less(t, resp.Scores[i], importFloor*top, "line %d %q", i+1, l)
		}
	}
}

func TestLiftImports(t *testing.T) {
	body := strings.Repeat("x = compute(a, b, c, d)\n", 60)
	tests := []struct {
		name   string
		units  []unit
		lines  string
		lifted []int // the lines at importFloor of the best after the lift
	}{
		{
			name:   "a small block is lifted",
			units:  []unit{{start: 0, end: 2, bodyStart: 2, role: roleImport, parent: -1}},
			lines:  "import os\nimport re\n" + body,
			lifted: []int{0, 1},
		},
		{
			name:  "a block past importShare of the bytes is not",
			units: []unit{{start: 0, end: 3, bodyStart: 3, role: roleImport, parent: -1}},
			lines: "from .exceptions import HTTPError, RequestException, MissingSchema\n" +
				"from .utils import guess_filename, get_auth_from_url, requote_uri\n" +
				"from .compat import cookielib, urlunparse, urlsplit, urlencode, str\n" + body,
		},
		{
			name:  "an import inside a container is not",
			units: []unit{{start: 0, end: 4, bodyStart: 1, role: roleContainer, parent: -1}, {start: 1, end: 2, bodyStart: 2, role: roleImport, parent: 0}},
			lines: "mod m {\n    use std::fmt;\n}\n" + body,
		},
		{
			name:  "no imports",
			lines: body,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(tt.lines, "\n"), "\n")
			s := make([]float64, len(lines))
			for i := range s {
				s[i] = 0.1
			}
			s[len(s)-1] = 0.8
			liftImports(lines, s, &outline{units: tt.units})
			var lifted []int
			for i, v := range s {
				if v == importFloor*0.8 {
					lifted = append(lifted, i)
				}
			}
			assert.Equal(t, tt.lifted, lifted)
			assert.Equal(t, 0.8, s[len(s)-1], "the best line is unchanged")
		})
	}
}
