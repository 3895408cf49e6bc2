#!/usr/bin/env bash
# Produces the README screenshots of the real app in a real X window (Xvfb), against
# scripted OpenAI-compatible servers on 127.0.0.1:
#   main-window.png      the chat with its live charts (tokenscope --send … --screenshot)
#   comparison.png       History → Compare of a run on a slower and a faster gateway
#   benchmark-sweep.png  Provider → Benchmark, a concurrency sweep 1, 2, 4, 8
#   benchmark-chunks.png Provider → Benchmark on a local model, a prefill-chunk sweep
# and checks that each is a PNG of the expected size.
# Usage: tests/screenshot.sh [build-dir] [output-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
out="${2:-$root/resources/screenshots}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

# A Markdown answer (with a code block), streamed word by word.
"$build/tests/support/tokenscope-test-server" --ttft-ms 350 --gap-ms 25 \
  --answer-file "$root/resources/screenshots/answer.md" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/server.log" && break; sleep 0.05; done
url="$(sed -n 's/^listening on //p' "$work/server.log")"
[ -n "$url" ] || { echo "test server did not start"; cat "$work/server.log"; exit 1; }

export TOKENSCOPE_CONFIG_DIR="$work/config" XDG_RUNTIME_DIR="$work" HOME="$work/home"
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/xdg-config"
unset QT_QPA_PLATFORM
screen="-screen 0 1280x900x24"
xvfb-run -a -s "$screen" "$build/app/tokenscope" --base-url "$url" --model test-model \
  --send "Why is the first token slow?" --screenshot "$out/main-window.png" \
  --log-dir "$work/logs" --store "$work/runs.sqlite"
xvfb-run -a -s "$screen" "$build/tests/support/tokenscope-screenshot-tour" "$out"

# Each a PNG at least this large: signature, then IHDR width and height (big-endian).
check() {
  local file="$out/$1" min_w="$2" min_h="$3"
  [ -s "$file" ] || { echo "$file is missing or empty"; exit 1; }
  local sig
  sig="$(head -c 8 "$file" | od -An -tx1 | tr -d ' \n')"
  [ "$sig" = "89504e470d0a1a0a" ] || { echo "$file is not a PNG"; exit 1; }
  local width=$((16#$(od -An -tx1 -j16 -N4 "$file" | tr -d ' \n')))
  local height=$((16#$(od -An -tx1 -j20 -N4 "$file" | tr -d ' \n')))
  echo "screenshot $file: ${width}x${height}, $(stat -c %s "$file") bytes"
  [ "$width" -ge "$min_w" ] && [ "$height" -ge "$min_h" ] || {
    echo "$file: expected at least ${min_w}x${min_h}"
    exit 1
  }
}
check main-window.png 800 500
check comparison.png 1000 700
check benchmark-sweep.png 1000 700
check benchmark-chunks.png 1000 700
