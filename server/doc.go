// Package server exposes the engine to clients: the MCP tools prune_text, recover_text (with
// its unlisted alias recover_range) and health, defined once and served over plain JSON-RPC
// (POST /rpc), MCP Streamable HTTP (POST /mcp, go-sdk), MCP stdio (go-sdk), SWE-Pruner's
// HTTP API (POST /prune, GET /health), and the mapping of engine errors to JSON-RPC codes.
//
// It imports engine and the MCP SDK. It must not read flags or the environment (cmd/pruner
// does), must not import scorers or plugins (the registry arrives inside the engine), and
// engine must never import it.
package server
