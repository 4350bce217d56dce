// Drives mcp-pruner with the official TypeScript MCP SDK client, as a third-party client would.
//
//   node client.mjs stdio /path/to/pruner     (spawns "pruner stdio")
//   node client.mjs http  http://127.0.0.1:PORT/mcp
//
// Prints one JSON line summarising what the server answered; exits 1 on any failed check.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target] = process.argv.slice(2);
if (!mode || !target) {
  console.error("usage: node client.mjs stdio <pruner binary> | http <url>");
  process.exit(2);
}

const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args: ["stdio"], stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target));

const client = new Client({ name: "interop-ts", version: "1.0.0" });
const summary = { mode, checks: [] };
function check(name, ok, detail) {
  summary.checks.push({ name, ok: !!ok, ...(detail === undefined ? {} : { detail }) });
}

try {
  await client.connect(transport);
  const info = client.getServerVersion();
  check("serverInfo.name", info?.name === "mcp-pruner", info);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  summary.tools = names;
  check("tools/list names", JSON.stringify(names) === JSON.stringify(["health", "prune_text", "recover_text"]), names);
  const prune = tools.find((t) => t.name === "prune_text");
  check(
    "prune_text required",
    JSON.stringify(prune?.inputSchema?.required) === JSON.stringify(["text", "goal_hint", "source_type", "options"]),
    prune?.inputSchema?.required,
  );

  const lines = [];
  for (let i = 1; i <= 300; i++) {
    lines.push(i % 50 === 0 ? `def parse_header_${i}(raw):  # parse header` : `    filler_value_${i} = compute(${i}) │ é`);
  }
  const text = lines.join("\n") + "\n";
  const res = await client.callTool({
    name: "prune_text",
    arguments: {
      text,
      goal_hint: "why does parse_header fail",
      source_type: "code",
      options: { max_prune_ratio: 0.55, min_keep_lines: 40, timeout_ms: 1500, annotate_lines: true, include_markers: true },
    },
  });
  const payload = JSON.parse(res.content[0].text);
  summary.prune_stats = payload.stats;
  check("prune_text payload", /^prn_[0-9a-f]{32}$/.test(payload.prune_id), payload.prune_id);
  check("structuredContent matches text", JSON.stringify(res.structuredContent) === JSON.stringify(payload));
  check("raw UTF-8 in text", res.content[0].text.includes("│") && !res.content[0].text.includes("\\u2502"));
  check("ratio constraint", payload.stats.pruned_ratio <= 0.55 && payload.stats.kept_lines >= 40, payload.stats);

  const rec = await client.callTool({
    name: "recover_text",
    arguments: { prune_id: payload.prune_id, ranges: [{ start_line: 1, end_line: 100000 }], include_line_numbers: false },
  });
  const recovered = JSON.parse(rec.content[0].text);
  check("recover_text round trip", recovered.raw_text === text, recovered.raw_text.length);

  const alias = await client.callTool({
    name: "recover_range",
    arguments: { prune_id: payload.prune_id, ranges: [{ start_line: 2, end_line: 3 }], include_line_numbers: true },
  });
  const aliased = JSON.parse(alias.content[0].text);
  check("recover_range alias", aliased.raw_text === `2│ ${lines[1]}\n3│ ${lines[2]}`, aliased.raw_text);

  // A tool's own errors are results with isError, {"error": {code, message, data}} as text,
  // which clients show the model; a tool that does not exist is a protocol error.
  for (const [name, args, code] of [
    ["recover_text", { prune_id: "prn_00000000000000000000000000000000", ranges: [{ start_line: 1, end_line: 1 }], include_line_numbers: true }, -32004],
    ["recover_text", { prune_id: payload.prune_id, ranges: [{ start_line: 5, end_line: 2 }], include_line_numbers: true }, -32005],
    ["prune_text", { text: "x", goal_hint: "y", source_type: "prose", options: {} }, -32602],
  ]) {
    const res = await client.callTool({ name, arguments: args });
    const err = res.isError ? JSON.parse(res.content[0].text).error : undefined;
    check(`isError ${code} from ${name}`, !!err && err.code === code && JSON.stringify(res.structuredContent) === res.content[0].text, res);
  }
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
    check("error -32602 from no_such_tool", false, "no error");
  } catch (e) {
    check("error -32602 from no_such_tool", e.code === -32602, { code: e.code, data: e.data, message: e.message });
  }

  const health = await client.callTool({ name: "health", arguments: {} });
  check("health", JSON.parse(health.content[0].text).status === "healthy");
} catch (e) {
  check("no exception", false, String(e && e.stack ? e.stack : e));
} finally {
  await client.close().catch(() => {});
}

summary.ok = summary.checks.every((c) => c.ok);
process.stdout.write(JSON.stringify(summary) + "\n");
process.exit(summary.ok ? 0 : 1);
