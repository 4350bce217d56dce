#!/usr/bin/env bash
# build-words.sh writes scorers/heuristic/words/en.txt.gz, the English word list the
# heuristic's spelling rule (scorers/heuristic/spelling.go) embeds: SCOWL's "large" American
# and British lists as Debian packages them (wamerican-large, wbritish-large), merged to the
# lowercase ASCII words without apostrophes, one per line, sorted, gzipped without a
# timestamp so the same packages give the same bytes. The output is committed: the pruner
# never reads the network or the system's dictionary at run time. Run it only to change the
# list (it needs apt-get's Debian mirror, dpkg-deb and gzip).
#
# Usage: scripts/build-words.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/scorers/heuristic/words/en.txt.gz"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && apt-get download wamerican-large wbritish-large >/dev/null 2>&1) ||
  { echo "build-words: apt-get download wamerican-large wbritish-large failed (is a Debian mirror reachable?)" >&2; exit 1; }
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/x"; done
dicts=("$tmp/x/usr/share/dict/american-english-large" "$tmp/x/usr/share/dict/british-english-large")
LC_ALL=C grep -h -x '[A-Za-z]*' "${dicts[@]}" | LC_ALL=C tr 'A-Z' 'a-z' | LC_ALL=C sort -u |
  gzip -n -9 >"$out"
ls "$tmp"/*.deb | xargs -n1 basename >"$tmp/versions"
echo "wrote $out ($(zcat "$out" | wc -l) words from $(paste -sd' ' "$tmp/versions"))"
