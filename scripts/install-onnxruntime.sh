#!/usr/bin/env bash
# install-onnxruntime.sh puts the onnxruntime shared library the `onnx` scorer loads into
# .tools/onnxruntime/ (gitignored). The library comes from the npm package onnxruntime-node,
# which ships prebuilt CPU binaries (bin/napi-v6/<os>/<arch>/libonnxruntime.so.1). The Go
# binding, onnxruntime_go v1.36.0 (go.mod), asks the library for C API version 29
# (ORT_API_VERSION in its bundled header); onnxruntime 1.30.0 serves API versions up to 30, so
# the pair works (checked by scorers/onnx's tests; an older library fails at load with a clear
# error). `npm pack` only downloads the tarball: no install scripts, no dependencies.
#
# Usage: scripts/install-onnxruntime.sh            (idempotent; re-run to repair)
# Env:   ORT_NPM_VERSION  npm package version (default 1.30.0)
set -euo pipefail

version="${ORT_NPM_VERSION:-1.30.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.tools/onnxruntime"
lib="$dest/libonnxruntime.so"

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) sub="linux/x64" ;;
  Linux/aarch64) sub="linux/arm64" ;;
  Darwin/arm64) sub="darwin/arm64" ;;
  *) echo "install-onnxruntime: no onnxruntime-node binary for $(uname -s)/$(uname -m)" >&2; exit 1 ;;
esac

if [[ -f "$dest/VERSION" && "$(cat "$dest/VERSION")" == "$version" && -e "$lib" ]]; then
  echo "onnxruntime $version already in $dest"
  exit 0
fi

command -v npm >/dev/null || { echo "install-onnxruntime: npm is required (apt-get install -y npm)" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# npm pack fetches the tarball only: no install scripts run, no dependencies resolved.
(cd "$tmp" && npm pack --silent "onnxruntime-node@$version" >/dev/null)
tar -xzf "$tmp"/onnxruntime-node-*.tgz -C "$tmp"
src="$tmp/package/bin/napi-v6/$sub"
so="$(ls "$src"/libonnxruntime.so.1* "$src"/libonnxruntime.*.dylib 2>/dev/null | head -n1 || true)"
if [[ -z "$so" ]]; then
  echo "install-onnxruntime: no libonnxruntime in onnxruntime-node@$version ($sub)" >&2
  ls -R "$tmp/package/bin" >&2 || true
  exit 1
fi

mkdir -p "$dest"
cp "$so" "$dest/$(basename "$so")"
ln -sf "$(basename "$so")" "$lib"
echo "$version" >"$dest/VERSION"
echo "onnxruntime $version installed: $lib -> $(basename "$so")"
