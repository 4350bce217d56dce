// Command rulefile is an example scorer plugin for mcp-pruner, written as an operator would:
// its own main, the public plugins.Serve helper and the engine types, nothing else from the
// server. It boosts lines that match the operator's patterns for their own log formats.
//
//	go build -o /opt/pruner/rulefile ./plugins/examples/rulefile
//	sha256sum /opt/pruner/rulefile   # pin this in the plugins file
//
// The host starts it as: rulefile -rules /etc/pruner/rules.txt
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcp-pruner/mcp-pruner/plugins"
	"github.com/mcp-pruner/mcp-pruner/plugins/examples/rulefile/rules"
)

func main() {
	path := flag.String("rules", os.Getenv("RULEFILE_RULES"), "rule file: one '<weight> <regexp>' a line (env RULEFILE_RULES)")
	flag.Parse()
	s, err := rules.Load(*path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rulefile: %v\n", err)
		os.Exit(1)
	}
	plugins.Serve(s)
}
