// Command host starts one plugin (eagerly), prints its pid and waits to be killed: the
// orphan test kills it with SIGKILL and checks the plugin dies too.
//
//	host <plugin binary> <sha256> [args...]
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcp-pruner/mcp-pruner/plugins"
)

func main() {
	c, err := plugins.New(context.Background(), plugins.Config{
		Name: "orphan", Command: os.Args[1], SHA256: os.Args[2], Args: os.Args[3:], Start: plugins.StartEager,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(c.PID())
	select {}
}
