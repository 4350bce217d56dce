// Command faulty is a scorer plugin that misbehaves on request, for the plugins package's
// fault tests. The goal picks the fault: "crash" kills the process mid-request, "hang"
// never returns, "slow" waits for its context, "nan" and "short" return garbage, "panic"
// panics, "print" writes a line to stdout and one to stderr and scores, "spawn" starts a long sleep (its pid written to $FAULTY_PIDFILE) and hangs. Any other goal is scored honestly: the share of goal words a line contains.
// Started with the argument "handshake", it speaks the wrong protocol version.
package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/hashicorp/go-plugin"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins"
)

type faulty struct{}

func (faulty) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	switch req.Goal {
	case "crash":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case "hang":
		select {}
	case "print":
		fmt.Println("faulty says hi")
		fmt.Fprintln(os.Stderr, "faulty complains")
	case "slow":
		<-ctx.Done()
		return nil, ctx.Err()
	case "spawn":
		// Start a worker that would outlive the plugin, say where it is, then hang.
		worker := exec.Command("sleep", "300")
		if err := worker.Start(); err != nil {
			return nil, err
		}
		if f := os.Getenv("FAULTY_PIDFILE"); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(worker.Process.Pid)), 0o644)
		}
		select {}
	case "panic":
		panic("faulty: asked to panic")
	}
	scores := make([]float64, len(req.Lines))
	words := strings.Fields(strings.ToLower(req.Goal))
	for i, l := range req.Lines {
		l = strings.ToLower(l)
		hits := 0
		for _, w := range words {
			if strings.Contains(l, w) {
				hits++
			}
		}
		if len(words) > 0 {
			scores[i] = float64(hits) / float64(len(words))
		}
	}
	switch req.Goal {
	case "nan":
		if len(scores) > 0 {
			scores[0] = math.NaN()
		}
	case "short":
		scores = scores[:len(scores)/2]
	}
	return &engine.ScoreResponse{Scores: scores}, nil
}

func (faulty) Describe() engine.ScorerInfo {
	return engine.ScorerInfo{Name: "faulty", Description: "misbehaves on request", Threshold: 0.4}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "handshake" {
		plugin.Serve(&plugin.ServeConfig{
			HandshakeConfig: plugin.HandshakeConfig{
				ProtocolVersion:  plugins.ProtocolVersion + 98,
				MagicCookieKey:   "MCP_PRUNER_PLUGIN",
				MagicCookieValue: "scorer-7f3c9a1e5b",
			},
			Plugins:    plugin.PluginSet{},
			GRPCServer: plugin.DefaultGRPCServer,
		})
		return
	}
	plugins.Serve(faulty{})
}
