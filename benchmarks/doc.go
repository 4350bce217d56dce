// Package benchmarks measures whether a scorer lets agents read fewer tokens without losing
// what they need: it loads labelled cases (LoadCases), runs scorers through the real engine
// under token budgets and at their natural threshold (Run), aggregates recall of gold lines,
// hit rate, token reduction, latency and throughput into Rows, and writes them as a terminal
// table, JSON, Markdown and an SVG chart. It also provides the baseline scorers every report
// compares against (head, tail, head_tail, random, grep, bm25) and mines bug-fix commits of a
// git repository into cases (BuildCommits).
//
// It imports engine and the standard library only (its tests also use tokenizer); it must
// not import server, plugins, cmd or any concrete scorer package: scorers reach it through an
// engine.Registry built by the caller, and tokens through an engine.TokenCounter.
package benchmarks
