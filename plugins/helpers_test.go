package plugins

import (
	"bytes"
	"context"
	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// binDir holds the plugin binaries the tests build, once per package run.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "plugins-test-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var builds sync.Map // package path -> *buildResult

type buildResult struct {
	once sync.Once
	path string
	sum  string
	err  error
}

// buildPlugin compiles the main package at pkg (relative to the module root) once and
// returns the binary and its SHA-256.
func buildPlugin(t testing.TB, pkg string) (path, sum string) {
	t.Helper()
	v, _ := builds.LoadOrStore(pkg, &buildResult{})
	b := v.(*buildResult)
	b.once.Do(func() {
		b.path = filepath.Join(binDir, strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_"))
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		cmd.Dir = moduleRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = err
			t.Logf("go build %s: %s", pkg, out)
			return
		}
		b.sum, b.err = FileSHA256(b.path)
	})
	require.NoError(t, b.err, "build %s", pkg)
	return b.path, b.sum
}

func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := benchmarks.ModuleRoot("")
	require.NoError(t, err)
	return root
}

// newClient starts a Client for the binary; it is closed when the test ends.
func newClient(t testing.TB, cfg Config) *Client {
	t.Helper()
	c, err := New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// wordCounter is a cheap engine.TokenCounter for tests that do not measure tokens.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

// newEngine returns an engine whose registry holds the given scorers.
func newEngine(t testing.TB, scorers map[string]engine.Scorer) *engine.Engine {
	t.Helper()
	reg := engine.NewRegistry()
	for name, s := range scorers {
		reg.Register(name, s)
	}
	e, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: wordCounter{}})
	require.NoError(t, err)
	return e
}

// lockedBuffer is a bytes.Buffer safe for the writes of several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
