package plugins

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins/internal/scorerpb"
)

// Serve runs s as a scorer plugin and blocks until the host closes it. Call it from main:
//
//	func main() { plugins.Serve(myScorer{}) }
//
// Run by hand (not by a host), the binary prints a short message and exits with status 1.
// A panic in s.Score becomes an error answer for that call; the process keeps serving. The
// process dies with its host, even when the host is killed, so it never outlives it.
func Serve(s engine.Scorer) {
	dieWithParent()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: handshake(),
		Plugins:         plugin.PluginSet{pluginKey: &grpcPlugin{impl: s}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.MaxRecvMsgSize(maxMessageBytes), grpc.MaxSendMsgSize(maxMessageBytes))
			return grpc.NewServer(opts...)
		},
		// JSON on stderr is what the host's go-plugin client parses into its own log.
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr, JSONFormat: true}),
	})
}

// server adapts an engine.Scorer to the generated gRPC service.
type server struct {
	scorerpb.UnimplementedScorerServer
	impl engine.Scorer

	mu    sync.Mutex
	calls map[*call]struct{}
}

// call is one Score in flight; ended is when its context ended (unix nanoseconds), 0 before.
type call struct{ ended atomic.Int64 }

func newServer(impl engine.Scorer) *server {
	return &server{impl: impl, calls: map[*call]struct{}{}}
}

func (s *server) Score(ctx context.Context, in *scorerpb.ScoreRequest) (*scorerpb.ScoreResponse, error) {
	c := &call{}
	stop := context.AfterFunc(ctx, func() { c.ended.Store(time.Now().UnixNano()) })
	s.mu.Lock()
	s.calls[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		stop()
		s.mu.Lock()
		delete(s.calls, c)
		s.mu.Unlock()
	}()

	resp, err := s.score(ctx, requestFromPB(in))
	if err != nil {
		return nil, errorToStatus(err)
	}
	if resp == nil {
		return nil, errorToStatus(fmt.Errorf("%w: nil response", engine.ErrBadScores))
	}
	return responseToPB(resp), nil
}

// score calls the scorer, turning a panic into an error so one bad input does not kill the
// process (and every other call in flight with it).
func (s *server) score(ctx context.Context, req *engine.ScoreRequest) (resp *engine.ScoreResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, fmt.Errorf("scorer panicked: %v", p)
		}
	}()
	return s.impl.Score(ctx, req)
}

func (s *server) Describe(context.Context, *scorerpb.DescribeRequest) (*scorerpb.DescribeResponse, error) {
	// One call to the scorer per request: its Describe may be slow, and engine.ThresholdOf
	// would call it again.
	var info engine.ScorerInfo
	if d, ok := s.impl.(engine.Describer); ok {
		info = d.Describe()
	}
	if info.Threshold <= 0 || info.Threshold > 1 {
		info.Threshold = engine.DefaultThreshold
	}
	return &scorerpb.DescribeResponse{Name: info.Name, Description: info.Description, Threshold: info.Threshold}, nil
}

func (s *server) Ping(_ context.Context, in *scorerpb.PingRequest) (*scorerpb.PingResponse, error) {
	cutoff := time.Now().Add(-time.Duration(in.GetGraceMs()) * time.Millisecond).UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &scorerpb.PingResponse{InFlight: int64(len(s.calls))}
	for c := range s.calls {
		if e := c.ended.Load(); e != 0 && e <= cutoff {
			out.Stuck++
		}
	}
	return out, nil
}
