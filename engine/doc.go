// Package engine owns a prune: the Request and Result types, the Scorer interface and its
// registry, the non-prunable rules, selection under hard constraints, canonical markers and
// annotations, the recovery store, and fail-open behaviour.
//
// It imports the standard library only (token counting is reached through the TokenCounter
// interface, which package tokenizer satisfies). It must never import server, plugins,
// scorers or the MCP SDK; a test enforces the direction of these arrows.
package engine
