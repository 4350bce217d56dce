package tokenizer

import (
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type failTransport struct{ t *testing.T }

func (f failTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("network access attempted: %s %s", r.Method, r.URL)
	return nil, http.ErrUseLastResponse
}

// TestNoNetwork loads both encodings from scratch (the code path Load runs once)
// with HTTP disabled and proxies pointing nowhere, then counts.
func TestNoNetwork(t *testing.T) {
	saved := http.DefaultTransport
	http.DefaultTransport = failTransport{t}
	t.Cleanup(func() { http.DefaultTransport = saved })
	for _, v := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		t.Setenv(v, "http://192.0.2.1:9") // TEST-NET-1: unroutable
	}
	t.Setenv("NO_PROXY", "")
	for _, name := range encodingNames {
		e, err := newEncoder(name, name == O200K)
		require.NoError(t, err)
		assert.Equal(t, 2, e.Count("hello world"))
	}
}

// TestLeafImports keeps the package a leaf that cannot reach the network: no
// net/http and no tiktoken-go (whose loader downloads) outside tests.
func TestLeafImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	for _, forbidden := range []string{"net", "net/http", "github.com/pkoukk/tiktoken-go", "github.com/mcp-pruner/mcp-pruner/engine"} {
		assert.NotContains(t, deps, forbidden)
	}
}
