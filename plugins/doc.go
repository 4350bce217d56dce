// Package plugins runs engine.Scorer implementations as separate processes through
// github.com/hashicorp/go-plugin over gRPC, so an operator's scorer (a model they trained, a
// rule set for their logs, a GPU model server) can crash or hang without taking the server
// down, and gives the same scores as the same scorer in-process.
//
// It owns the wire protocol (proto/scorer.proto, generated code in internal/scorerpb), the
// handshake, the host-side Client that implements engine.Scorer and io.Closer, and the
// plugin-side Serve helper a plugin author calls from main. Generated types never leave this
// package. It imports engine and go-plugin; it must not import server, scorers or cmd.
package plugins
