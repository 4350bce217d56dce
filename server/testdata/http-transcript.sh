#!/usr/bin/env bash
# Replays the HTTP transcript of server/README.md ("Calling it over HTTP") against a running "pruner serve"
# on 127.0.0.1:8006 (needs curl and jq). Run from the repository root:
#   pruner serve --scorer heuristic & bash server/testdata/http-transcript.sh
set -euo pipefail
cd "$(dirname "$0")"
URL=${URL:-http://127.0.0.1:8006}
run() { printf '$ %s\n' "$1"; bash -c "$1"; echo; }
export URL
run 'curl -sS $URL/health'
run "curl -sS -H 'Content-Type: application/json' -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}' \$URL/rpc | jq -c '.result.tools[] | {name, required: .inputSchema.required}'"
run "jq -n --rawfile text sample.py '{jsonrpc:\"2.0\",id:2,method:\"tools/call\",params:{name:\"prune_text\",arguments:{text:\$text,goal_hint:\"why does parse_header fail on empty input\",source_type:\"code\",options:{max_prune_ratio:0.6,min_keep_lines:5,timeout_ms:1500,annotate_lines:false,include_markers:true}}}}' > /tmp/prune.json"
run "curl -sS -H 'Content-Type: application/json' -d @/tmp/prune.json \$URL/rpc | tee /tmp/prune.out | jq -r '.result.content[0].text' | jq -r .pruned_text"
run "jq -r '.result.content[0].text' /tmp/prune.out | jq -c '{prune_id, annotations: (.annotations | length), stats, warnings}'"
run "jq -c '.result.structuredContent | {prune_id, ranges: [.annotations[0] | {start_line: .original_start_line, end_line: .original_end_line}], include_line_numbers: true} | {jsonrpc: \"2.0\", id: 3, method: \"tools/call\", params: {name: \"recover_text\", arguments: .}}' /tmp/prune.out | curl -sS -H 'Content-Type: application/json' -d @- \$URL/rpc | jq -r '.result.content[0].text' | jq -r .raw_text"
run "curl -sS -H 'Content-Type: application/json' -d '{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"recover_text\",\"arguments\":{\"prune_id\":\"prn_00000000000000000000000000000000\",\"ranges\":[{\"start_line\":1,\"end_line\":5}],\"include_line_numbers\":true}}}' \$URL/rpc"
run "curl -sS -H 'Content-Type: application/json' -d '{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"prune_text\",\"arguments\":{\"text\":\"a\",\"goal_hint\":\"b\",\"source_type\":\"prose\",\"options\":{\"max_prune_ratio\":0.5,\"min_keep_lines\":1,\"timeout_ms\":100,\"annotate_lines\":true,\"include_markers\":true}}}}' \$URL/rpc"
run "jq -n --rawfile code sample.py '{query:\"why does parse_header fail on empty input\",code:\$code}' | curl -sS -d @- \$URL/prune | jq -c '{kept_frags: (.kept_frags | length), origin_token_cnt, left_token_cnt, error_msg, prune_id}'"
