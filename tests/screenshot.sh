#!/usr/bin/env bash
# Produces the README screenshot: the real app in a real X window (Xvfb), streaming an
# answer from the scripted test server on 127.0.0.1, saved once the run has ended.
# Usage: tests/screenshot.sh [build-dir] [output.png]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
out="${2:-$root/resources/screenshots/main-window.png}"
mkdir -p "$(dirname "$out")"
work="$(mktemp -d)"
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

"$build/tests/support/tokenscope-test-server" --ttft-ms 350 --gap-ms 12 --chunks 180 \
  --tokens-per-chunk 1 >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/server.log" && break; sleep 0.05; done
url="$(sed -n 's/^listening on //p' "$work/server.log")"
[ -n "$url" ] || { echo "test server did not start"; cat "$work/server.log"; exit 1; }

export TOKENSCOPE_CONFIG_DIR="$work/config" XDG_RUNTIME_DIR="$work"
unset QT_QPA_PLATFORM
xvfb-run -a -s "-screen 0 1280x800x24" \
  "$build/app/tokenscope" --base-url "$url" --model test-model \
  --send "How fast does this endpoint stream?" --screenshot "$out" --log-dir "$work/logs"

# A PNG of the window's size: signature, then IHDR width and height (big-endian).
sig="$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')"
[ "$sig" = "89504e470d0a1a0a" ] || { echo "$out is not a PNG"; exit 1; }
width=$((16#$(od -An -tx1 -j16 -N4 "$out" | tr -d ' \n')))
height=$((16#$(od -An -tx1 -j20 -N4 "$out" | tr -d ' \n')))
echo "screenshot $out: ${width}x${height}"
[ "$width" -ge 800 ] && [ "$height" -ge 500 ] || { echo "unexpected size"; exit 1; }
