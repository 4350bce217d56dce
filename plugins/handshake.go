package plugins

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins/internal/scorerpb"
)

// ProtocolVersion is the version of the host/plugin protocol. It changes only when a plugin
// built for the previous version could not work with this host; adding proto fields does
// not change it.
const ProtocolVersion = 1

// The magic cookie is not a secret: it only stops a plugin binary from being run by hand
// (go-plugin then prints a friendly message) and tells it which host it talks to.
const (
	magicCookieKey   = "MCP_PRUNER_PLUGIN"
	magicCookieValue = "scorer-7f3c9a1e5b"
	// pluginKey is the single plugin a plugin process serves.
	pluginKey = "scorer"
	// maxMessageBytes bounds one gRPC message. The engine accepts texts of 2,000,000
	// characters, which can be 8 MB of UTF-8 plus framing; gRPC's default of 4 MB is too small.
	maxMessageBytes = 256 << 20
)

func handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   magicCookieKey,
		MagicCookieValue: magicCookieValue,
	}
}

// grpcPlugin is go-plugin's view of a scorer: impl is set on the plugin side only.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl engine.Scorer
}

var _ plugin.GRPCPlugin = (*grpcPlugin)(nil)

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	scorerpb.RegisterScorerServer(s, newServer(p.impl))
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return scorerpb.NewScorerClient(c), nil
}
